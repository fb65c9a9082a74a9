"""``store.layout=quix``: Quix Streams' FileSink keys, the KCQL rules around them, and explain.

Expected keys are worked out from quixstreams/sinks/community/file/base.py (``FileSink._path``):
``Path(directory) / <topic with [^a-zA-Z0-9 ._/] → _> / str(partition) / f"{start_offset:019d}{ext}"``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakesink.application.explain import ExplainCommand, explain
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.dialects.quix.naming import StoreLayout, quix_topic
from lakesink.domain.errors import ConfigError, KcqlError
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.kcql import parse
from lakesink.domain.layout.naming import KeyLayout
from lakesink.domain.layout.padding import resolve_padding
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.records import Record
from lakesink.domain.statement_plan import plan_sink
from tests.support.clocks import ManualClock

QUIX = "PROPERTIES('store.layout'='quix')"


def quix_layout(
    prefix: str | None = "data",
    format: Format = Format.JSON,
    codec: CompressionCodec = CompressionCodec.UNCOMPRESSED,
) -> KeyLayout:
    return KeyLayout.create(
        prefix=prefix,
        partition_specs=(),
        no_partition=False,
        include_keys=None,
        padding=resolve_padding(),
        key_suffix=None,
        format=format,
        codec=codec,
        store=StoreLayout.QUIX,
    )


def key(layout: KeyLayout, topic: str = "orders", partition: int = 0, first: int = 0, last: int = 9) -> str:
    values = layout.partition_values(Record(topic, partition, first))
    return layout.object_key(
        values,
        topic=topic,
        partition=partition,
        first_offset=first,
        last_offset=last,
        earliest_ts=1,
        latest_ts=2,
    )


def quix_path(directory: str, topic: str, partition: int, start_offset: int, extension: str) -> str:
    """FileSink._path, as Quix's code computes it (S3FileSink uses ``str()`` of it as the key)."""
    return str(Path(directory) / quix_topic(topic) / str(partition) / f"{start_offset:019d}{extension}")


def test_the_file_is_named_by_its_first_offset_padded_to_19_digits() -> None:
    assert key(quix_layout(), first=123, last=456) == "data/orders/0/0000000000000000123.jsonl"
    assert key(quix_layout(), first=2**63 - 1, last=2**63 - 1) == "data/orders/0/9223372036854775807.jsonl"


@pytest.mark.parametrize(
    ("topic", "directory_level"),
    [("my-topic", "my_topic"), ("a.b_c", "a.b_c"), ("Orders-2024-v1", "Orders_2024_v1")],
)
def test_topics_are_sanitised_as_quix_does(topic: str, directory_level: str) -> None:
    assert quix_topic(topic) == directory_level
    assert key(quix_layout(), topic=topic, partition=7, first=5) == quix_path("data", topic, 7, 5, ".jsonl")
    assert (
        key(quix_layout(), topic=topic, partition=7, first=5)
        == f"data/{directory_level}/7/0000000000000000005.jsonl"
    )


@pytest.mark.parametrize("prefix", [None, ""])
def test_an_empty_directory_starts_the_key_at_the_topic(prefix: str | None) -> None:
    assert key(quix_layout(prefix), first=42) == quix_path("", "orders", 0, 42, ".jsonl")
    assert key(quix_layout(prefix), first=42) == "orders/0/0000000000000000042.jsonl"


@pytest.mark.parametrize("prefix", ["data/2024", "data/2024/", "data//2024"])
def test_a_nested_directory_is_normalised_as_path_does(prefix: str) -> None:
    assert key(quix_layout(prefix)) == quix_path(prefix, "orders", 0, 0, ".jsonl")


@pytest.mark.parametrize(
    ("format", "codec", "extension"),
    [
        (Format.JSON, CompressionCodec.UNCOMPRESSED, "jsonl"),
        (Format.JSON, CompressionCodec.GZIP, "jsonl.gz"),
        (Format.PARQUET, CompressionCodec.SNAPPY, "parquet"),
        (Format.PARQUET, CompressionCodec.UNCOMPRESSED, "parquet"),
        (Format.PARQUET, CompressionCodec.ZSTD, "parquet"),
    ],
)
def test_extensions_are_quix_s(format: Format, codec: CompressionCodec, extension: str) -> None:
    layout = quix_layout(format=format, codec=codec)
    assert layout.file_extension == extension
    assert key(layout, first=3).endswith(f"/0000000000000000003.{extension}")


