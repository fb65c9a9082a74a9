"""Helpers of the restore integration tests: local buckets, hand-made objects, reading topics back."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from lakesink.adapters.formats import open_writer
from lakesink.domain.formats import Format
from lakesink.domain.records import Record
from lakesink.domain.schema.envelope_fields import EnvelopeFields

BUCKET = "bkt"
#: (partition, key, value, headers, timestamp) of one message read back.
Message = tuple[int, bytes | None, bytes | None, tuple[tuple[str, bytes | None], ...], int]


@pytest.fixture
def store_root(tmp_path: Path) -> Path:
    """A local-backend root with the bucket ``bkt`` created."""
    (tmp_path / "store" / BUCKET).mkdir(parents=True)
    return tmp_path / "store"


def local_restore_props(root: Path, bootstrap: str, kcql: str, name: str, **extra: str) -> dict[str, str]:
    """A Lenses-style restore config on the local backend."""
    return {"name": name, "connect.local.root": str(root), "connect.local.kcql": kcql, "bootstrap.servers": bootstrap, **extra}


def write_object(
    root: Path, key: str, format: Format, records: Sequence[Record], *, envelope: bool = False
) -> None:
    """Write one object exactly as the sink would (the format writers), under ``bkt/<key>``."""
    path = root / BUCKET / key
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = open_writer(format, path, envelope=EnvelopeFields() if envelope else None)
    writer.write_many(list(records))
    writer.close()


def read_topic(bootstrap: str, topic: str, *, expected: int, timeout_s: float = 30.0) -> list[Message]:
    """Every committed message of ``topic`` (read_committed), by partition then offset."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"restore-check-{topic}-{time.monotonic_ns()}",
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        found: list[tuple[int, int, Message]] = []
        deadline = time.monotonic() + timeout_s
        quiet_until = 0.0
        while time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None or message.error() is not None:
                if len(found) >= expected and time.monotonic() > quiet_until:
                    break
                continue
            headers = tuple(message.headers() or ())
            found.append(
                (message.partition(), message.offset(),
                 (message.partition(), message.key(), message.value(), headers, message.timestamp()[1]))
            )
            quiet_until = time.monotonic() + 1.0
        return [m for _, _, m in sorted(found, key=lambda f: (f[0], f[1]))]
    finally:
        consumer.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    """A moto S3 server on 127.0.0.1 (reachable from Spark executors), stopped after the module."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


def by_partition(messages: Sequence[Message]) -> dict[int, list[Any]]:
    """Messages grouped by partition, in offset order, without the partition field.

    Headers are compared sorted by name: the envelope stores them as a map sorted by name
    (Lenses' layout), so their order on the wire is not kept (docs/restore.md).
    """
    grouped: dict[int, list[Any]] = {}
    for partition, key, value, headers, timestamp in messages:
        grouped.setdefault(partition, []).append((key, value, tuple(sorted(headers)), timestamp))
    return grouped
