"""The demo's orders sink as a crash-test subject: config, a trickle of orders, and the exactly-once audit.

Shared by the kill tests that run ``lakesink sink`` on the demo's Lenses config (orders to Snappy
Parquet on S3, partitioned by country and day, ``flush.count=200``, ``flush.interval=1``): the
whole-group kills of test_kill9.py and the partial failures of test_partial_failures.py.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

from lakesink.adapters.demo.kafka import DemoKafka, kafka_contents
from lakesink.adapters.demo.s3 import MotoS3, S3Bucket
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.application.demo.audit import audit
from lakesink.application.demo.configs import s3_parquet_config, write_config
from lakesink.application.demo.data import order_events
from lakesink.application.demo.output import is_data_key, read_rows

PREFIX = "orders"
MAX_RECORDS = 20_000  # well inside the mock broker's per-partition retention


def orders_config(directory: Path, name: str, topic: str, kafka: EmbeddedKafka, moto: MotoS3, bucket: str,
                  **extra: str) -> Path:
    """The sink's config file in ``directory``; ``bucket`` is created on ``moto``."""
    moto.create_bucket(bucket)
    settings = s3_parquet_config(name, topic=topic, bootstrap_servers=kafka.bootstrap_servers,
                                 s3_settings=moto.connector_settings(), bucket=bucket, prefix=PREFIX,
                                 flush_count=200, flush_interval_s=1)
    return write_config(directory, {**settings, **extra})


def order_chunks(kafka: EmbeddedKafka, topic: str, seed: int, chunk: int) -> Callable[[], int]:
    """Each call produces the next ``chunk`` order events (none after ``MAX_RECORDS``), so every run
    has batches to commit; for :class:`~tests.support.kill_runs.TrickleProducer`, once a second."""
    demo = DemoKafka(kafka)
    events = order_events(MAX_RECORDS, seed=seed, start_ms=1_767_225_600_000)

    def produce() -> int:
        batch = list(itertools.islice(events, chunk))
        return demo.produce(topic, batch) if batch else 0

    return produce


def data_keys(output: S3Bucket) -> set[str]:
    """The keys of the sink's data objects under the orders prefix (index objects left out)."""
    return {item.key for item in output.list(f"{PREFIX}/") if is_data_key(item.key)}


def data_objects(output: S3Bucket) -> int:
    """How many data objects the sink wrote so far (the kill anchors' "a new object appeared")."""
    return len(data_keys(output))


def assert_every_offset_once(kafka: EmbeddedKafka, topic: str, output: S3Bucket, connector: str, produced: int,
                             seed: int) -> None:
    """The bucket holds every record of ``topic`` exactly once, nothing else, and each master lock
    points at its partition's last offset."""
    expected = kafka_contents(kafka.bootstrap_servers, topic)
    report = audit(expected, read_rows(output, PREFIX))
    assert report.expected == produced, (report.expected, produced)
    assert report.ok, f"seed {seed}:\n{report.describe()}"
    stray = [item.key for item in output.list() if not (is_data_key(item.key) or item.key.startswith(".indexes/"))]
    assert stray == []
    last: dict[int, int] = {}
    for _topic, partition, offset in expected:
        last[partition] = max(offset, last.get(partition, -1))
    assert committed_offsets(output, connector, topic) == last


def committed_offsets(output: S3Bucket, connector: str, topic: str) -> dict[int, int]:
    """The master locks' ``committedOffset`` per partition (the Lenses lock file format)."""
    prefix = f".indexes/{connector}/.locks/Topic({topic})/"
    committed = {}
    for item in output.list(prefix):
        partition = int(item.key[len(prefix):].removesuffix(".lock"))
        offset = json.loads(output.read(item.key))["committedOffset"]
        if offset is not None:  # a partition claimed at start that never received a record
            committed[partition] = offset
    return committed
