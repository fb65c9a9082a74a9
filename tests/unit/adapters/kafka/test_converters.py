from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import pickle

import pytest

from lakesink.adapters.formats.record_decoding import Converters
from lakesink.adapters.kafka.converters import (
    AVRO,
    BYTE_ARRAY,
    JSON,
    STRING,
    AvroConverter,
    ByteArrayConverter,
    JsonConverter,
    StringConverter,
    create_converter,
)
from lakesink.domain.config.passthrough import parse_converter
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError, RecordError

RECORD = "orders-3@42"


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (BYTE_ARRAY, ByteArrayConverter),
        ("bytes", ByteArrayConverter),
        (STRING, StringConverter),
        ("String", StringConverter),
        (JSON, JsonConverter),
        ("json", JsonConverter),
        (AVRO, AvroConverter),
        ("avro", AvroConverter),
    ],
)
def test_connect_class_names_and_aliases_select_the_converter(name: str, kind: type) -> None:
    settings = {"schema.registry.url": "http://127.0.0.1:1"}

    assert isinstance(create_converter(name, settings, setting="value.converter"), kind)


def test_unknown_converter_is_a_config_error_naming_the_setting() -> None:
    with pytest.raises(ConfigError, match="value.converter"):
        create_converter("com.example.ProtobufConverter", {}, setting="value.converter")


def test_byte_array_converter_passes_bytes_and_null_through() -> None:
    converter = ByteArrayConverter()

    assert converter.decode(b"\x00\xff", record=RECORD) == (b"\x00\xff", None)
    assert converter.decode(None, record=RECORD) == (None, None)


def test_string_converter_decodes_utf8_and_names_the_record_when_it_cannot() -> None:
    converter = StringConverter()
    assert converter.decode("héllo".encode(), record=RECORD) == ("héllo", None)

    with pytest.raises(RecordError, match=f"{RECORD}.*StringConverter"):
        converter.decode(b"\xff\xfe", record=RECORD)


def test_schemaless_json_is_returned_as_python_data() -> None:
    converter = JsonConverter(schemas_enable=False)

    assert converter.decode(b'{"a": [1, 2.5, null]}', record=RECORD) == ({"a": [1, 2.5, None]}, None)


def test_connect_json_envelope_decodes_logical_types_and_returns_the_schema() -> None:
    schema = {
        "type": "struct",
        "fields": [
            {"field": "id", "type": "int64"},
            {"field": "at", "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp"},
            {"field": "day", "type": "int32", "name": "org.apache.kafka.connect.data.Date"},
            {"field": "time", "type": "int32", "name": "org.apache.kafka.connect.data.Time"},
            {
                "field": "price",
                "type": "bytes",
                "name": "org.apache.kafka.connect.data.Decimal",
                "parameters": {"scale": "2"},
            },
            {"field": "blob", "type": "bytes"},
            {"field": "note", "type": "string", "optional": True},
            {"field": "tags", "type": "map", "keys": {"type": "string"}, "values": {"type": "int32"}},
        ],
    }
    payload = {
        "id": 7,
        "at": 1_700_000_000_123,
        "day": 19_000,
        "time": 3_723_004,
        "price": base64.b64encode((-12345).to_bytes(2, "big", signed=True)).decode(),
        "blob": base64.b64encode(b"\x01\x02").decode(),
        "note": None,
        "tags": {"a": 1},
    }
    data = json.dumps({"schema": schema, "payload": payload}).encode()

    value, value_schema = JsonConverter().decode(data, record=RECORD)

    assert value == {
        "id": 7,
        "at": dt.datetime(2023, 11, 14, 22, 13, 20, 123_000, tzinfo=dt.UTC),
        "day": dt.date(2022, 1, 8),
        "time": dt.time(1, 2, 3, 4_000),
        "price": decimal.Decimal("-123.45"),
        "blob": b"\x01\x02",
        "note": None,
        "tags": {"a": 1},
    }
    assert value_schema == schema


def test_connect_json_numeric_decimal_is_quantised_to_its_scale() -> None:
    schema = {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "3"}}
    data = json.dumps({"schema": schema, "payload": 1.5}).encode()

    assert JsonConverter().decode(data, record=RECORD)[0] == decimal.Decimal("1.500")


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}',
        b"not json",
        json.dumps({"schema": {"type": "int32"}, "payload": "x"}).encode(),
        json.dumps({"schema": {"type": "string"}, "payload": None}).encode(),
        json.dumps({"schema": {"type": "struct", "fields": []}, "payload": [1]}).encode(),
    ],
)
def test_json_that_does_not_fit_the_envelope_is_a_record_error_naming_record_and_converter(data: bytes) -> None:
    with pytest.raises(RecordError, match=f"{RECORD}.*JsonConverter"):
        JsonConverter().decode(data, record=RECORD)


def test_avro_converter_rejects_data_without_the_confluent_magic_byte() -> None:
    converter = create_converter("avro", {"schema.registry.url": "http://127.0.0.1:1"}, setting="value.converter")

    with pytest.raises(RecordError, match=f"{RECORD}.*magic byte"):
        converter.decode(b"\x01\x00\x00\x00\x01abc", record=RECORD)


def test_avro_converter_requires_a_registry_url() -> None:
    with pytest.raises(ConfigError, match="schema.registry.url"):
        create_converter("avro", {}, setting="value.converter")


def _converters(props: dict[str, str]) -> Converters:
    """The sink's own path: connector properties → converter settings → converters."""
    return Converters.create(parse_converter(props, "key"), parse_converter(props, "value"))


def test_converters_are_configured_from_connect_style_prefixed_settings() -> None:
    converters = _converters(
        {
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
        }
    )

    assert converters.key.decode(b"k", record=RECORD) == ("k", None)
    assert converters.value.decode(b"[1]", record=RECORD) == ([1], None)


def test_converters_default_to_bytes() -> None:
    converters = _converters({})

    assert isinstance(converters.key, ByteArrayConverter) and isinstance(converters.value, ByteArrayConverter)


def test_invalid_schemas_enable_names_the_full_setting() -> None:
    with pytest.raises(ConfigError, match="value.converter.schemas.enable"):
        _converters({"value.converter": "json", "value.converter.schemas.enable": "yes"})


def test_avro_converter_pickles_without_leaking_its_password_into_repr() -> None:
    converter = create_converter(
        "avro",
        {
            "schema.registry.url": "http://127.0.0.1:1",
            "basic.auth.credentials.source": "USER_INFO",
            "basic.auth.user.info": Secret("u:hunter2"),
        },
        setting="value.converter",
    )

    clone = pickle.loads(pickle.dumps(converter))

    assert isinstance(clone, AvroConverter)
    assert "hunter2" not in repr(clone._registry._settings)
