from __future__ import annotations

import datetime as dt
import decimal

import pytest

from lakesink.adapters.kafka.converters import create_converter
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import RecordError
from tests.integration.kafka.conftest import REGISTRY_USER_INFO
from tests.support.schema_registry_double import SchemaRegistryDouble, confluent_avro

pytestmark = pytest.mark.integration

RECORD = "payments-0@9"
SCHEMA = {
    "type": "record",
    "name": "Payment",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "memo", "type": ["null", "string"], "default": None},
    ],
}
DATUM = {
    "id": "p1",
    "amount": decimal.Decimal("12.34"),
    "at": dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.UTC),
    "memo": None,
}


def _converter(registry: SchemaRegistryDouble, user_info: str = REGISTRY_USER_INFO):  # type: ignore[no-untyped-def]
    return create_converter(
        "io.confluent.connect.avro.AvroConverter",
        {
            "schema.registry.url": registry.url,
            "basic.auth.credentials.source": "USER_INFO",
            "basic.auth.user.info": Secret(user_info),
        },
        setting="value.converter",
    )


def test_confluent_wire_format_is_decoded_with_the_registered_schema(schema_registry: SchemaRegistryDouble) -> None:
    schema_id = schema_registry.register(SCHEMA)

    value, schema = _converter(schema_registry).decode(confluent_avro(schema_id, SCHEMA, DATUM), record=RECORD)

    assert value == DATUM
    assert schema == SCHEMA


def test_each_schema_id_is_fetched_once(schema_registry: SchemaRegistryDouble) -> None:
    schema_id = schema_registry.register(SCHEMA)
    converter = _converter(schema_registry)

    for _ in range(5):
        converter.decode(confluent_avro(schema_id, SCHEMA, DATUM), record=RECORD)

    assert schema_registry.requests == [f"/schemas/ids/{schema_id}"]


def test_unknown_schema_id_is_a_record_error_naming_the_record(schema_registry: SchemaRegistryDouble) -> None:
    with pytest.raises(RecordError, match=f"{RECORD}.*schema id 99"):
        _converter(schema_registry).decode(confluent_avro(99, SCHEMA, DATUM), record=RECORD)


def test_wrong_credentials_fail_without_revealing_them(schema_registry: SchemaRegistryDouble) -> None:
    schema_id = schema_registry.register(SCHEMA)

    with pytest.raises(RecordError, match="HTTP 401") as caught:
        _converter(schema_registry, "reader:wrong-pass").decode(
            confluent_avro(schema_id, SCHEMA, DATUM), record=RECORD
        )

    assert "wrong-pass" not in str(caught.value)


def test_truncated_avro_body_is_a_record_error(schema_registry: SchemaRegistryDouble) -> None:
    schema_id = schema_registry.register(SCHEMA)
    data = confluent_avro(schema_id, SCHEMA, DATUM)

    with pytest.raises(RecordError, match=f"{RECORD}.*AvroConverter"):
        _converter(schema_registry).decode(data[:9], record=RECORD)
