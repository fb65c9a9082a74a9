"""InsertField, ReplaceField and MaskField behave as Kafka's, with and without a schema."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal

import pytest

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record

PERSON = {
    "type": "record",
    "name": "Person",
    "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "email", "type": ["null", "string"], "default": None},
    ],
}


def rec(value: object, schema: object = None, *, key: object = None, key_schema: object = None) -> Record:
    return Record("orders", 3, 42, 1_600_000_000_123, key, value, (), key_schema, schema)


# --- InsertField ----------------------------------------------------------------------------


def test_insert_field_schemaless_adds_metadata_as_plain_values(smt):
    chain = smt(
        "InsertField$Value",
        **{
            "topic.field": "t",
            "partition.field": "p",
            "offset.field": "o",
            "timestamp.field": "ts",
            "static.field": "origin",
            "static.value": "eu-west",
        },
    )
    out = chain.apply(rec({"id": 7}))
    assert out.value == {
        "id": 7,
        "t": "orders",
        "p": 3,
        "o": 42,
        "ts": 1_600_000_000_123,
        "origin": "eu-west",
    }
    assert out.value_schema is None


def test_insert_field_with_schema_adds_typed_fields_optional_unless_bang(smt):
    chain = smt("InsertField$Value", **{"topic.field": "t!", "timestamp.field": "ts?", "offset.field": "o"})
    out = chain.apply(rec({"id": 1, "email": None}, PERSON))
    assert out.value["t"] == "orders"
    assert out.value["o"] == 42
    assert out.value["ts"] == datetime(2020, 9, 13, 12, 26, 40, 123000, tzinfo=UTC)
    fields = {field["name"]: field["type"] for field in out.value_schema["fields"]}
    assert out.value_schema["name"] == "Person"
    assert fields["t"] == "string"
    assert fields["o"] == ["null", "long"]
    assert fields["ts"] == ["null", {"type": "long", "logicalType": "timestamp-millis"}]


def test_insert_field_skips_a_missing_timestamp_and_a_null_value(smt):
    chain = smt("InsertField$Value", **{"timestamp.field": "ts"})
    assert chain.apply(Record("t", 0, 0, None, None, {"a": 1})).value == {"a": 1}
    tombstone = rec(None)
    assert chain.apply(tombstone) is tombstone


def test_insert_field_required_field_without_a_value_fails(smt):
    chain = smt("InsertField$Value", **{"timestamp.field": "ts!"})
    with pytest.raises(RecordError, match="required field"):
        chain.apply(Record("t", 0, 0, None, None, {"id": 1, "email": None}, (), None, PERSON))


def test_insert_field_works_on_the_key(smt):
    out = smt("InsertField$Key", **{"partition.field": "p"}).apply(rec({"v": 1}, key={"k": 1}))
    assert out.key == {"k": 1, "p": 3}
    assert out.value == {"v": 1}


def test_insert_field_refuses_non_maps_and_duplicate_fields(smt):
    with pytest.raises(RecordError, match="Only Map objects"):
        smt("InsertField$Value", **{"topic.field": "t"}).apply(rec("text"))
    with pytest.raises(RecordError, match="duplication"):
        smt("InsertField$Value", **{"topic.field": "id"}).apply(rec({"id": 1, "email": None}, PERSON))


def test_insert_field_config_errors(smt):
    with pytest.raises(ConfigError, match="No field insertion"):
        smt("InsertField$Value")
    with pytest.raises(ConfigError, match=r"transforms\.x\.static\.value"):
        smt("InsertField$Value", **{"static.field": "s"})
    with pytest.raises(ConfigError, match=r"transforms\.x\.topic\.feild"):
        smt("InsertField$Value", **{"topic.feild": "t"})


# --- ReplaceField ---------------------------------------------------------------------------


def test_replace_field_schemaless_filters_then_renames(smt):
    chain = smt("ReplaceField$Value", include="a,b,c", exclude="c", renames="a:alpha,b:beta")
    assert chain.apply(rec({"a": 1, "b": 2, "c": 3, "d": 4})).value == {"alpha": 1, "beta": 2}


def test_replace_field_deprecated_names_apply_when_the_new_ones_are_absent(smt):
    chain = smt("ReplaceField$Value", whitelist="a,b", blacklist="b")
    assert chain.apply(rec({"a": 1, "b": 2, "c": 3})).value == {"a": 1}
    chain = smt("ReplaceField$Value", include="c", whitelist="a")
    assert chain.apply(rec({"a": 1, "c": 3})).value == {"c": 3}


def test_replace_field_with_schema_renames_schema_fields(smt):
    out = smt("ReplaceField$Value", renames="email:mail").apply(rec({"id": 1, "email": "x@y"}, PERSON))
    assert out.value == {"id": 1, "mail": "x@y"}
    assert [field["name"] for field in out.value_schema["fields"]] == ["id", "mail"]
    assert out.value_schema["name"] == "Person"
    out = smt("ReplaceField$Value", exclude="email").apply(rec({"id": 1, "email": "x@y"}, PERSON))
    assert out.value == {"id": 1}
    assert [field["name"] for field in out.value_schema["fields"]] == ["id"]


def test_replace_field_passes_tombstones_and_rejects_bad_renames(smt):
    tombstone = rec(None)
    assert smt("ReplaceField$Value", exclude="a").apply(tombstone) is tombstone
    with pytest.raises(ConfigError, match="Invalid rename"):
        smt("ReplaceField$Value", renames="a:b:c")
    with pytest.raises(ConfigError, match="Invalid rename"):
        smt("ReplaceField$Value", renames="lonely")


# --- MaskField ------------------------------------------------------------------------------

MIXED = {
    "keep": 9,
    "flag": True,
    "count": 9,
    "ratio": 2.5,
    "name": "Ada",
    "when": datetime(2021, 5, 6, 7, 8, tzinfo=UTC),
    "day": date(2021, 5, 6),
    "clock": time(7, 8),
    "amount": Decimal("12.34"),
    "tags": ["a"],
    "attrs": {"k": "v"},
    "nothing": None,
}


def test_mask_field_blanks_each_type(smt):
    fields = ",".join(name for name in MIXED if name != "keep")
    out = smt("MaskField$Value", fields=fields).apply(rec(MIXED))
    assert out.value == {
        "keep": 9,
        "flag": False,
        "count": 0,
        "ratio": 0.0,
        "name": "",
        "when": datetime(1970, 1, 1, tzinfo=UTC),
        "day": date(1970, 1, 1),
        "clock": time(0),
        "amount": Decimal(0),
        "tags": [],
        "attrs": {},
        "nothing": None,
    }


def test_mask_field_replacement_is_converted_to_the_field_type(smt):
    out = smt("MaskField$Value", fields="count,ratio,name,amount", replacement="77.5").apply(rec(MIXED))
    assert (out.value["count"], out.value["ratio"], out.value["name"], out.value["amount"]) == (
        77,
        77.5,
        "77.5",
        Decimal("77.5"),
    )


def test_mask_field_with_schema_uses_the_schema_width_and_keeps_the_schema(smt):
    schema = {
        "type": "record",
        "fields": [
            {"name": "tiny", "type": {"type": "int", "connect.type": "int8"}},
            {"name": "f", "type": "float"},
            {"name": "s", "type": "string"},
        ],
    }
    out = smt("MaskField$Value", fields="tiny,f", replacement="300.7").apply(
        rec({"tiny": 5, "f": 1.0, "s": "x"}, schema)
    )
    assert out.value == {"tiny": 44, "f": pytest.approx(300.7, rel=1e-6), "s": "x"}
    assert out.value_schema is schema


@pytest.mark.parametrize("field", ["flag", "when", "tags", "attrs"])
def test_mask_field_replacement_refused_for_non_numbers_and_strings(smt, field):
    with pytest.raises(RecordError, match="Cannot mask value of type"):
        smt("MaskField$Value", fields=field, replacement="1").apply(rec(MIXED))


def test_mask_field_replacement_that_is_not_a_number_fails(smt):
    with pytest.raises(RecordError, match="Unable to convert"):
        smt("MaskField$Value", fields="count", replacement="lots").apply(rec(MIXED))


def test_mask_field_bytes_and_tombstones_fail_as_in_kafka(smt):
    with pytest.raises(RecordError, match="Cannot mask value of type"):
        smt("MaskField$Value", fields="b").apply(rec({"b": b"\x01"}))
    with pytest.raises(RecordError, match="Only Map objects"):
        smt("MaskField$Value", fields="b").apply(rec(None))


def test_mask_field_refuses_a_struct_field_as_kafka_does(smt):
    """Kafka masks a schemaless map to {} but has no mask for a Struct (the Connect oracle found
    lakesink blanking it): a poison record, with or without a replacement."""
    schema = {"type": "record", "fields": [{"name": "inner", "type": {"type": "record", "name": "In", "fields": []}}]}
    with pytest.raises(RecordError, match="Cannot mask value of type: Struct"):
        smt("MaskField$Value", fields="inner").apply(rec({"inner": {}}, schema))
    assert smt("MaskField$Value", fields="inner").apply(rec({"inner": {"a": 1}})).value == {"inner": {}}


def test_mask_field_config_errors(smt):
    with pytest.raises(ConfigError, match=r"transforms\.x\.fields"):
        smt("MaskField$Value")
    with pytest.raises(ConfigError, match="non-empty"):
        smt("MaskField$Value", fields="a", replacement="")
