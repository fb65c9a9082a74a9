"""The sink's exactly-once protocol, simulated: crash after every single store call, then restart.

No Spark, no servers: the executor task (:func:`run_task`, one call per range, as one Spark task
per range) and the driver's index (:class:`SinkIndex`) run in this process on the in-memory
store, which is wrapped to crash (kill -9) right after its N-th call, to lose the answers of some
writes (the SDK's retry then sees its own write: a 412), or raced by a second sink of the same
name. For every N a restarted sink, which cuts its batches and chunks differently, must finish
with every record stored exactly once and each partition's lock at its last offset. The kill -9
tests of tests/integration/crash sample the same property on real processes; this is the proof.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from lakesink.adapters.kafka.partition_reader import arrow_schema
from lakesink.adapters.spark.sink_task import SinkTaskSpec, run_task
from lakesink.adapters.storage import store_calls
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application.sink_index import SinkIndex
from lakesink.domain.commit.chunks import chunk_bounds
from lakesink.domain.commit.locks import decode_lock, master_lock_key
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import CommitConflictError
from lakesink.domain.ports import ObjectStore, iter_objects
from lakesink.domain.statement_plan import SinkPlan, plan_sink
from tests.support.faulty_store import Crash, FaultyStore

BUCKET = "lake"
TOPIC = "orders"
NAME = "simulated"
PARTITIONS = (0, 1)

Topic = Mapping[int, Sequence[tuple[int, bool]]]
"""Per partition, its records: (offset, is a tombstone), offsets increasing with gaps."""


def _plan(flush_count: int) -> tuple[ConnectorSettings, SinkPlan]:
    sink = ConnectorSettings.from_properties(
        {
            "name": NAME,
            "connect.memory.kcql": f"INSERT INTO {BUCKET}:out SELECT * FROM {TOPIC} STOREAS `JSON` "
            f"PROPERTIES('flush.count'={flush_count})",
            "connect.memory.skip.null.values": "true",
            "topics": TOPIC,
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
        },
        role="sink",
    )
    return sink, plan_sink(sink)


def _records(partition: int, records: Sequence[tuple[int, bool]]) -> pa.RecordBatch:
    rows = len(records)
    return pa.RecordBatch.from_arrays(
        [
            pa.array([b"k"] * rows, pa.binary()),
            pa.array([None if dead else json.dumps({"p": partition, "o": o}).encode() for o, dead in records],
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


class SinkRun:
    """One sink process: the driver's start-up, batches of range tasks, the driver's commit."""

    def __init__(self, store: ObjectStore, owner: str, flush_count: int, staging: str) -> None:
        self.store, self.owner, self.staging = store, owner, staging
        self.settings, self.plan = _plan(flush_count)
        self.index = SinkIndex(store, self.plan, connector=NAME, indexes_name=".indexes", owner=owner)

    def run(self, topic: Topic, cutting: Cutting, *, batches: int | None = None) -> None:
        """Open the index, then write and commit batches until the topic is drained (or ``batches`` ran)."""
        self.index.open([(TOPIC, p) for p in PARTITIONS])
        position = {p: self.index.starting_offsets().get((TOPIC, p), 0) for p in PARTITIONS}
        forced = {p: end for (_, p), end in self.index.first_batch_end().items()}
        pinned = {p: chunks for (_, p), chunks in self.index.first_batch_chunks().items()}
        high = {p: (topic[p][-1][0] + 1 if topic[p] else 0) for p in PARTITIONS}
        ends = iter(cutting.batch_ends)
        number = 0
        while position != high and (batches is None or number < batches):
            end = next(ends, max(high.values()))
            batch_end = {p: forced.pop(p, max(position[p], min(end, high[p]))) for p in PARTITIONS}
            self.batch(topic, position, batch_end, cutting.split, pinned)
            position, number = batch_end, number + 1

    def batch(self, topic: Topic, start: Mapping[int, int], end: Mapping[int, int], split: int,
              pinned: Mapping[int, tuple[tuple[int, int], ...]]) -> None:
        rows = []
        for p in PARTITIONS:
            for low, high in chunk_bounds(start[p], end[p], split, pinned.get(p, ())):
                rows += self.task(p, [r for r in topic[p] if low <= r[0] < high])
        for p in PARTITIONS:
            lasts = [row["last"] for row in rows if row["partition"] == p and row["last"] >= 0]
            if lasts:
                self.index.commit(TOPIC, p, max(lasts))

    def task(self, partition: int, records: Sequence[tuple[int, bool]]) -> list[dict[str, object]]:
        """One range's Spark task; the source hands it no batch when the range holds no record."""
        spec = SinkTaskSpec.for_settings(self.settings, plan=self.plan, store=self.store, run_id=self.owner,
                                         staging_root=self.staging, floors=self.index.floors())
        batches = [_records(partition, records)] if records else []
        return [row for out in run_task(spec, iter(batches)) for row in out.to_pylist()]


