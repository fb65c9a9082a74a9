"""Confluent S3 sink object keys: layout, extensions and the keys/headers sibling files."""

from __future__ import annotations

import pickle
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.dialects.confluent.naming import (
    ConfluentFormat,
    ConfluentKeyLayout,
    RecordView,
    format_extension,
    view_object_key,
)
from lakesink.domain.dialects.confluent.partitioners import (
    DefaultPartitioner,
    FieldPartitioner,
    HourlyPartitioner,
    partitioner_from_settings,
)
from lakesink.domain.errors import ConfigError
from lakesink.domain.records import Record

AVRO = "io.confluent.connect.s3.format.avro.AvroFormat"
JSON = "io.confluent.connect.s3.format.json.JsonFormat"
BYTES = "io.confluent.connect.s3.format.bytearray.ByteArrayFormat"
PARQUET = "io.confluent.connect.s3.format.parquet.ParquetFormat"


def layout(**settings: str) -> ConfluentKeyLayout:
    return ConfluentKeyLayout.from_settings(settings, partitioner_from_settings(settings))


def key_for(record: Record, extension: str = ".avro", now_ms: int = 0, **settings: str) -> str:
    keys = layout(**settings)
    encoded = keys.partitioner.encode_partition(record, now_ms)
    return keys.object_key(record.topic, record.partition, encoded, record.offset, extension)


def test_the_default_layout() -> None:
    assert (
        key_for(Record("test-topic", 12, 3)) == "topics/test-topic/partition=12/test-topic+12+0000000003.avro"
    )


def test_the_seed_document_s_field_layout() -> None:
    record = Record(
        "events",
        0,
        0,
        value={"region": "us-east", "event_type": "click"},
        value_schema={
            "type": "record",
            "name": "Event",
            "fields": [{"name": "region", "type": "string"}, {"name": "event_type", "type": "string"}],
        },
    )
    settings = {
        "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
        "partition.field.name": "region,event_type",
    }
    assert key_for(record, ".snappy.parquet", **settings) == (
        "topics/events/region=us-east/event_type=click/events+0+0000000000.snappy.parquet"
    )


def test_the_seed_document_s_time_based_layout() -> None:
    settings = {
        "partitioner.class": "io.confluent.connect.storage.partitioner.TimeBasedPartitioner",
        "path.format": "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
        "locale": "en-US",
        "timezone": "UTC",
        "partition.duration.ms": "3600000",
    }
    # Wallclock at 2024-01-15T10:20:00Z (the seed shows .parquet; ParquetFormat's default codec adds .snappy).
    assert key_for(Record("events", 0, 0), ".snappy.parquet", 1705314000000, **settings) == (
        "topics/events/year=2024/month=01/day=15/hour=10/events+0+0000000000.snappy.parquet"
    )


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"topics.dir": ""}, "orders/partition=1/orders+1+0000000042.json"),
        ({"topics.dir": "  "}, "orders/partition=1/orders+1+0000000042.json"),
        ({"topics.dir": "landing/kafka"}, "landing/kafka/orders/partition=1/orders+1+0000000042.json"),
        ({"directory.delim": "#"}, "topics#orders#partition=1#orders+1+0000000042.json"),
        ({"file.delim": "_"}, "topics/orders/partition=1/orders_1_0000000042.json"),
        ({"filename.offset.zero.pad.width": "3"}, "topics/orders/partition=1/orders+1+042.json"),
        ({"filename.offset.zero.pad.width": "1"}, "topics/orders/partition=1/orders+1+42.json"),
        (
            {"filename.offset.zero.pad.width": " 20 "},
            "topics/orders/partition=1/orders+1+00000000000000000042.json",
        ),
    ],
)
def test_layout_settings(settings: dict[str, str], expected: str) -> None:
    assert key_for(Record("orders", 1, 42), ".json", **settings) == expected


def test_the_pad_width_is_a_minimum() -> None:
    keys = layout()
    assert keys.object_key("t", 0, "partition=0", 12345678901234, ".avro") == (
        "topics/t/partition=0/t+0+12345678901234.avro"
    )


def test_hourly_with_a_custom_delimiter_reaches_the_encoded_partition() -> None:
    settings = {"directory.delim": "-", "timezone": "UTC", "locale": "en", "timestamp.extractor": "Record"}
    keys = ConfluentKeyLayout.from_settings(settings, HourlyPartitioner.from_settings(settings))
    encoded = keys.partitioner.encode_partition(Record("t", 0, 5, timestamp=1709190245123), 0)
    assert keys.object_key("t", 0, encoded, 5, ".avro") == (
        "topics-t-year=2024-month=02-day=29-hour=07-t+0+0000000005.avro"
    )


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"filename.offset.zero.pad.width": "0"}, "filename.offset.zero.pad.width"),
        ({"filename.offset.zero.pad.width": "-1"}, "filename.offset.zero.pad.width"),
        ({"filename.offset.zero.pad.width": "ten"}, "filename.offset.zero.pad.width"),
        ({"topics.dir": "a/../b"}, "topics.dir"),
        ({"topics.dir": "./x"}, "topics.dir"),
        ({"topics.dir": "a\x7fb"}, "topics.dir"),
        ({"file.delim": "+\x1b+"}, "file.delim"),
        ({"directory.delim": "/\x00/"}, "directory.delim"),
    ],
)
def test_layout_configuration_errors_name_the_setting(settings: dict[str, str], key: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(key)):
        ConfluentKeyLayout.from_settings(settings, DefaultPartitioner())


