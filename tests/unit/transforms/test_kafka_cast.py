"""Cast behaves as Kafka's: Java narrowing and parsing, logical types, schemas rebuilt."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record


def rec(value: object, schema: object = None) -> Record:
    return Record("t", 0, 0, 0, None, value, (), None, schema)


@pytest.mark.parametrize(
    ("value", "target", "expected"),
    [
        (300, "int8", 44),
        (70000, "int16", 4464),
        (2**40 + 5, "int32", 5),
        (3.99, "int32", 3),
        (-3.99, "int64", -3),
        (1e20, "int32", 2147483647),
        (1e20, "int8", -1),
        (True, "int8", 1),
        ("123", "int16", 123),
        ("1.5", "float64", 1.5),
        (" 2.5f ", "float64", 2.5),
        ("TRUE", "boolean", True),
        ("yes", "boolean", False),
        (2, "boolean", True),
        (0.0, "boolean", False),
        (1e10, "string", "1.0E10"),
        (0.0001, "string", "1.0E-4"),
        (12.5, "string", "12.5"),
        (True, "string", "true"),
        (b"\x00\xff", "string", "AP8="),
        (42, "float32", 42.0),
    ],
)
def test_whole_value_schemaless_casts_like_java(smt, value, target, expected):
    assert smt("Cast$Value", spec=target).apply(rec(value)).value == expected


@pytest.mark.parametrize(("value", "target"), [("300", "int8"), ("1.5", "int32"), ("abc", "float32")])
def test_text_that_does_not_parse_fails(smt, value, target):
    with pytest.raises(RecordError, match="out of range"):
        smt("Cast$Value", spec=target).apply(rec(value))


def test_unsupported_inputs_fail(smt):
    with pytest.raises(RecordError, match="does not support casting from MAP"):
        smt("Cast$Value", spec="a:string").apply(rec({"a": {"b": 1}}))
    with pytest.raises(RecordError, match="Unexpected type"):
        smt("Cast$Value", spec="int32").apply(rec(b"\x01"))
    with pytest.raises(RecordError, match="not supported by Connect's data API"):
        smt("Cast$Value", spec="a:string").apply(rec({"a": Decimal("1.5")}))


def test_schemaless_field_casts_leave_other_fields(smt):
    out = smt("Cast$Value", spec="a:int32,b:string,gone:int8").apply(rec({"a": "7", "b": 1.0, "c": "x"}))
    assert out.value == {"a": 7, "b": "1.0", "c": "x", "gone": None}
    tombstone = rec(None)
    assert smt("Cast$Value", spec="a:int32").apply(tombstone) is tombstone


SCHEMA = {
    "type": "record",
    "name": "Reading",
    "fields": [
        {"name": "level", "type": "long", "default": 3},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "ratio", "type": "float"},
    ],
}
READING = {
    "level": 300,
    "note": "42",
    "at": datetime(2020, 1, 2, 3, 4, 5, 6000, tzinfo=UTC),
    "day": date(2020, 1, 2),
    "price": Decimal("12.75"),
    "ratio": 0.1,
}


def test_with_schema_fields_get_new_types_keeping_optionality_and_defaults(smt):
    chain = smt("Cast$Value", spec="level:int8,note:int32,at:int64,day:int32,price:float64,ratio:string")
    out = chain.apply(rec(READING, SCHEMA))
    assert out.value == {
        "level": 44,
        "note": 42,
        "at": 1577934245006,
        "day": 18263,
        "price": 12.75,
        "ratio": "0.1",
    }
    types = {field["name"]: field for field in out.value_schema["fields"]}
    assert types["level"] == {"name": "level", "type": {"type": "int", "connect.type": "int8"}, "default": 3}
    assert types["note"]["type"] == ["null", "int"]
    assert types["at"]["type"] == "long"
    assert types["ratio"]["type"] == "string"
    assert out.value_schema["name"] == "Reading"


def test_logical_types_cast_to_connect_iso_text(smt):
    out = smt("Cast$Value", spec="at:string,day:string,price:string").apply(rec(READING, SCHEMA))
    assert (out.value["at"], out.value["day"], out.value["price"]) == (
        "2020-01-02T03:04:05.006Z",
        "2020-01-02",
        "12.75",
    )


def test_whole_value_with_schema_replaces_the_schema(smt):
    out = smt("Cast$Value", spec="int32").apply(rec("12", ["null", "string"]))
    assert (out.value, out.value_schema) == (12, ["null", "int"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "at least one field"),
        ("a:bogus", "Invalid type"),
        ("a:bytes", "does not support casting to BYTES"),
        ("int8,a:int16", "only cast"),
        ("a:b:c", "Invalid cast"),
    ],
)
def test_spec_errors(smt, spec, message):
    with pytest.raises(ConfigError, match=message):
        smt("Cast$Value", spec=spec)