def _check_exactly_once(store: InMemoryObjectStore, topic: Topic) -> None:
    stored = [
        (row["p"], row["o"])
        for info in iter_objects(store, BUCKET, "out/")
        for row in map(json.loads, store.get(BUCKET, info.key).data.splitlines())
    ]
    expected = [(p, o) for p in PARTITIONS for o, dead in topic[p] if not dead]
    assert sorted(stored) == expected, "records lost or duplicated"
    for p in PARTITIONS:
        if topic[p]:
            lock = decode_lock(store.get(BUCKET, master_lock_key(".indexes", NAME, TOPIC, p)).data)
            assert lock.committed_offset == topic[p][-1][0] and lock.pending is None
    assert list(iter_objects(store, BUCKET, f".indexes/{NAME}/.plans/")) == []


def _partition_records() -> st.SearchStrategy[list[tuple[int, bool]]]:
    offsets = st.lists(st.integers(min_value=0, max_value=20), max_size=12, unique=True).map(sorted)
    return offsets.flatmap(lambda os: st.tuples(*(st.tuples(st.just(o), st.booleans()) for o in os)).map(list))


def _cutting() -> st.SearchStrategy[Cutting]:
    ends = st.lists(st.integers(min_value=0, max_value=21), max_size=3).map(lambda e: tuple(sorted(e)))
    return st.builds(Cutting, ends, st.integers(min_value=0, max_value=8))


@pytest.fixture(autouse=True)
def _uploads_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """One upload at a time, so that "the N-th store call" is the same call in every run."""
    monkeypatch.setattr(store_calls, "UPLOAD_THREADS", 1)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    topic=st.fixed_dictionaries({p: _partition_records() for p in PARTITIONS}),
    flush_count=st.integers(min_value=1, max_value=6),
    crashed=_cutting(),
    restarted=_cutting(),
    lost=st.sets(st.integers(min_value=1, max_value=80), max_size=6),
)
def test_a_sink_crashed_after_any_store_call_and_restarted_stores_every_record_once(
    topic: Topic, flush_count: int, crashed: Cutting, restarted: Cutting, lost: set[int]
) -> None:
    with tempfile.TemporaryDirectory() as staging:
        counting = FaultyStore(_store())
        SinkRun(counting, "reference", flush_count, staging).run(topic, crashed)
        for crash_after in range(1, counting.calls + 1):
            store = _store()
            try:
                SinkRun(FaultyStore(store, crash_after=crash_after, lose=lost), "run-1", flush_count, staging).run(
                    topic, crashed
                )
            except Crash:
                pass
            SinkRun(store, "run-2", flush_count, staging).run(topic, restarted)
            _check_exactly_once(store, topic)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    topic=st.fixed_dictionaries({p: _partition_records() for p in PARTITIONS}),
    flush_count=st.integers(min_value=1, max_value=6),
    first=_cutting(),
    racer=_cutting(),
    racer_batches=st.integers(min_value=0, max_value=2),
    lost=st.sets(st.integers(min_value=1, max_value=60), max_size=6),
)
def test_a_second_sink_racing_the_first_fences_it_and_no_record_is_lost_or_doubled(
    topic: Topic, flush_count: int, first: Cutting, racer: Cutting, racer_batches: int, lost: set[int]
) -> None:
    with tempfile.TemporaryDirectory() as staging:
        store = _store()
        older = SinkRun(FaultyStore(store, lose=lost), "older", flush_count, staging)
        older.run(topic, first, batches=1)
        SinkRun(store, "newer", flush_count, staging).run(topic, racer, batches=racer_batches)
        try:
            older.batch(topic, dict.fromkeys(PARTITIONS, 0), dict.fromkeys(PARTITIONS, 21), first.split, {})
        except CommitConflictError:
            event("the older sink was fenced")  # its uploads are met again or replayed by the next run
        SinkRun(store, "restarted", flush_count, staging).run(topic, racer)
        _check_exactly_once(store, topic)


def _store() -> InMemoryObjectStore:
    store = InMemoryObjectStore()
    store.create_bucket(BUCKET)
    return store
