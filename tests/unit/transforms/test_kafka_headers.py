"""HeaderFrom, InsertHeader and DropHeaders behave as Kafka's."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record

SCHEMA = {
    "type": "record",
    "name": "Payment",
    "fields": [{"name": "id", "type": "string"}, {"name": "amount", "type": "double"}],
}


def rec(value: object, schema: object = None) -> Record:
    return Record("pay", 0, 0, 0, {"k": 1}, value, (("h", 1), ("dup", "a")), None, schema)


def test_header_from_copy_schemaless_appends_headers_in_order(smt):
    chain = smt("HeaderFrom$Value", fields="id,missing", headers="payment-id,other", operation="copy")
    out = chain.apply(rec({"id": "p1", "amount": 2.0}))
    assert out.value == {"id": "p1", "amount": 2.0}
    assert out.headers == (("h", 1), ("dup", "a"), ("payment-id", "p1"), ("other", None))


def test_header_from_move_with_schema_drops_the_field_from_the_schema(smt):
    out = smt("HeaderFrom$Value", fields="id", headers="dup", operation="move").apply(
        rec({"id": "p1", "amount": 2.0}, SCHEMA)
    )
    assert out.value == {"amount": 2.0}
    assert out.value_schema == {**SCHEMA, "fields": [{"name": "amount", "type": "double"}]}
    assert out.headers[-2:] == (("dup", "a"), ("dup", "p1"))


def test_header_from_keeps_the_schema_of_an_array_or_map_field(smt):
    """A map of int32 stays a map header (the Connect oracle found it inferred as a record of longs);
    only a field holding a named type (a record) gets its header schema from the value."""
    schema = {
        "type": "record",
        "name": "Bag",
        "fields": [
            {"name": "attrs", "type": {"type": "map", "values": "int"}},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "inner", "type": {"type": "array", "items": {"type": "record", "name": "In", "fields": []}}},
        ],
    }
    out = smt("HeaderFrom$Value", fields="attrs,tags,inner", headers="a,t,i", operation="copy").apply(
        rec({"attrs": {"x": 1}, "tags": ["a"], "inner": [{}]}, schema)
    )
    assert out.header_schemas[-3:] == ({"type": "map", "values": "int"}, {"type": "array", "items": "string"}, None)


def test_header_from_key_and_errors(smt):
    out = smt("HeaderFrom$Key", fields="k", headers="key-k", operation="move").apply(rec(None))
    assert (out.key, out.headers[-1]) == ({}, ("key-k", 1))
    with pytest.raises(RecordError, match="not in the schema"):
        smt("HeaderFrom$Value", fields="nope", headers="x", operation="copy").apply(
            rec({"id": "p", "amount": 1.0}, SCHEMA)
        )
    with pytest.raises(RecordError, match="Only Map objects"):
        smt("HeaderFrom$Value", fields="a", headers="x", operation="copy").apply(rec("text"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"headers": "a", "operation": "copy"}, r"transforms\.x\.fields is required"),
        ({"fields": "a,b", "headers": "a", "operation": "copy"}, "same number"),
        ({"fields": "a", "headers": "a", "operation": "Copy"}, "move or copy"),
    ],
)
def test_header_from_config_errors(smt, options, message):
    with pytest.raises(ConfigError, match=message):
        smt("HeaderFrom$Value", **options)


def test_insert_header_appends_the_literal(smt):
    out = smt("InsertHeader", header="source", **{"value.literal": "lakesink"}).apply(rec(1))
    assert out.headers == (("h", 1), ("dup", "a"), ("source", "lakesink"))
    assert out.aligned_header_schemas() == (None, None, "string")
    with pytest.raises(ConfigError, match=r"transforms\.x\.value\.literal is required"):
        smt("InsertHeader", header="source")


def test_drop_headers_removes_every_header_with_a_listed_name(smt):
    record = Record("t", 0, 0, 0, None, 1, (("a", 1), ("b", 2), ("a", 3), ("c", 4)))
    assert smt("DropHeaders", headers="a,c").apply(record).headers == (("b", 2),)
    with pytest.raises(ConfigError, match=r"transforms\.x\.headers"):
        smt("DropHeaders")


@pytest.mark.parametrize(
    ("literal", "value", "schema"),
    [
        ("42", 42, {"type": "int", "connect.type": "int8"}),
        ("true", True, "boolean"),
        ("[1,2]", [1, 2], {"type": "array", "items": {"type": "int", "connect.type": "int8"}}),
        ("2.5", 2.5, "float"),
        ("a b", "a b", "string"),
    ],
)
def test_insert_header_types_the_literal_as_values_parse_string(smt, literal, value, schema):
    out = smt("InsertHeader", header="n", **{"value.literal": literal}).apply(rec(1))
    assert out.headers[-1] == ("n", value)
    assert out.aligned_header_schemas()[-1] == schema


def test_header_edits_keep_the_converters_schemas_beside_their_headers(smt):
    typed = Record(
        "t", 0, 0, headers=(("a", 1), ("b", "x"), ("c", 2)), header_schemas=("int", "string", "long")
    )
    dropped = smt("DropHeaders", headers="b").apply(typed)
    assert (dropped.headers, dropped.header_schemas) == ((("a", 1), ("c", 2)), ("int", "long"))
    copied = smt("HeaderFrom$Value", fields="amount", headers="amt", operation="copy").apply(
        Record("t", 0, 0, value={"id": "p", "amount": 1.5}, value_schema=SCHEMA, headers=(("a", 1),))
    )
    assert copied.aligned_header_schemas() == (None, "double")


def test_a_copied_field_of_a_named_type_gets_an_inferred_header_schema(smt):
    address = {
        "type": "record",
        "name": "Address",
        "namespace": "com.x",
        "fields": [{"name": "city", "type": "string"}],
    }
    schema = {
        "type": "record",
        "name": "Order",
        "fields": [{"name": "to", "type": address}, {"name": "n", "type": "long"}],
    }
    record = Record("t", 0, 0, value={"to": {"city": "Oslo"}, "n": 3}, value_schema=schema)
    out = smt("HeaderFrom$Value", fields="to,n", headers="to,n", operation="copy").apply(record)
    assert out.aligned_header_schemas() == (None, "long")  # com.x.Address is defined once, in the value


def test_a_structured_literal_is_a_fresh_value_for_every_record(smt):
    insert = smt("InsertHeader", header="tags", **{"value.literal": "[1,2]"})
    first, second = insert.apply(rec(1)), insert.apply(rec(2))
    assert first.headers[-1][1] == second.headers[-1][1] and first.headers[-1][1] is not second.headers[-1][1]
