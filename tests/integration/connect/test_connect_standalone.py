"""The Connect-worker fixture itself (tests/support/connect_standalone.py), proved with its test sink: a
connector added over REST reads every partition of a real topic from the start, keys, null values and
unicode byte for byte; a connector the worker cannot run is a clear error naming it. The peers'
connectors (issue 34) are meant to run in this same worker."""

from __future__ import annotations

import base64
import time
from collections import Counter
from pathlib import Path

import pytest

from lakesink.adapters.kafka.embedded_broker import ProducedRecord
from tests.conftest import unique_name
from tests.support.connect_standalone import TEST_SINK, ConnectError, ConnectWorker
from tests.support.kafka_broker import KafkaCluster


def _lines_when_complete(path: Path, count: int, timeout_s: float = 30.0) -> list[str]:
    """The file's lines once it has ``count`` of them (the sink flushes on Connect's offset-flush beat)."""
    deadline = time.monotonic() + timeout_s
    while True:
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


def _b64(data: bytes | None) -> str:
    return "-" if data is None else base64.b64encode(data).decode()


def test_a_connector_added_over_rest_reads_every_partition_from_the_start(
    connect_worker: ConnectWorker, apache_kafka: KafkaCluster, tmp_path: Path
) -> None:
    topic = unique_name("connect-worker")
    apache_kafka.create_topic(topic, 3)
    values = [b"plain", "ünïcødé ✓".encode(), None, b"\x00\xff binary", "🙂".encode(), b""]
    records = [
        ProducedRecord(value, key=None if i == 1 else f"k{i}".encode(), partition=i % 3)
        for i, value in enumerate(values)
    ]
    apache_kafka.produce(topic, records)
    name, out = unique_name("records-to-file"), tmp_path / "sink.txt"
    connect_worker.add_connector(name, {"connector.class": TEST_SINK, "topics": topic, "file": str(out)})
    try:
        lines = _lines_when_complete(out, len(records))
    finally:
        connect_worker.delete_connector(name)
    offsets = Counter[int]()
    expected = []
    for record in records:
        assert record.partition is not None
        expected.append(f"{topic} {record.partition} {offsets[record.partition]} {_b64(record.key)} {_b64(record.value)}")
        offsets[record.partition] += 1
    assert sorted(lines) == sorted(expected)


def test_a_connector_class_the_worker_lacks_is_an_error_naming_it(connect_worker: ConnectWorker) -> None:
    with pytest.raises(ConnectError, match="com.example.NoSuchSink"):
        connect_worker.add_connector(unique_name("missing"), {"connector.class": "com.example.NoSuchSink", "topics": "t"})
