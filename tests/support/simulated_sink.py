"""The sink use case without Spark: a fake Kafka topic whose ranges the real executor task writes.

:func:`sink` builds a :class:`~lakesink.application.sink_run.SinkRun` on a simulated compute: the
batches of the topic, cut as a :class:`Cutting` says, each range written in this process by
:func:`run_task` (one call per range, as one Spark task per range) on any store. The crash
simulation (tests/unit/application/test_simulation.py) and the scale bench (bench/scale.py) drive it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from lakesink.adapters.clock import WallClock
from lakesink.adapters.kafka.partition_reader import arrow_schema
from lakesink.adapters.spark.sink_task import run_task
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.spark.task_results import result_of
from lakesink.application.sink_metrics import NO_METRICS
from lakesink.application.sink_run import SinkRun
from lakesink.application.sink_tables import SinkTables
from lakesink.domain.commit.chunks import chunk_bounds
from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.dialects.confluent.connector import connector_settings
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import ObjectStore, SinkStart
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import SinkPlan, plan_sink
from lakesink.domain.subscription import TopicSelection
from tests.support.store_table import StoreTable

BUCKET = "lake"
TOPIC = "orders"
NAME = "simulated"
Topic = Mapping[int, Sequence[tuple[int, bool]]]
"""Per partition (every partition of the topic, empty or not), its records: (offset, is a tombstone),
offsets increasing with gaps."""


def _plan(flush_count: int, *, single_writer: bool = False, table: bool = False,
          interval_s: int | None = None) -> tuple[ConnectorSettings, SinkPlan]:
    interval = "" if interval_s is None else f", 'flush.interval'={interval_s}"
    storage = "`PARQUET` PROPERTIES('table.format'='ICEBERG', 'table.name'='simulated.table', " if table else "`JSON` PROPERTIES("
    sink = ConnectorSettings.from_properties(
        {
            "name": NAME,
            "connect.memory.exactly.once.single.writer": str(single_writer).lower(),
            "connect.memory.kcql": f"INSERT INTO {BUCKET}:out SELECT * FROM {TOPIC} STOREAS {storage}"
            f"'flush.count'={flush_count}{interval})",
            "connect.memory.skip.null.values": "true",
            "topics": TOPIC,
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
        },
        role="sink",
    )
    return sink, plan_sink(sink)


def _confluent_plan(flush_size: int) -> tuple[ConnectorSettings, SinkPlan]:
    """The same topic under a Confluent S3 sink config: cycles of ``flush.size`` records, the rest held back."""
    config = ConfluentSinkConfig.from_properties(
        {
            "name": NAME,
            "connector.class": "io.confluent.connect.s3.S3SinkConnector",
            "storage.class": "io.confluent.connect.s3.storage.S3Storage",
            "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
            "s3.bucket.name": BUCKET,
            "topics.dir": "out",
            "flush.size": str(flush_size),
            "behavior.on.null.values": "ignore",
            "topics": TOPIC,
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
        }
    )
    sink = connector_settings(config)
    return sink, plan_sink(sink)


def record_batch(partition: int, records: Sequence[tuple[int, bool]], *, changed: bool = False) -> pa.RecordBatch:
    """The rows of ``records``; ``changed``: with an extra field, as a transformation that is not
    deterministic makes them (other bytes from the same offsets)."""
    rows = len(records)
    extra = {"x": "changed"} if changed else {}
    return pa.RecordBatch.from_arrays(
        [
            pa.array([b"k"] * rows, pa.binary()),
            pa.array([None if dead else json.dumps({"p": partition, "o": o, **extra}).encode() for o, dead in records],
                     pa.binary()),
            pa.array([TOPIC] * rows, pa.string()),
            pa.array([partition] * rows, pa.int32()),
            pa.array([o for o, _ in records], pa.int64()),
            pa.array([1_700_000_000_000_000 + o for o, _ in records], pa.timestamp("us", tz="UTC")),
            pa.array([0] * rows, pa.int32()),
            pa.array([[]] * rows, arrow_schema().field("headers").type),
        ],
        schema=arrow_schema(),
    )


@dataclass(frozen=True)
class Cutting:
    """How a run cuts its work: the batch ends it admits (offsets, per batch) and the chunk size."""

    batch_ends: tuple[int, ...]
    split: int


class SimulatedCompute:
    """The compute port of :class:`SinkRun` without Spark: batches cut as ``cutting`` says over the
    fake ``topic``, each range written by the executor task on the store."""

    def __init__(self, topic: Topic, cutting: Cutting, store: ObjectStore, owner: str, flush_count: int,
                 staging: str, *, batches: int | None = None, confluent: bool = False,
                 single_writer: bool = False, frame: bool = False, changed: bool = False, table: bool = False,
                 interval_s: int | None = None) -> None:
        self.topic, self.cutting, self.store, self.owner, self.staging = topic, cutting, store, owner, staging
        self.frame, self.changed = frame, changed
        self.settings, self.plan = (
            _confluent_plan(flush_count) if confluent
            else _plan(flush_count, single_writer=single_writer, table=table, interval_s=interval_s)
        )
        self.batches = batches

    def run(self, start: SinkStart, on_batch: Callable[[int, Sequence[OffsetRange]], None],
            timeout_s: float | None = None) -> None:
        """The batches of a ``--once`` run, until the topic is drained (or ``batches`` ran).

        ``frame``: the batches of a user's DataFrame (the library) whose source lost its checkpoint:
        from the topic's start, cut as the source likes, whatever the index says.
        """
        if self.frame:
            start = SinkStart()
        partitions = sorted(self.topic)
        position = {p: start.offsets.get((TOPIC, p), 0) for p in partitions}
        forced = {p: end for (_, p), end in start.first_end.items()}
        pinned = {p: chunks for (_, p), chunks in start.first_chunks.items()}
        high = _high(self.topic)
        ends = iter(self.cutting.batch_ends)
        number = 0
        while position != high and (self.batches is None or number < self.batches):
            end = next(ends, max(high.values()))
            batch_end = {p: forced.pop(p, max(position[p], min(end, high[p]))) for p in partitions}
            on_batch(number, self.ranges(position, batch_end, pinned))
            position, number = batch_end, number + 1

    def ranges(self, start: Mapping[int, int], end: Mapping[int, int],
               pinned: Mapping[int, tuple[tuple[int, int], ...]] | None = None) -> list[OffsetRange]:
        """The batch's ranges: each partition's offsets cut into chunks (pinned ones kept whole); a
        DataFrame's: per partition, its first record's offset to its last's (the library's aggregate)."""
        if self.frame:
            present = {p: [o for o, _ in self.topic[p] if start[p] <= o < end[p]] for p in sorted(self.topic)}
            return [OffsetRange(TOPIC, p, offsets[0], offsets[-1] + 1) for p, offsets in present.items() if offsets]
        return [
            OffsetRange(TOPIC, p, low, high)
            for p in sorted(self.topic)
            for low, high in chunk_bounds(start[p], end[p], self.cutting.split, (pinned or {}).get(p, ()))
        ]

    def write(self, ranges: Sequence[OffsetRange], floors: Mapping[TopicPartition, int],
              granular: Mapping[TopicPartition, Mapping[str, int]], clock_ms: int) -> list[RangeResult]:
        spec = SinkTaskSpec.for_settings(self.settings, plan=self.plan, store=self.store, run_id=self.owner,
                                         staging_root=self.staging, floors=floors, granular=granular, clock_ms=clock_ms)
        results = []
        for chunk in ranges:  # one Spark task per range; the source hands it no batch when it holds no record
            records = [r for r in self.topic[chunk.partition] if chunk.start <= r[0] < chunk.end]
            batches = [record_batch(chunk.partition, records, changed=self.changed)] if records else []
            results += [result_of(row) for out in run_task(spec, iter(batches)) for row in out.to_pylist()]
        return results


class FakeTopics:
    """The topic metadata port: the partitions, and their high watermarks for the lag."""

    def __init__(self, topic: Topic) -> None:
        self.topic = topic

    def partitions(self, selection: TopicSelection) -> list[TopicPartition]:
        return [(TOPIC, p) for p in sorted(self.topic) if selection.matches(TOPIC)]

    def earliest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return dict.fromkeys(keys, 0)

    def latest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        high = _high(self.topic)
        return {(t, p): high[p] for t, p in keys}

    def close(self) -> None:
        pass


def _high(topic: Topic) -> dict[int, int]:
    return {p: (records[-1][0] + 1 if records else 0) for p, records in topic.items()}


def _no_group() -> object:
    raise AssertionError("an exactly-once sink never opens a consumer group")


def sink(topic: Topic, cutting: Cutting, store: ObjectStore, owner: str, flush_count: int, staging: str,
         *, batches: int | None = None, confluent: bool = False, single_writer: bool = False,
         frame: bool = False, changed: bool = False, metrics: Any = NO_METRICS, table: bool = False,
         lag_group: Any = None, interval_s: int | None = None) -> SinkRun:
    """One sink process: the application's use case on the simulated compute and fake topics (none for
    a DataFrame's sink, which opens each partition when a batch first holds it); ``table``: its
    statement commits PARQUET objects to a table kept in the same store (tests/support/store_table.py);
    ``interval_s``: the statement's flush.interval."""
    compute = SimulatedCompute(topic, cutting, store, owner, flush_count, staging, batches=batches,
                               confluent=confluent, single_writer=single_writer, frame=frame, changed=changed,
                               table=table, interval_s=interval_s)
    tables = SinkTables(compute.plan, lambda _: StoreTable(store, BUCKET), connector=NAME, owner=owner) if table else None
    return SinkRun(compute.settings, compute.plan, store=store, compute=compute,
                   metadata=None if frame else FakeTopics(topic), group=_no_group, run_id=owner,
                   clock=WallClock(), metrics=metrics, tables=tables, lag_group=lag_group)  # type: ignore[arg-type]
