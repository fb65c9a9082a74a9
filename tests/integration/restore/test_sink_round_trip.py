"""sink → restore: the restored topic equals the original, byte for byte where the format allows."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.metrics.restore_prometheus import PrometheusRestoreMetrics
from lakesink.application.bootstrap.restore import restore
from lakesink.application.bootstrap.sink import sink_run
from lakesink.application.restore import load_plan
from lakesink.domain.config.connector import ConnectorSettings
from tests.integration.restore.conftest import BUCKET, by_partition, local_restore_props, read_topic

pytestmark = pytest.mark.integration


def _originals(count: int) -> list[ProducedRecord]:
    """Byte keys and values (one not valid UTF-8), a null key, a tombstone-free set, byte and null headers."""
    records = []
    for i in range(count):
        key = None if i % 7 == 3 else f"key-{i}".encode()
        headers = (("trace", bytes([0, 255, i % 256])), ("empty", None)) if i % 2 else (("n", str(i).encode()),)
        records.append(
            ProducedRecord(
                value=b'{"id":%d,"name":"r\xc3\xa9cord"}' % i, key=key, headers=headers,
                timestamp_ms=1_700_000_000_000 + i, partition=i % 3,
            )
        )
    return records


def _sink(spark, kafka: EmbeddedKafka, root: Path, source: str, fmt: str, envelope: bool, layout: str = "struct") -> None:  # type: ignore[no-untyped-def]
    layout_property = f", 'store.envelope.headers.layout'='{layout}'" if envelope else ""
    props = {
        "name": f"sink-{source}",
        "connect.local.root": str(root),
        "bootstrap.servers": kafka.bootstrap_servers,
        "topics": source,
        "connect.local.kcql": (
            f"INSERT INTO {BUCKET}:backup SELECT * FROM {source} STOREAS `{fmt}` "
            f"PROPERTIES('store.envelope'={str(envelope).lower()}, 'flush.count'=4{layout_property})"
        ),
    }
    sink_run(ConnectorSettings.from_properties(props), spark, once=True, checkpoint_dir=str(root.parent / f"ck-{source}")).run()


def _source_messages(kafka: EmbeddedKafka, topic: str, count: int):  # type: ignore[no-untyped-def]
    return read_topic(kafka.bootstrap_servers, topic, expected=count)


@pytest.mark.parametrize("fmt", ["JSON", "AVRO", "PARQUET"])
def test_envelope_restores_key_value_headers_timestamp_and_partition_byte_exact(spark, kafka, store_root, fmt) -> None:  # type: ignore[no-untyped-def]
    """The headers' list layout keeps them as Kafka had them (the default struct layout: below)."""
    source, target = f"src-{uuid.uuid4().hex[:8]}", f"dst-{uuid.uuid4().hex[:8]}"
    kafka.produce(source, _originals(21))
    _sink(spark, kafka, store_root, source, fmt, envelope=True, layout="list")
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:backup STOREAS `{fmt}` PROPERTIES('store.envelope'=true)"
    metrics = PrometheusRestoreMetrics(f"r-{target}")
    plan = load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}"))
    summary = restore(plan, spark, once=True, metrics=metrics)
    assert summary.records == 21
    label = {"connector": f"r-{target}"}
    assert metrics.registry.get_sample_value("lakesink_restore_records_total", label) == 21
    assert metrics.registry.get_sample_value("lakesink_restore_objects_total", label) == summary.objects > 0
    original = by_partition(_source_messages(kafka, source, 21))
    restored = by_partition(read_topic(kafka.bootstrap_servers, target, expected=21))
    assert restored == original
    # one transaction per origin partition: its few objects are well under a transaction's limit
    assert metrics.registry.get_sample_value("lakesink_restore_transactions_total", label) == len(restored)


def test_the_default_struct_layout_restores_typed_headers_as_their_text_in_one_file_per_flush(spark, kafka, store_root) -> None:  # type: ignore[no-untyped-def]
    """SimpleHeaderConverter on both sides: numbers come back as their text, binary as the bytes; a
    null header is an absent field in Parquet, so it does not come back (docs/restore.md)."""
    source, target = f"src-{uuid.uuid4().hex[:8]}", f"dst-{uuid.uuid4().hex[:8]}"
    kafka.produce(source, _originals(12))
    _sink(spark, kafka, store_root, source, "PARQUET", envelope=True)
    written = list((store_root / BUCKET).rglob("*.parquet"))
    assert len(written) == 3  # 4 records a file, 3 partitions: the changing header names roll nothing
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:backup STOREAS `PARQUET` PROPERTIES('store.envelope'=true)"
    restore(load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}")), spark, once=True)
    original = by_partition(_source_messages(kafka, source, 12))
    without_nulls = {
        p: [(k, v, tuple(h for h in headers if h[1] is not None), ts) for k, v, headers, ts in ms] for p, ms in original.items()
    }
    assert by_partition(read_topic(kafka.bootstrap_servers, target, expected=12)) == without_nulls


