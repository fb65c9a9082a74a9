"""Every Connect type as Kafka's own ``JsonConverter`` writes it, read by both of lakesink's readers
(the converter, adapters/kafka/connect_json.py, and the schema mapping, domain/schema/connect.py),
and lakesink's own Connect JSON (header values written back) in the names JsonConverter reads.

JsonConverter names FLOAT32 ``float`` and FLOAT64 ``double`` (``JsonSchema``), not by
``Schema.Type`` (FLOAT32/FLOAT64); a reader that knew only the latter refused every record with a
float field ("unknown Connect schema type 'double'"). :data:`WRITTEN` is, byte for byte, what Kafka
4.4.0's ``JsonConverter.fromConnectData`` (schemas.enable=true) wrote for a Struct of every type,
built with SchemaBuilder (logical types, optional fields, a default, names, versions, docs,
parameters), by a throw-away program against .tools/maven/kafka/*.jar.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time
from decimal import Decimal

import pytest

from lakesink.adapters.kafka.converters import JsonConverter
from lakesink.adapters.kafka.header_converters import JsonHeaderConverter, SimpleHeaderConverter
from lakesink.domain.errors import FormatError
from lakesink.domain.schema import connect_to_avro, fits, from_connect_envelope
from lakesink.domain.transforms.header_values import convert_to_string, parse_string

WRITTEN = (
    '{"schema":{"type":"struct","fields":[{"type":"int8","optional":false,"field":"i8"},{"type":"int16","optional":false,"field":"i16"},{"type":"int32","optional":false,"field":"i32"},{"type":"int64","optional":false,"field":"i64"},{"type":"float","optional":false,"field":"f32"},{"type":"double","optional":false,"field":"f64"},{"type":"boolean","optional":false,"field":"b"},{"type":"string","optional":false,"field":"s"},{"type":"bytes","optional":false,"field":"by"},{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"dec"},{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"date"},{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"time"},{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},{"type":"array","items":{"type":"string","optional":false},"optional":false,"field":"arr"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int64","optional":false},"optional":false,"field":"m"},{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"string","optional":false},"optional":false,"field":"mi"},{"type":"struct","fields":[{"type":"int32","optional":false,"field":"a"}],"optional":false,"name":"com.example.Inner","version":2,"doc":"inner doc","field":"inner"},{"type":"string","optional":true,"field":"opt"},{"type":"int32","optional":false,"doc":"with default","default":7,"field":"def"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"optts"}],"optional":false,"name":"com.example.All","version":3,"doc":"all types"},"payload":{"i8":1,"i16":2,"i32":3,"i64":4,"f32":1.5,"f64":2.25,"b":true,"s":"x","by":"AQID","dec":"MDk=","date":19000,"time":3723004,"ts":1700000000123,"arr":["p","q"],"m":{"k":5},"mi":[[1,"one"]],"inner":{"a":9},"opt":null,"def":8,"optts":null}}'
)

#: JsonSchema's type names: what JsonConverter writes and the only ones it reads.
JSON_CONVERTER_TYPES = {"int8", "int16", "int32", "int64", "float", "double", "boolean", "string", "bytes", "array",
                        "map", "struct"}

AVRO_TYPES = {
    "i8": {"type": "int", "connect.type": "int8"},
    "i16": {"type": "int", "connect.type": "int16"},
    "i32": "int",
    "i64": "long",
    "f32": "float",
    "f64": "double",
    "b": "boolean",
    "s": "string",
    "by": "bytes",
    "dec": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2},
    "date": {"type": "int", "logicalType": "date"},
    "time": {"type": "int", "logicalType": "time-millis"},
    "ts": {"type": "long", "logicalType": "timestamp-millis"},
    "arr": {"type": "array", "items": "string"},
    "m": {"type": "map", "values": "long"},
    "opt": ["null", "string"],
    "def": "int",
    "optts": ["null", {"type": "long", "logicalType": "timestamp-millis"}],
}

VALUES = {
    "i8": 1, "i16": 2, "i32": 3, "i64": 4, "f32": 1.5, "f64": 2.25, "b": True, "s": "x", "by": b"\x01\x02\x03",
    "dec": Decimal("123.45"), "date": date(2022, 1, 8), "time": time(1, 2, 3, 4000),
    "ts": datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=UTC), "arr": ["p", "q"], "m": {"k": 5},
    "inner": {"a": 9}, "opt": None, "def": 8, "optts": None,
}


def _without_int_keyed_map(document: dict) -> dict:  # type: ignore[type-arg]
    schema = {**document["schema"], "fields": [f for f in document["schema"]["fields"] if f["field"] != "mi"]}
    return {"schema": schema, "payload": {k: v for k, v in document["payload"].items() if k != "mi"}}


MESSAGE = _without_int_keyed_map(json.loads(WRITTEN))


def test_the_schema_maps_every_connect_type_to_avro() -> None:
    schema, _ = from_connect_envelope(MESSAGE)
    types = {field["name"]: field["type"] for field in schema["fields"]}
    inner = types.pop("inner")
    assert types == AVRO_TYPES
    assert (inner["name"], inner["namespace"], inner["connect.version"], inner["doc"]) == (
        "Inner", "com.example", 2, "inner doc")
    assert (schema["name"], schema["namespace"], schema["connect.version"], schema["doc"]) == (
        "All", "com.example", 3, "all types")
    assert {f["name"]: f.get("default", "-") for f in schema["fields"]}["def"] == 7


def test_both_readers_decode_every_value_and_the_value_fits_its_schema() -> None:
    schema, value = from_connect_envelope(MESSAGE)
    converted, connect = JsonConverter().decode(json.dumps(MESSAGE).encode(), record="t-0@0")
    assert value == converted == VALUES
    assert connect == MESSAGE["schema"]
    assert fits(value, schema)


@pytest.mark.parametrize("name", sorted(JSON_CONVERTER_TYPES - {"array", "map", "struct"}))
def test_each_primitive_alone_is_read(name: str) -> None:
    payload = {"boolean": True, "string": "s", "bytes": "AQ==", "float": 0.5, "double": 0.25}.get(name, 7)
    document = {"schema": {"type": name, "optional": False}, "payload": payload}
    value, _ = JsonConverter().decode(json.dumps(document).encode(), record="t-0@0")
    schema, same = from_connect_envelope(document)
    assert value == same and fits(value, schema)


def test_schema_type_names_are_read_too() -> None:
    """Schema.Type's names (float32/float64) are no JsonConverter output (it refuses them); lakesink
    reads them as before, for hand-written schemas."""
    assert connect_to_avro({"type": "float32", "optional": False}) == "float"
    assert connect_to_avro({"type": "float64", "optional": True}) == ["null", "double"]


def test_a_map_with_keys_other_than_strings_is_refused_naming_it() -> None:
    """JsonConverter writes it as [[key, value], ...]; Avro and Parquet maps take string keys only."""
    document = json.loads(WRITTEN)
    [field] = [f for f in document["schema"]["fields"] if f["field"] == "mi"]
    assert document["payload"]["mi"] == [[1, "one"]]
    with pytest.raises(FormatError, match="maps with non-string keys are not supported"):
        connect_to_avro(field)


@pytest.mark.parametrize(("value", "avro", "connect"), [(1.5, "float", "float"), (0.1, "double", "double"),
                                                        (7, "long", "int64"), (True, "boolean", "boolean")])
def test_header_values_written_back_use_json_converter_names(value: object, avro: str, connect: str) -> None:
    written = json.loads(JsonHeaderConverter().from_connect(value, avro) or b"")
    assert written["schema"]["type"] == connect
    assert written["schema"]["type"] in JSON_CONVERTER_TYPES
    back, _ = JsonHeaderConverter().to_connect(json.dumps(written).encode(), header="h", record="t-0@0")
    assert back == value


def test_simple_header_floats_keep_json_converter_names_and_float_digits() -> None:
    parsed = parse_string("0.1")
    assert parsed.schema == {"type": "float"}
    assert convert_to_string(parsed.value, parsed.schema) == "0.1"
    assert parse_string("1e300").schema == {"type": "double"}
    value, schema = SimpleHeaderConverter().to_connect(b"0.1", header="h", record="t-0@0")
    assert (value, schema) == (pytest.approx(0.1), "float")
    assert SimpleHeaderConverter().from_connect(value, schema) == b"0.1"