def test_the_partition_values_do_not_reach_the_key_and_illegal_topics_are_refused() -> None:
    layout = quix_layout()
    assert (
        layout.object_key(
            PartitionValues(),
            topic="t",
            partition=1,
            first_offset=0,
            last_offset=0,
            earliest_ts=0,
            latest_ts=0,
        )
        == "data/t/1/0000000000000000000.jsonl"
    )
    with pytest.raises(ConfigError, match="legal Kafka topic"):
        key(layout, topic="a b/../c")
    with pytest.raises(ValueError, match="negative"):
        key(layout, first=-1)


# --- the KCQL property --------------------------------------------------------------------


def test_store_layout_defaults_to_lenses_and_takes_quix_in_any_case() -> None:
    assert parse("INSERT INTO b SELECT * FROM t")[0].options.store_layout is StoreLayout.LENSES
    statement = parse(
        "INSERT INTO b:data SELECT * FROM t STOREAS `PARQUET` PROPERTIES('store.layout'='QUIX')"
    )[0]
    assert statement.options.store_layout is StoreLayout.QUIX


@pytest.mark.parametrize(
    ("kcql", "message"),
    [
        (
            f"INSERT INTO b SELECT * FROM t PARTITIONBY _key STOREAS `JSON` {QUIX}",
            "cannot be used with PARTITIONBY",
        ),
        (
            f"INSERT INTO b SELECT * FROM t NOPARTITION STOREAS `JSON` {QUIX}",
            "cannot be used with NOPARTITION",
        ),
        (f"INSERT INTO b SELECT * FROM t STOREAS `AVRO` {QUIX}", "JSON or PARQUET .* not AVRO"),
        (f"INSERT INTO b SELECT * FROM t STOREAS `CSV` {QUIX}", "JSON or PARQUET .* not CSV"),
        (
            "INSERT INTO b SELECT * FROM t PROPERTIES('store.layout'='confluent')",
            "expected one of lenses, quix",
        ),
        (
            "INSERT INTO b SELECT * FROM t PROPERTIES('store.layout'='quix', 'key.suffix'='-v1')",
            "'key.suffix' does not apply to store.layout=quix",
        ),
        (
            "INSERT INTO b SELECT * FROM t PROPERTIES('padding.length.offset'=3, 'store.layout'='quix')",
            "'padding.length.offset' does not apply",
        ),
        (
            "INSERT INTO b SELECT * FROM t PROPERTIES('store.layout'='quix', 'store.envelope'=true)",
            "'store.envelope' does not apply",
        ),
    ],
)
def test_what_quix_does_not_have_is_refused(kcql: str, message: str) -> None:
    with pytest.raises(KcqlError, match=message):
        parse(kcql)


def test_flush_properties_apply_to_the_quix_layout() -> None:
    options = parse(
        "INSERT INTO b SELECT * FROM t PROPERTIES('store.layout'='quix', 'flush.count'=10, 'flush.interval'=5)"
    )[0].options
    assert (options.flush_count, options.flush_interval_s) == (10, 5)


def _settings(kcql: str, **extra: str) -> ConnectorSettings:
    return ConnectorSettings.from_properties(
        {"name": "quix", "connect.memory.kcql": kcql, "topics": "orders", **extra}, role="sink"
    )


def test_the_plan_lists_only_the_properties_that_apply() -> None:
    plan = plan_sink(_settings(f"INSERT INTO b:data SELECT * FROM orders {QUIX}")).statements[0]
    assert plan.resolved_properties() == {
        "flush.count": 50000,
        "flush.size": 500000000,
        "flush.interval": 3600,
        "store.layout": "quix",
    }


def test_connector_level_padding_is_refused_with_quix() -> None:
    settings = _settings(
        f"INSERT INTO b:data SELECT * FROM orders {QUIX}", **{"connect.memory.padding.strategy": "NoOp"}
    )
    with pytest.raises(ConfigError, match="padding.strategy does not apply to store.layout=quix"):
        plan_sink(settings)


def test_explain_shows_the_quix_key_of_a_record() -> None:
    record = Record("orders-eu", 3, 1234, 1_700_000_000_000, key=b"k", value={"a": 1})
    result = explain(
        ExplainCommand(
            kcql=f"INSERT INTO bkt:data SELECT * FROM `orders-eu` {QUIX}",
            config={"connect.s3.compression.codec": "GZIP"},
            record=record,
        ),
        ManualClock(),
    )
    assert (result.bucket, result.object_key) == ("bkt", "data/orders_eu/3/0000000000000001234.jsonl.gz")
    assert json.loads(json.dumps(result.plan.statements[0].resolved_properties()))["store.layout"] == "quix"
