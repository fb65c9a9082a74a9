"""A batch split into chunks, crashed after some chunks uploaded, replayed with another split size.

Runs the executor body (:func:`run_task`, one call per chunk, as one Spark task per chunk) and the
driver's index (:class:`SinkIndex`) in-process on an in-memory store, without Spark or Kafka: the
records of a chunk are handed to the task as the source would read them. Offsets have gaps
(compaction, transaction markers) and tombstones that ``skip.null.values`` drops, so a plan's
``start`` and ``last`` are not the chunk's bounds.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from lakesink.adapters.kafka.partition_reader import arrow_schema
from lakesink.adapters.spark.sink_task import run_task
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application.sink_index import SinkIndex
from lakesink.domain.commit.chunks import chunk_bounds
from lakesink.domain.commit.range_plans import RangePlan, encode_plan, plan_key, plans_prefix
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import iter_objects
from lakesink.domain.statement_plan import plan_sink

BUCKET = "lake"
TOPIC = "orders"
NAME = "chunked"
TP = (TOPIC, 0)
SETTINGS = ConnectorSettings.from_properties(
    {
        "name": NAME,
        "connect.memory.kcql": f"INSERT INTO {BUCKET}:out SELECT * FROM {TOPIC} STOREAS `JSON` "
        "PROPERTIES('flush.count'=3)",
        "connect.memory.skip.null.values": "true",
        "topics": TOPIC,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
    },
    role="sink",
)
PLAN = plan_sink(SETTINGS)


def _records(offsets: Sequence[int], tombstones: set[int]) -> pa.RecordBatch:
    rows = len(offsets)
    return pa.RecordBatch.from_arrays(
        [
            pa.array([b"k"] * rows, pa.binary()),
            pa.array([None if o in tombstones else json.dumps({"id": o}).encode() for o in offsets],
                     pa.binary()),
            pa.array([TOPIC] * rows, pa.string()),
            pa.array([0] * rows, pa.int32()),
            pa.array(offsets, pa.int64()),
            pa.array([1_700_000_000_000_000 + o for o in offsets], pa.timestamp("us", tz="UTC")),
            pa.array([0] * rows, pa.int32()),
            pa.array([[]] * rows, arrow_schema().field("headers").type),
        ],
        schema=arrow_schema(),
    )


class _Run:
    """One sink run: its index claimed on the store, and its tasks."""

    def __init__(self, store: InMemoryObjectStore, run_id: str, staging: str) -> None:
        self.index = SinkIndex(store, PLAN, connector=NAME, indexes_name=".indexes", owner=run_id)
        self.index.open([TP])
        self.store, self.run_id, self.staging = store, run_id, staging

    def task(
        self, chunk: tuple[int, int], present: Sequence[int], tombstones: set[int]
    ) -> list[dict[str, Any]]:
        """One chunk's Spark task; the source hands it no batch when the chunk holds no record."""
        spec = SinkTaskSpec.for_settings(SETTINGS, plan=PLAN, store=self.store, run_id=self.run_id,
                                         staging_root=self.staging, floors=self.index.floors())
        offsets = [o for o in present if chunk[0] <= o < chunk[1]]
        batches = [_records(offsets, tombstones)] if offsets else []
        return [row for out in run_task(spec, iter(batches)) for row in out.to_pylist()]

    def batch(self, chunks: list[tuple[int, int]], present: Sequence[int], tombstones: set[int]) -> None:
        """Every chunk, then the driver's commit of the highest offset any chunk read."""
        rows = [row for chunk in chunks for row in self.task(chunk, present, tombstones)]
        lasts = [row["last"] for row in rows if row["last"] >= 0]
        if lasts:
            self.index.commit({(TOPIC, 0): max(lasts)})


def _data(store: InMemoryObjectStore) -> dict[str, bytes]:
    return {i.key: store.get(BUCKET, i.key).data for i in iter_objects(store, BUCKET, "out/")}


@settings(max_examples=40, deadline=None)
@given(
    end=st.integers(min_value=1, max_value=60),
    holes=st.sets(st.integers(min_value=0, max_value=59), max_size=15),
    tombstones=st.sets(st.integers(min_value=0, max_value=59), max_size=15),
    first_size=st.integers(min_value=1, max_value=20),
    replay_size=st.integers(min_value=0, max_value=20),
    crashed=st.sets(st.integers(min_value=0, max_value=59)),
)
def test_a_replay_with_another_split_size_rewrites_the_same_objects_and_stores_every_record_once(
    end: int, holes: set[int], tombstones: set[int], first_size: int, replay_size: int, crashed: set[int]
) -> None:
    present = [o for o in range(end) if o not in holes]
    store = InMemoryObjectStore()
    store.create_bucket(BUCKET)
    with tempfile.TemporaryDirectory() as staging:
        first = _Run(store, "run-1", staging)
        for number, chunk in enumerate(chunk_bounds(0, end, first_size)):
            if number in crashed:  # these tasks finished before the driver died; the others never ran
                first.task(chunk, present, tombstones)
        uploaded = _data(store)

        replay = _Run(store, "run-2", staging)
        stop = replay.index.first_batch_end().get(TP, end)
        pinned = replay.index.first_batch_chunks().get(TP, ())
        replay.batch(chunk_bounds(0, stop, replay_size, pinned), present, tombstones)
        replay.batch(chunk_bounds(stop, end, replay_size), present, tombstones)

    stored = _data(store)
    assert uploaded.items() <= stored.items()
    ids = sorted(json.loads(line)["id"] for body in stored.values() for line in body.splitlines())
    assert ids == [o for o in present if o not in tombstones]
    assert list(iter_objects(store, BUCKET, plans_prefix(".indexes", NAME, TOPIC, 0))) == []


def test_the_index_reports_every_pending_plan_of_a_partition_and_the_commit_collects_them_all() -> None:
    store = InMemoryObjectStore()
    store.create_bucket(BUCKET)
    for plan in (RangePlan("old", 0, 9), RangePlan("old", 12, 19), RangePlan("old", 20, 24)):
        store.put(BUCKET, plan_key(".indexes", NAME, TOPIC, 0, plan.start), encode_plan(plan))
    index = SinkIndex(store, PLAN, connector=NAME, indexes_name=".indexes", owner="new")

    index.open([TP])

    assert index.first_batch_end() == {TP: 25}
    assert index.first_batch_chunks() == {TP: ((0, 10), (12, 20), (20, 25))}
    index.commit({(TOPIC, 0): 24})
    assert list(iter_objects(store, BUCKET, plans_prefix(".indexes", NAME, TOPIC, 0))) == []
    assert index.first_batch_end() == {} and index.first_batch_chunks() == {}
