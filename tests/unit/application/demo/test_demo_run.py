"""The demo's use case on handed-in ports: what it asks of them, what it prints, how it exits.

The fakes stand in for the broker, the object server, the buckets and the sink; the real ones
run in tests/integration/demo. A "sink run" here stores exactly the rows the test planted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lakesink.adapters.demo.kafka import KafkaRecord
from lakesink.adapters.demo.readback import ListedObject, StoredRow
from lakesink.application.demo.data import OrderMessage
from lakesink.application.demo.ports import DemoPorts
from lakesink.application.demo.run import DemoOptions, run_demo


@dataclass
class FakeBroker:
    name: str = "Kafka (fake)"
    bootstrap_servers: str = "127.0.0.1:1"
    topics: dict[str, list[OrderMessage]] = field(default_factory=dict)

    def produce(self, topic: str, messages: Iterable[OrderMessage]) -> int:
        self.topics.setdefault(topic, []).extend(messages)
        return len(self.topics[topic])

    def end_data_set(self, topic: str) -> dict[int, int]:
        return {0: len(self.topics[topic])}

    def contents(self, topic: str) -> dict[tuple[str, int, int], KafkaRecord]:
        return {(topic, 0, offset): _as_kafka_record(message) for offset, message in enumerate(self.topics[topic])}


def _as_kafka_record(message: OrderMessage) -> KafkaRecord:
    headers = {name: value.decode() for name, value in message.headers}
    return KafkaRecord(message.key.decode(), json.loads(message.value), headers, message.timestamp_ms)


@dataclass
class FakeBucket:
    """Holds one data object whose rows are whatever the test planted."""

    name: str
    stored: list[StoredRow] = field(default_factory=list)

    def list(self, prefix: str = "") -> list[ListedObject]:
        objects = [ListedObject(".indexes/demo/.locks/Topic(orders)/0.lock", 10)]
        if self.stored:
            objects.append(ListedObject("orders/part-0.json", 100 * len(self.stored)))
        return [item for item in objects if item.key.startswith(prefix)]

    def rows(self, key: str) -> Iterator[StoredRow]:
        assert key == "orders/part-0.json", f"the demo read a non-data object {key}"
        return iter(self.stored)


@dataclass
class FakeS3:
    name: str = "S3 (fake)"
    url: str = "http://127.0.0.1:2"
    buckets: dict[str, FakeBucket] = field(default_factory=dict)

    def connector_settings(self) -> dict[str, str]:
        return {"connect.s3.custom.endpoint": self.url}

    def create_bucket(self, bucket: str) -> None:
        self.buckets[bucket] = FakeBucket(bucket)

    def bucket(self, bucket: str) -> FakeBucket:
        return self.buckets[bucket]


@dataclass
class FakeTable:
    """A table whose metadata references the one object the fake sink wrote to the S3 bucket."""

    bucket: FakeBucket

    def data_keys(self) -> list[str]:
        return ["orders/part-0.json"] if self.bucket.stored else []

    def row_count(self) -> int:
        return len(self.bucket.stored)


@dataclass
class FakeServices:
    kafka: FakeBroker = field(default_factory=FakeBroker)
    s3: FakeS3 = field(default_factory=FakeS3)
    running: bool = False


class World:
    """The ports plus what the demo did with them; ``tamper`` edits the rows a sink run stores."""

    def __init__(self, tamper: Callable[[list[StoredRow]], list[StoredRow]] | None = None) -> None:
        self.services = FakeServices()
        self.local = FakeBucket("local")
        self.configs: list[Path] = []
        self.tamper = tamper or (lambda rows: rows)

    def ports(self) -> DemoPorts:
        @contextmanager
        def services() -> Iterator[FakeServices]:
            self.services.running = True
            try:
                yield self.services
            finally:
                self.services.running = False

        @contextmanager
        def once_sink(master: str) -> Iterator[World]:
            assert master == "local[1]"
            yield self

        return DemoPorts(services=services, local_bucket=lambda root, name: self.local, once_sink=once_sink,
                         iceberg_table=lambda catalog, name, server: FakeTable(server.bucket("lakesink-demo")),
                         delta_table=lambda uri, server: FakeTable(server.bucket("lakesink-demo")))

    def run(self, config: Path, checkpoint: Path) -> None:
        """The fake sink: store every Kafka record once in the bucket this config names."""
        self.configs.append(config)
        settings = json.loads(config.read_text())["config"]
        target = self.services.s3.buckets["lakesink-demo"] if "connect.s3.kcql" in settings else self.local
        truth = self.services.kafka.contents("orders")
        rows = [StoredRow(t, p, o, r.timestamp, r.key, r.value, r.headers, "orders/part-0.json")
                for (t, p, o), r in truth.items()]
        target.stored = self.tamper(rows)


def test_demo_produces_runs_both_configs_and_exits_zero_when_every_record_is_stored_once() -> None:
    world = World()
    lines: list[str] = []

    code = run_demo(DemoOptions(records=50, master="local[1]"), world.ports(), out=lines.append)

    output = "\n".join(lines)
    assert code == 0, output
    assert lines[0] == "Kafka (fake) on 127.0.0.1:1, S3 (fake) on http://127.0.0.1:2"
    assert [path.name for path in world.configs] == [
        "demo-s3-parquet.json", "demo-local-json.json", "demo-s3-iceberg.json", "demo-s3-delta.json"]
    assert len(world.services.kafka.topics["orders"]) == 50
    assert output.split("== Summary", 1)[1].count("exactly once") == 4
    assert output.count("50/50 records, 1 files") == 4
    assert not world.services.running, "the services were left running"


def test_demo_exits_one_and_names_the_record_stored_twice() -> None:
    world = World(tamper=lambda rows: [*rows, rows[3]])
    lines: list[str] = []

    code = run_demo(DemoOptions(records=20, master="local[1]"), world.ports(), out=lines.append)

    output = "\n".join(lines)
    assert code == 1
    assert output.count("FAILED") == 5  # the four targets, then the final verdict
    assert "1 records stored more than once, e.g. orders-0@3" in output


def test_demo_stops_the_services_when_the_sink_fails() -> None:
    def broken(rows: list[StoredRow]) -> list[StoredRow]:
        raise KeyboardInterrupt

    world = World(tamper=broken)

    with pytest.raises(KeyboardInterrupt):
        run_demo(DemoOptions(records=5, master="local[1]"), world.ports(), out=lambda line: None)

    assert not world.services.running
