"""Converter classes and their settings are checked when a config is loaded, in every dialect,
so ``sink``, ``restore`` and ``kcql explain`` refuse them before Spark starts."""

from __future__ import annotations

import pytest

from lakesink.application.sink_settings import sink_settings
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.providers import ResolvedConfig
from lakesink.domain.errors import ConfigError

LENSES = {"name": "s", "topics": "orders", "connect.s3.kcql": "INSERT INTO b:p SELECT * FROM orders"}
CONFLUENT = {
    "name": "c", "connector.class": "io.confluent.connect.s3.S3SinkConnector", "topics": "orders",
    "s3.bucket.name": "b", "s3.region": "us-east-1", "flush.size": "10",
    "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
}
AIVEN = {
    "name": "a", "connector.class": "io.aiven.kafka.connect.s3.AivenKafkaConnectS3SinkConnector", "topics": "orders",
    "aws.s3.bucket.name": "bucket", "aws.s3.region": "us-east-1",
}
PROTOBUF = "io.confluent.connect.protobuf.ProtobufConverter"


@pytest.mark.parametrize("dialect", [LENSES, CONFLUENT, AIVEN], ids=["lenses", "confluent", "aiven"])
@pytest.mark.parametrize("which", ["key", "value"])
def test_a_converter_lakesink_lacks_is_refused_at_load_naming_the_key_and_the_supported_ones(
    dialect: dict[str, str], which: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        sink_settings(ResolvedConfig({**dialect, f"{which}.converter": PROTOBUF}, frozenset()))
    message = str(caught.value)
    assert message.startswith(f"Unsupported {which}.converter '{PROTOBUF}': expected one of ")
    assert "org.apache.kafka.connect.json.JsonConverter" in message and "io.confluent.connect.avro.AvroConverter" in message
    assert "\n" not in message


def test_a_header_converter_must_be_one_lakesink_has_and_avro_is_none() -> None:
    with pytest.raises(ConfigError, match="Unsupported header.converter 'avro': expected one of .*SimpleHeaderConverter"):
        ConnectorSettings.from_properties({**LENSES, "header.converter": "avro"})


@pytest.mark.parametrize(
    ("settings", "fault"),
    [
        ({"value.converter": "json", "value.converter.schemas.enable": "maybe"},
         "Invalid value 'maybe' for value.converter.schemas.enable: expected true or false."),
        ({"key.converter": "string", "key.converter.converter.encoding": "klingon"},
         "Invalid value 'klingon' for key.converter.converter.encoding: not a character encoding"),
        ({"value.converter": "io.confluent.connect.avro.AvroConverter"},
         "Missing required setting value.converter.schema.registry.url for the Avro converter."),
        ({"header.converter": "json", "header.converter.schemas.enable": "1"},
         "Invalid value '1' for header.converter.schemas.enable"),
    ],
)
def test_a_converter_setting_the_converter_cannot_apply_is_refused_at_load(settings: dict[str, str], fault: str) -> None:
    with pytest.raises(ConfigError) as caught:
        ConnectorSettings.from_properties({**LENSES, **settings})
    assert str(caught.value).startswith(fault)


def test_supported_converters_and_aliases_load() -> None:
    loaded = ConnectorSettings.from_properties({
        **LENSES, "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "key.converter.converter.encoding": "ISO-8859-1", "value.converter": "AVRO",
        "value.converter.schema.registry.url": "http://registry:8081", "header.converter": "bytes",
    })
    assert loaded.value_converter.class_name == "AVRO"


def test_a_restore_does_not_check_key_and_value_converters_it_never_applies() -> None:
    source = {"name": "r", "connect.s3.kcql": "INSERT INTO t SELECT * FROM b:p STOREAS `AVRO`", "value.converter": PROTOBUF}
    assert ConnectorSettings.from_properties(source, role="source").value_converter.class_name == PROTOBUF
    with pytest.raises(ConfigError, match="Unsupported header.converter"):
        ConnectorSettings.from_properties({**source, "header.converter": PROTOBUF}, role="source")