@pytest.mark.parametrize("fmt", ["JSON", "TEXT"])
def test_without_envelope_values_come_back_in_their_partitions_and_order(spark, kafka, store_root, fmt) -> None:  # type: ignore[no-untyped-def]
    source, target = f"src-{uuid.uuid4().hex[:8]}", f"dst-{uuid.uuid4().hex[:8]}"
    kafka.produce(source, _originals(12))
    _sink(spark, kafka, store_root, source, fmt, envelope=False)
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:backup STOREAS `{fmt}`"
    restore(load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}")), spark, once=True)
    original = {p: [m[1] for m in ms] for p, ms in by_partition(_source_messages(kafka, source, 12)).items()}
    restored = by_partition(read_topic(kafka.bootstrap_servers, target, expected=12))
    assert {p: [m[1] for m in ms] for p, ms in restored.items()} == original
    assert all(m[0] is None and m[2] == () for ms in restored.values() for m in ms)


def test_a_second_run_sends_nothing_again(spark, kafka, store_root) -> None:  # type: ignore[no-untyped-def]
    source, target = f"src-{uuid.uuid4().hex[:8]}", f"dst-{uuid.uuid4().hex[:8]}"
    kafka.produce(source, _originals(9))
    _sink(spark, kafka, store_root, source, "JSON", envelope=True)
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:backup PROPERTIES('store.envelope'=true)"
    plan = load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}"))
    steps: list[str] = []
    assert restore(plan, spark, once=True, progress=steps.append).records == 9
    assert restore(plan, spark, once=True).records == 0
    found, *running, restored = steps  # the poll's steps, as `lakesink restore` shows them on stderr
    assert re.fullmatch(r"restore poll 1: (\d+) topic-partitions to restore, \d+ objects \(.+\) of \d+ listed", found)
    assert all(re.fullmatch(r"restore poll 1: restoring, \d+/\d+ tasks done, \d+ s", line) for line in running), steps
    assert re.match(r"restore poll 1: restored (\d+)/\1 topic-partitions, 9 records from \d+ objects", restored)
    assert len(read_topic(kafka.bootstrap_servers, target, expected=9)) == 9


@pytest.mark.parametrize("fmt", ["JSON", "PARQUET"])
def test_quix_objects_restore_key_value_timestamp_and_partition(spark, kafka, store_root, fmt) -> None:  # type: ignore[no-untyped-def]
    """``store.layout=quix`` both ways: Quix rows carry no headers, and values come back as compact JSON."""
    source, target = f"src-{uuid.uuid4().hex[:8]}", f"dst-{uuid.uuid4().hex[:8]}"
    originals = [
        ProducedRecord(
            value=b'{"id":%d,"name":"r%d"}' % (i, i), key=f"key-{i}".encode(), timestamp_ms=1_700_000_000_000 + i,
            partition=i % 3,
        )
        for i in range(12)
    ]
    kafka.produce(source, originals)
    props = {
        "name": f"sink-{source}",
        "connect.local.root": str(store_root),
        "bootstrap.servers": kafka.bootstrap_servers,
        "topics": source,
        "connect.local.kcql": (
            f"INSERT INTO {BUCKET}:quix SELECT * FROM {source} STOREAS `{fmt}` "
            "PROPERTIES('store.layout'='quix', 'flush.count'=3)"
        ),
    }
    sink_run(ConnectorSettings.from_properties(props), spark, once=True, checkpoint_dir=str(store_root.parent / f"ck-{source}")).run()
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:quix STOREAS `{fmt}` PROPERTIES('store.layout'='quix')"
    summary = restore(load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}")), spark, once=True)
    assert summary.records == 12
    restored = by_partition(read_topic(kafka.bootstrap_servers, target, expected=12))
    expected: dict[int, list[object]] = {}
    for record in originals:
        expected.setdefault(record.partition, []).append((record.key, record.value, (), record.timestamp_ms))
    assert restored == expected


@pytest.mark.parametrize("fmt", ["JSON", "PARQUET"])
def test_one_statement_restores_a_backup_of_many_topics_to_the_topics_in_the_envelopes(spark, kafka, store_root, fmt) -> None:  # type: ignore[no-untyped-def]
    """``source.topic.from.envelope``: each record goes back to its ``metadata.topic``. The topics
    still hold their originals here, so the restored copies follow them, partition by partition."""
    sources = [f"src-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    for count, source in zip((9, 6), sources, strict=True):
        kafka.produce(source, _originals(count))
        _sink(spark, kafka, store_root, source, fmt, envelope=True, layout="list")
    fallback = f"dst-{uuid.uuid4().hex[:8]}"
    kcql = (
        f"INSERT INTO {fallback} SELECT * FROM {BUCKET}:backup STOREAS `{fmt}` "
        "PROPERTIES('store.envelope'=true, 'source.topic.from.envelope'=true)"
    )
    summary = restore(load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{fallback}")), spark, once=True)
    assert summary.records == 15
    for count, source in zip((9, 6), sources, strict=True):
        both = by_partition(read_topic(kafka.bootstrap_servers, source, expected=2 * count))
        for partition, messages in both.items():
            half = len(messages) // 2
            assert messages[half:] == messages[:half], f"{source} partition {partition}"
    assert read_topic(kafka.bootstrap_servers, fallback, expected=0, timeout_s=3) == []
