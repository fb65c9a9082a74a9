from __future__ import annotations

import base64
from datetime import UTC, date, datetime, time
from decimal import Decimal

import pytest

from lakesink.domain.errors import FormatError
from lakesink.domain.schema import connect_to_avro, fits, from_avro, from_connect_envelope, schema_for

CONNECT_MESSAGE = {
    "schema": {
        "type": "struct",
        "name": "com.acme.Order",
        "version": 2,
        "optional": False,
        "fields": [
            {"field": "id", "type": "int64", "optional": False},
            {"field": "note", "type": "string", "optional": True},
            {"field": "small", "type": "int8", "optional": False},
            {"field": "at", "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "optional": False},
            {"field": "day", "type": "int32", "name": "org.apache.kafka.connect.data.Date", "optional": False},
            {"field": "clock", "type": "int32", "name": "org.apache.kafka.connect.data.Time", "optional": False},
            {
                "field": "price",
                "type": "bytes",
                "name": "org.apache.kafka.connect.data.Decimal",
                "parameters": {"scale": "2"},
                "optional": False,
            },
            {"field": "tags", "type": "array", "items": {"type": "string", "optional": False}, "optional": True},
        ],
    },
    "payload": {
        "id": 7,
        "note": None,
        "small": 3,
        "at": 1704067200123,
        "day": 19724,
        "clock": 3_600_500,
        "price": base64.b64encode((12345).to_bytes(2, "big", signed=True)).decode(),
        "tags": ["a"],
    },
}


def test_connect_struct_maps_to_a_named_avro_record_with_version():
    schema, _ = from_connect_envelope(CONNECT_MESSAGE)
    assert (schema["name"], schema["namespace"], schema["connect.version"]) == ("Order", "com.acme", 2)
    types = {field["name"]: field["type"] for field in schema["fields"]}
    assert types["id"] == "long"
    assert types["note"] == ["null", "string"]
    assert types["small"] == {"type": "int", "connect.type": "int8"}
    assert types["at"]["logicalType"] == "timestamp-millis"
    assert types["day"]["logicalType"] == "date"
    assert types["clock"]["logicalType"] == "time-millis"
    assert types["price"] == {"type": "bytes", "logicalType": "decimal", "precision": 38, "scale": 2}


def test_connect_payload_logical_types_are_decoded():
    schema, value = from_connect_envelope(CONNECT_MESSAGE)
    assert value["at"] == datetime(2024, 1, 1, 0, 0, 0, 123000, tzinfo=UTC)
    assert value["day"] == date(2024, 1, 2)
    assert value["clock"] == time(1, 0, 0, 500000)
    assert value["price"] == Decimal("123.45")
    assert fits(value, schema)


def test_numeric_decimal_payloads_are_exact():
    schema = {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}}
    _, value = from_connect_envelope({"schema": schema, "payload": 100.43})
    assert value == Decimal("100.43")


def test_a_document_without_schema_and_payload_is_rejected():
    with pytest.raises(FormatError):
        from_connect_envelope({"a": 1})


def test_maps_with_non_string_keys_are_rejected():
    with pytest.raises(FormatError):
        connect_to_avro({"type": "map", "keys": {"type": "int32"}, "values": {"type": "string"}})


def test_schema_for_tells_connect_from_avro_hints():
    assert schema_for("x", {"type": "string", "optional": True}) == ["null", "string"]
    assert schema_for("x", '{"type": "string"}') == "string"
    assert schema_for({"a": 1}) == schema_for({"a": 1}, None)


def test_avro_schema_json_is_normalised():
    assert from_avro('{"type": "array", "items": {"type": "long"}}') == {"type": "array", "items": "long"}
