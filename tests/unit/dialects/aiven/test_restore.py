"""Restoring what an Aiven S3 sink wrote: its config as a plan, its keys parsed, its files read back.

The files are written by the sink's own writers (:func:`open_aiven_writer`), so each case is a
round trip of the sink's rules: what a record became is read back into the bytes Kafka had.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.dialects.aiven.restore_batches import aiven_batches
from lakesink.adapters.dialects.aiven.writers import open_aiven_writer
from lakesink.application.restore import load_plan
from lakesink.domain.dialects.aiven.output import OutputField
from lakesink.domain.dialects.aiven.restore_fields import csv_record, instant_millis
from lakesink.domain.dialects.aiven.restore_layout import AivenSinkLayout
from lakesink.domain.errors import ConfigError, FormatError
from lakesink.domain.records import Record
from lakesink.domain.restore.index import IndexEntry, classify
from lakesink.domain.restore.plan import RestorePlan
from tests.support.aiven_configs import CONSOLE_WITH_AWS, CURL

BASE = {**CONSOLE_WITH_AWS, "topics": "orders", "bootstrap.servers": "broker:9092"}
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"


def _plan(**extra: str) -> RestorePlan:
    return load_plan({**BASE, **extra})


def _parsed(plan: RestorePlan, key: str) -> tuple[str, int | None, int | None] | None:
    entry = classify(plan, plan.roots[0], key, 10)
    return None if entry is None else (entry.topic, entry.partition, entry.offset)


# --- the plan and the keys ----------------------------------------------------------------------


def test_the_seed_default_names_topic_partition_and_start_offset_of_subscribed_topics_only() -> None:
    plan = _plan()
    root = plan.roots[0]
    assert isinstance(root.layout, AivenSinkLayout) and root.list_prefix == "" and root.topic is None
    assert plan.producer["bootstrap.servers"] == "broker:9092"
    assert _parsed(plan, "orders-3-42") == ("orders", 3, 42)
    assert _parsed(plan, "my-orders-1-7") is None  # another topic (longest topic first: my-orders)
    assert _parsed(plan, ".indexes/s3-sink/orders-3-42") is None


def test_a_key_holding_dashes_and_digits_cannot_pass_for_another_topic_and_partition() -> None:
    """The subscription's topic names are the only texts ``{{topic}}`` matches: ``orders-0-eu-1-x``
    is topic orders, partition 0, key ``eu-1-x`` (not topic ``orders-0-eu`` of partition 1)."""
    plan = _plan(**{"file.name.template": "{{topic}}-{{partition}}-{{key}}", "file.max.records": "1"})
    assert _parsed(plan, "orders-0-eu-1-x") == ("orders", 0, None)
    by_prefix = load_plan({**CURL, "topics": "source_topic", "bootstrap.servers": "b:1", "aws.s3.prefix": "{{topic}}-"})
    assert _parsed(by_prefix, "source_topic-source_topic-1-00000000000000000007.gz") == ("source_topic", 1, 7)


def test_topics_regex_selects_topics_and_a_bad_one_is_refused() -> None:
    props = {key: value for key, value in BASE.items() if key != "topics"}
    plan = load_plan({**props, "topics.regex": "ord.*"})
    assert _parsed(plan, "orders.eu-0-5") == ("orders.eu", 0, 5)
    assert _parsed(plan, "events-0-5") is None
    with pytest.raises(ConfigError, match="topics.regex"):
        load_plan({**props, "topics.regex": "(ord"})


def test_a_padded_template_takes_exactly_ten_and_twenty_digits() -> None:
    plan = _plan(
        **{"file.name.template": "{{topic}}/{{partition:padding=true}}/{{start_offset:padding=true}}.csv"}
    )
    assert _parsed(plan, "orders/0000000002/00000000000000000042.csv") == ("orders", 2, 42)
    assert _parsed(plan, "orders/2/42.csv") is None


def test_prefix_mode_keys_are_the_prefix_then_topic_partition_and_a_twenty_digit_offset() -> None:
    plan = load_plan({**CURL, "bootstrap.servers": "b:1"})
    assert plan.roots[0].list_prefix == "example-s3-sink/"
    assert _parsed(plan, "example-s3-sink/source_topic-2-00000000000000000042.gz") == ("source_topic", 2, 42)
    assert _parsed(plan, "example-s3-sink/source_topic-2-42.gz") is None
    dated = load_plan({**CURL, "bootstrap.servers": "b:1", "aws.s3.prefix": "bk/{{utc_date}}/{{topic}}/"})
    assert dated.roots[0].list_prefix == "bk/"
    key = "bk/2026-11-25/another_topic/another_topic-0-00000000000000000007.gz"
    assert _parsed(dated, key) == ("another_topic", 0, 7)


def test_the_sink_config_is_validated_as_the_sink_validates_it_and_producer_keys_are_the_restores() -> None:
    plan = _plan(**{"producer.linger.ms": "5", "tasks.max": "3", "errors.tolerance": "all"})
    assert plan.producer["linger.ms"] == "5" and plan.parallelism == 3 and plan.tolerate_errors
    with pytest.raises(ConfigError, match="format.output.type"):
        _plan(**{"format.output.type": "xml"})


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ({"file.name.template": "{{key}}"}, r"has no \{\{topic\}\}"),
        ({"file.name.template": "{{key}}-{{topic}}"}, r"has no \{\{partition\}\}"),
        ({"format.output.fields": "key,offset"}, "has no value"),
        (
            {"format.output.fields": "value", "format.output.fields.value.encoding": "none"},
            "format.output.fields.value.encoding=none",
        ),
    ],
)
def test_outputs_that_cannot_say_where_records_came_from_or_what_they_were_are_refused(
    extra: dict[str, str], reason: str
) -> None:
    with pytest.raises(ConfigError, match=reason):
        _plan(**extra)


# --- csv and timestamps -------------------------------------------------------------------------


def test_a_csv_line_gives_key_value_timestamp_and_headers_and_empty_cells_are_null() -> None:
    fields = tuple(OutputField(name, "base64") for name in ("value", "key", "offset", "timestamp", "headers"))
    record = csv_record(b"dmFs,a2V5,7,1700000000000,aA==:AP8=;bg==:;", fields, "f line 1")
    assert (record.value, record.key, record.timestamp) == (b"val", b"key", 1_700_000_000_000)
    assert record.headers == [("h", b"\x00\xff"), ("n", b"")]
    empty = csv_record(b",,3,,", fields, "f line 2")
    assert (empty.value, empty.key, empty.timestamp, empty.headers) == (None, None, None, None)


@pytest.mark.parametrize("line", [b"dmFs,a2V5", b"not base64!,a2V5,1,2,", b"dmFs,a2V5,1,soon,"])
def test_a_csv_line_that_is_not_the_fields_is_a_format_error(line: bytes) -> None:
    fields = tuple(OutputField(name, "base64") for name in ("value", "key", "offset", "timestamp", "headers"))
    with pytest.raises(FormatError, match="f line 1"):
        csv_record(line, fields, "f line 1")


def test_json_timestamps_are_iso_instants_with_optional_millis() -> None:
    assert instant_millis("1970-01-01T00:00:01Z", "f") == 1000
    assert instant_millis("2023-11-14T22:13:20.042Z", "f") == 1_700_000_000_042
    assert instant_millis(None, "f") is None
    with pytest.raises(FormatError):
        instant_millis("yesterday", "f")


# --- files written by the sink's writers, read back ---------------------------------------------

RECORDS = [
    Record("orders", 2, 40, 1_700_000_000_000, b"k0", b'{"id":0}', (("trace", b"t0"),)),
    Record("orders", 2, 41, 1_700_000_000_001, None, b"\x00,\n\xff", (("trace", b"t1"), ("n", b"1"))),
    Record("orders", 2, 42, 1_700_000_000_002, b"k2", b"", ()),
]


#: One key and header schema throughout: an avro/parquet file's schema comes from its first record.
TYPED = [dataclasses.replace(record, key=b"k", headers=(("trace", b"t"),)) for record in RECORDS]


def _read_back(tmp_path: Path, records: list[Record] = RECORDS, **extra: str) -> list[tuple[Any, ...]]:
    plan = _plan(**{"format.output.fields": "key,value,offset,timestamp,headers", **extra})
    root = plan.roots[0]
    assert isinstance(root.layout, AivenSinkLayout)
    path = tmp_path / "object"
    writer = open_aiven_writer(root.layout.output, path)
    for record in records:
        writer.write(record)
    writer.close()
    entry = IndexEntry(0, "orders-2-40", path.stat().st_size, "orders", 2, 40, "", "orders")
    return [
        row
        for batch in aiven_batches(root, entry, path)
        for row in zip(
            batch.keys, batch.values, batch.headers, batch.timestamps, batch.partitions, strict=True
        )
    ]


def _expected(records: list[Record] = RECORDS, *, empty_is_null: bool = False) -> list[tuple[Any, ...]]:
    rows = []
    for record in records:
        headers = [(name, value) for name, value in record.headers] or None
        value = None if empty_is_null and record.value == b"" else record.value
        rows.append((record.key, value, headers, record.timestamp, 2))
    return rows


@pytest.mark.parametrize("compression", ["gzip", "snappy", "zstd", "none"])
def test_csv_of_every_field_in_each_compression(tmp_path: Path, compression: str) -> None:
    """csv writes an empty value and a null one alike: the empty value comes back null."""
    headers = {"header.converter": BYTES}
    rows = _read_back(tmp_path, **{"file.compression.type": compression, **headers})
    assert rows == _expected(empty_is_null=True)


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_and_jsonl_give_the_bytes_back_from_their_base64_text(tmp_path: Path, fmt: str) -> None:
    rows = _read_back(tmp_path, **{"format.output.type": fmt, "header.converter": BYTES})
    assert rows == _expected()


@pytest.mark.parametrize("fmt", ["avro", "parquet"])
def test_avro_and_parquet_give_the_bytes_back(tmp_path: Path, fmt: str) -> None:
    rows = _read_back(tmp_path, TYPED, **{"format.output.type": fmt, "header.converter": BYTES})
    assert rows == _expected(TYPED)


def test_json_values_of_a_json_converter_come_back_as_compact_json_text(tmp_path: Path) -> None:
    json_converter = "org.apache.kafka.connect.json.JsonConverter"
    plan = _plan(
        **{"format.output.type": "jsonl", "file.compression.type": "none", "value.converter": json_converter}
    )
    path = tmp_path / "object"
    path.write_bytes(b'{"value":{"id":1,"tags":["a"]}}\n{"value":"text"}\n{"value":null}')
    entry = IndexEntry(0, "orders-0-0", 1, "orders", 0, 0, "", "orders")
    values = [value for batch in aiven_batches(plan.roots[0], entry, path) for value in batch.values]
    assert values == [b'{"id":1,"tags":["a"]}', b'"text"', None]


def test_a_file_that_is_not_the_configured_compression_is_a_format_error(tmp_path: Path) -> None:
    root = _plan().roots[0]
    path = tmp_path / "object"
    path.write_bytes(b"plain text, not gzip")
    entry = IndexEntry(0, "orders-0-0", 1, "orders", 0, 0, "", "orders")
    with pytest.raises(FormatError, match="orders-0-0 is not gzip data"):
        list(aiven_batches(root, entry, path))