@pytest.mark.parametrize("topic", ["", ".", "..", "a/b", "sp ace", "x" * 250])
def test_illegal_topic_names_cannot_name_an_object(topic: str) -> None:
    with pytest.raises(ConfigError, match="legal Kafka topic"):
        layout().object_key(topic, 0, "partition=0", 0, ".avro")


def test_negative_coordinates_are_value_errors() -> None:
    with pytest.raises(ValueError, match="must not be negative"):
        layout().object_key("t", 0, "partition=0", -1, ".avro")


@pytest.mark.parametrize(
    ("format_class", "settings", "extension"),
    [
        (AVRO, {}, ".avro"),
        (AVRO, {"avro.codec": "snappy"}, ".avro"),
        (JSON, {}, ".json"),
        (JSON, {"s3.compression.type": "gzip"}, ".json.gz"),
        (BYTES, {}, ".bin"),
        (BYTES, {"s3.compression.type": "gzip"}, ".bin.gz"),
        (BYTES, {"format.bytearray.extension": " .raw "}, ".raw"),
        (BYTES, {"format.bytearray.extension": ""}, ""),
        (PARQUET, {}, ".snappy.parquet"),
        (PARQUET, {"parquet.codec": "snappy"}, ".snappy.parquet"),
        (PARQUET, {"parquet.codec": "gzip"}, ".gz.parquet"),
        (PARQUET, {"parquet.codec": "zstd"}, ".zstd.parquet"),
        (PARQUET, {"parquet.codec": "lz4"}, ".lz4hadoop.parquet"),
        (PARQUET, {"parquet.codec": "lz4_raw"}, ".lz4raw.parquet"),
        (PARQUET, {"parquet.codec": "brotli"}, ".br.parquet"),
        (PARQUET, {"parquet.codec": "lzo"}, ".lzo.parquet"),
        (PARQUET, {"parquet.codec": "none"}, ".parquet"),
    ],
)
def test_format_extensions(format_class: str, settings: dict[str, str], extension: str) -> None:
    settings = {"format.class": format_class, **settings}
    assert format_extension(ConfluentFormat.from_settings(settings), settings) == extension


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"format.class": AVRO, "s3.compression.type": "gzip"}, "Compression Type gzip"),
        ({"format.class": PARQUET, "s3.compression.type": "gzip"}, "Compression Type gzip"),
        ({"format.class": JSON, "s3.compression.type": "zstd"}, "s3.compression.type"),
        ({"format.class": JSON, "s3.compression.type": "GZIP"}, "s3.compression.type"),
        ({"format.class": PARQUET, "parquet.codec": "SNAPPY"}, "parquet.codec"),
        ({"format.class": PARQUET, "parquet.codec": "uncompressed"}, "parquet.codec"),
        ({"format.class": BYTES, "format.bytearray.extension": "/../x"}, "format.bytearray.extension"),
    ],
)
def test_extension_settings_errors(settings: dict[str, str], key: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(key)):
        format_extension(ConfluentFormat.from_settings(settings), settings)


@pytest.mark.parametrize("name", ["", "AvroFormat", "io.confluent.connect.s3.format.csv.CsvFormat"])
def test_format_classes_must_be_one_of_the_four(name: str) -> None:
    with pytest.raises(ConfigError, match="format.class"):
        ConfluentFormat.from_settings({"format.class": name})


def test_keys_format_class_defaults_to_avro() -> None:
    assert (
        ConfluentFormat.from_settings({}, "keys.format.class", ConfluentFormat.AVRO.value)
        is ConfluentFormat.AVRO
    )


VALUE_KEY = "topics/t/partition=0/t+0+0000000042"


@pytest.mark.parametrize(
    ("value_extension", "view", "view_extension", "expected"),
    [
        (".avro", RecordView.KEYS, ".avro", f"{VALUE_KEY}.keys.avro"),
        (".avro", RecordView.HEADERS, ".avro", f"{VALUE_KEY}.headers.avro"),
        (".avro", RecordView.VALUE, ".avro", f"{VALUE_KEY}.avro"),
        (".json.gz", RecordView.KEYS, ".json.gz", f"{VALUE_KEY}.keys.json.gz"),
        (".snappy.parquet", RecordView.KEYS, ".avro", f"{VALUE_KEY}.keys.avro"),
        (".bin", RecordView.HEADERS, ".snappy.parquet", f"{VALUE_KEY}.headers.snappy.parquet"),
        # A stripped name that already ends with the view extension gets the marker before it.
        ("x.bin", RecordView.KEYS, "42", "topics/t/partition=0/t+0+00000000.keys42"),
    ],
)
def test_keys_and_headers_files_sit_next_to_the_value_file(
    value_extension: str, view: RecordView, view_extension: str, expected: str
) -> None:
    assert view_object_key(VALUE_KEY + value_extension, value_extension, view, view_extension) == expected


def test_a_layout_survives_pickling() -> None:
    keys = ConfluentKeyLayout.from_settings({}, FieldPartitioner(("a",), "/"))
    assert pickle.loads(pickle.dumps(keys)) == keys


_TOPICS = st.text(alphabet="abcXYZ019._-", min_size=1, max_size=30).filter(
    lambda topic: topic not in (".", "..")
)


@given(_TOPICS, st.integers(min_value=0, max_value=10_000), st.integers(min_value=0, max_value=2**63 - 1))
def test_keys_parse_back_into_their_coordinates(topic: str, partition: int, offset: int) -> None:
    key = layout().object_key(topic, partition, f"partition={partition}", offset, ".avro")
    prefix = f"topics/{topic}/partition={partition}/{topic}+{partition}+"
    assert key.startswith(prefix) and key.endswith(".avro")
    digits = key[len(prefix) : -len(".avro")]
    assert len(digits) >= 10 and int(digits) == offset
