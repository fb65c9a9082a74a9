"""ValueToKey, ExtractField, HoistField and Flatten behave as Kafka's, with and without a schema."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record

ADDRESS = {
    "type": "record",
    "name": "Address",
    "fields": [{"name": "city", "type": "string"}, {"name": "zip", "type": "int"}],
}
CUSTOMER = {
    "type": "record",
    "name": "Customer",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "home", "type": ["null", ADDRESS], "default": None},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
    ],
}
ALICE = {"id": 5, "home": {"city": "Lyon", "zip": 69001}, "tags": ["vip"]}


def rec(value: object, schema: object = None) -> Record:
    return Record("customers", 0, 1, 10, "k", value, (), None, schema)


def test_value_to_key_schemaless_builds_a_map_key(smt):
    out = smt("ValueToKey", fields="id,missing").apply(rec({"id": 5, "x": 1}))
    assert out.key == {"id": 5, "missing": None}
    assert out.key_schema is None
    assert out.value == {"id": 5, "x": 1}


def test_value_to_key_with_schema_builds_a_struct_key(smt):
    out = smt("ValueToKey", fields="id").apply(rec(ALICE, CUSTOMER))
    assert out.key == {"id": 5}
    assert out.key_schema == {"type": "record", "fields": [{"name": "id", "type": "long"}]}
    with pytest.raises(RecordError, match="Field does not exist: nope"):
        smt("ValueToKey", fields="nope").apply(rec(ALICE, CUSTOMER))


def test_value_to_key_needs_fields(smt):
    with pytest.raises(ConfigError, match=r"transforms\.x\.fields"):
        smt("ValueToKey")


def test_extract_field_schemaless_and_null(smt):
    chain = smt("ExtractField$Value", field="id")
    assert chain.apply(rec({"id": 5})).value == 5
    assert chain.apply(rec({"other": 1})).value is None
    assert chain.apply(rec(None)).value is None
    with pytest.raises(RecordError, match="Only Map objects"):
        chain.apply(rec([1, 2]))


def test_extract_field_with_schema_takes_the_field_schema(smt):
    out = smt("ExtractField$Value", field="home").apply(rec(ALICE, CUSTOMER))
    assert out.value == {"city": "Lyon", "zip": 69001}
    assert out.value_schema == ["null", ADDRESS]
    with pytest.raises(RecordError, match="Unknown field: nope"):
        smt("ExtractField$Value", field="nope").apply(rec(ALICE, CUSTOMER))


def test_extract_field_v1_treats_dots_as_part_of_the_name(smt):
    assert smt("ExtractField$Value", field="home.city").apply(rec({"home.city": "Nice"})).value == "Nice"


def test_extract_field_v2_follows_nested_paths(smt):
    chain = smt("ExtractField$Value", field="home.city", **{"field.syntax.version": "v2"})
    assert chain.apply(rec(ALICE)).value == "Lyon"
    out = chain.apply(rec(ALICE, CUSTOMER))
    assert (out.value, out.value_schema) == ("Lyon", "string")
    assert chain.apply(rec({"id": 1, "home": None, "tags": []}, CUSTOMER)).value is None
    backticked = smt("ExtractField$Value", field="`a.b`.c", **{"field.syntax.version": "V2"})
    assert backticked.apply(rec({"a.b": {"c": 3}})).value == 3


def test_extract_field_config_errors(smt):
    with pytest.raises(ConfigError, match=r"transforms\.x\.field\b"):
        smt("ExtractField$Value")
    with pytest.raises(ConfigError, match="V1, V2"):
        smt("ExtractField$Value", field="a", **{"field.syntax.version": "V3"})
    with pytest.raises(ConfigError, match="backtick"):
        smt("ExtractField$Value", field="`a.b", **{"field.syntax.version": "V2"})


def test_hoist_field_wraps_the_part(smt):
    assert smt("HoistField$Key", field="wrapped").apply(rec(None)).key == {"wrapped": "k"}
    out = smt("HoistField$Value", field="customer").apply(rec(ALICE, CUSTOMER))
    assert out.value == {"customer": ALICE}
    assert out.value_schema == {"type": "record", "fields": [{"name": "customer", "type": CUSTOMER}]}


def test_flatten_schemaless_joins_names_and_keeps_arrays(smt):
    out = smt("Flatten$Value", delimiter="_").apply(rec({"a": {"b": {"c": 1}, "d": None}, "e": [{"x": 1}]}))
    assert out.value == {"a_b_c": 1, "a_d": None, "e": [{"x": 1}]}


def test_flatten_with_schema_makes_fields_under_optional_structs_optional(smt):
    out = smt("Flatten$Value").apply(rec(ALICE, CUSTOMER))
    assert out.value == {"id": 5, "home.city": "Lyon", "home.zip": 69001, "tags": ["vip"]}
    assert out.value_schema["name"] == "Customer"
    assert out.value_schema["fields"] == [
        {"name": "id", "type": "long"},
        {"name": "home.city", "type": ["null", "string"], "default": None},
        {"name": "home.zip", "type": ["null", "int"], "default": None},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
    ]
    assert smt("Flatten$Value").apply(rec({"id": 1, "home": None, "tags": []}, CUSTOMER)).value == {
        "id": 1,
        "home.city": None,
        "home.zip": None,
        "tags": [],
    }


def test_flatten_refuses_maps_with_a_schema(smt):
    schema = {"type": "record", "fields": [{"name": "m", "type": {"type": "map", "values": "long"}}]}
    with pytest.raises(RecordError, match="does not support MAP"):
        smt("Flatten$Value").apply(rec({"m": {"a": 1}}, schema))
