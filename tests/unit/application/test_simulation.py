"""The sink's exactly-once protocol, simulated: crash after every single store call, then restart.

No Spark, no servers: the sink use case itself (:class:`~lakesink.application.sink_run.SinkRun`:
start-up from the index, each batch written then committed, errors as the tasks report them) runs
on a simulated compute: the batches of a fake Kafka topic, each range written by the real executor
task (:func:`run_task`, one call per range, as one Spark task per range), all in this process on
the in-memory store. The store is wrapped to crash (kill -9) right after its N-th call, to lose
the answers of some writes (the SDK's retry then sees its own write: a 412), or raced by a second
sink of the same name. For every N a restarted sink, which cuts its batches and chunks differently, must finish
with every record stored exactly once and each partition's lock at its last offset. The kill -9
tests of tests/integration/crash sample the same property on real processes; this is the proof.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Callable, Mapping
from typing import Any
from unittest import mock

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application import waiting
from lakesink.application.sink_run import BatchReport
from lakesink.domain.commit import store_calls
from lakesink.domain.commit.lock_keys import master_lock_key
from lakesink.domain.commit.locks import decode_lock
from lakesink.domain.errors import CommitConflictError, TransientStorageError
from lakesink.domain.flush.rolls import RollReason
from lakesink.domain.ports import iter_objects
from lakesink.domain.records import TopicPartition
from tests.support.faulty_store import ConditionsIgnored, Crash, FaultyStore
from tests.support.simulated_sink import BUCKET, NAME, TOPIC, Cutting, SimulatedCompute, Topic, sink
from tests.support.store_table import KEY as TABLE_KEY
from tests.support.store_table import StoreTable, table_files

PARTITIONS = (0, 1)


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


def _check_table(store: InMemoryObjectStore, topic: Topic) -> None:
    """The table references every live record once, the bucket holds no data object it does not
    reference, and each lock is at its partition's last offset, as the table's mark is."""
    referenced = table_files(store, BUCKET)
    stored = [
        (row["p"], row["o"])
        for key in referenced
        for row in pq.read_table(pa.BufferReader(store.get(BUCKET, key).data)).to_pylist()
    ]
    expected = [(p, o) for p in PARTITIONS for o, dead in topic[p] if not dead]
    assert sorted(stored) == expected, "records lost or duplicated in the table"
    objects = sorted(info.key for info in iter_objects(store, BUCKET, "out/") if info.key != TABLE_KEY)
    assert objects == sorted(referenced), "objects no table commit references"
    mark = StoreTable(store, BUCKET).head(NAME, [(TOPIC, p) for p in PARTITIONS]).mark
    for p in PARTITIONS:
        if topic[p]:
            lock = decode_lock(store.get(BUCKET, master_lock_key(".indexes", NAME, TOPIC, p)).data)
            assert lock.committed_offset == topic[p][-1][0] and lock.pending is None
            assert mark is not None and mark.offsets.get((TOPIC, p)) in (None, topic[p][-1][0])
    assert list(iter_objects(store, BUCKET, f".indexes/{NAME}/.plans/")) == []


def _check_confluent_cycles(store: InMemoryObjectStore, topic: Topic, flush_size: int) -> None:
    """Confluent's files: the live records of each partition in cycles of ``flush_size`` from its first,
    each file named by its first offset; the last, incomplete cycle held back (not written, not committed)."""
    stored: dict[str, list[int]] = {
        info.key: [json.loads(line)["o"] for line in store.get(BUCKET, info.key).data.splitlines()]
        for info in iter_objects(store, BUCKET, "out/")
    }
    expected: dict[str, list[int]] = {}
    for p in PARTITIONS:
        live = [o for o, dead in topic[p] if not dead]
        complete = len(live) - len(live) % flush_size
        for start in range(0, complete, flush_size):
            cycle = live[start : start + flush_size]
            expected[f"out/{TOPIC}/partition={p}/{TOPIC}+{p}+{cycle[0]:010d}.json"] = cycle
        lock_key = master_lock_key(".indexes", NAME, TOPIC, p)
        if complete:
            committed = decode_lock(store.get(BUCKET, lock_key).data).committed_offset
            held = live[complete:]
            assert committed is not None and live[complete - 1] <= committed < (held[0] if held else 10**9)
    assert stored == expected, "records lost, duplicated or cut into other files than Confluent's"
    assert list(iter_objects(store, BUCKET, f".indexes/{NAME}/.plans/")) == []


def _partition_records() -> st.SearchStrategy[list[tuple[int, bool]]]:
    offsets = st.lists(st.integers(min_value=0, max_value=20), max_size=12, unique=True).map(sorted)
    return offsets.flatmap(lambda os: st.tuples(*(st.tuples(st.just(o), st.booleans()) for o in os)).map(list))


def _cutting() -> st.SearchStrategy[Cutting]:
    ends = st.lists(st.integers(min_value=0, max_value=21), max_size=3).map(lambda e: tuple(sorted(e)))
    return st.builds(Cutting, ends, st.integers(min_value=0, max_value=8))


CRASH_CASES: dict[str, st.SearchStrategy[Any]] = {
    "topic": st.fixed_dictionaries({p: _partition_records() for p in PARTITIONS}),
    "flush_count": st.integers(min_value=1, max_value=6),
    "crashed": _cutting(),
    "restarted": _cutting(),
    "lost": st.sets(st.integers(min_value=1, max_value=80), max_size=6),
}
"""A topic, a flush count, how the crashed run and its restart cut the batches, the calls whose answers are lost."""


def _crashed_after_every_call(topic: Topic, crashed: Cutting, restarted: Cutting, lost: set[int], flush: int,
                              check: Callable[[InMemoryObjectStore], None], *, lying: bool = False,
                              changed: bool = False, **options: bool) -> None:
    """A reference run counts the store calls; then, for every N, a run (losing the answers of ``lost``) dies
    right after call N and a restart cut as ``restarted`` finishes; ``check`` audits each store. ``lying``:
    the store ignores conditional writes; ``changed``: the restart's rows have other bytes."""
    def reached(store: InMemoryObjectStore) -> Any:
        return ConditionsIgnored(store) if lying else store

    with tempfile.TemporaryDirectory() as staging:
        counting = FaultyStore(reached(_store()))
        sink(topic, crashed, counting, "reference", flush, staging, **options).run()
        for crash_after in range(1, counting.calls + 1):
            store = _store()
            try:
                sink(topic, crashed, FaultyStore(reached(store), crash_after=crash_after, lose=lost), "run-1", flush,
                     staging, **options).run()
            except Crash:
                pass
            sink(topic, restarted, reached(store), "run-2", flush, staging, changed=changed, **options).run()
            check(store)


@pytest.fixture(autouse=True)
def _uploads_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """One upload at a time, so that "the N-th store call" is the same call in every run."""
    monkeypatch.setattr(store_calls, "UPLOAD_THREADS", 1)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**CRASH_CASES)
def test_a_sink_crashed_after_any_store_call_and_restarted_stores_every_record_once(
    topic: Topic, flush_count: int, crashed: Cutting, restarted: Cutting, lost: set[int]
) -> None:
    _crashed_after_every_call(topic, crashed, restarted, lost, flush_count, lambda store: _check_exactly_once(store, topic))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**CRASH_CASES)
def test_a_dataframe_sink_crashed_after_any_store_call_and_restarted_without_its_checkpoint_stores_every_record_once(
    topic: Topic, flush_count: int, crashed: Cutting, restarted: Cutting, lost: set[int]
) -> None:
    """The library's sink: batches cut by the user's source, which restarts from the topic's start
    (its checkpoint lost) and cuts them otherwise; pending plans are reproduced or rolled back."""
    _crashed_after_every_call(topic, crashed, restarted, lost, flush_count, lambda store: _check_exactly_once(store, topic),
                              frame=True)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**CRASH_CASES, frame=st.booleans())
def test_a_sink_committing_to_a_table_crashed_after_any_store_call_adds_every_record_once(
    topic: Topic, flush_count: int, crashed: Cutting, restarted: Cutting, lost: set[int], frame: bool
) -> None:
    """The table commit is the commit point, the locks follow it: a crash between the two leaves the
    locks behind, and the restart (a DataFrame's too, which opens partitions batch by batch) moves
    them up before it replays or rolls back anything; no record is referenced twice or not at all."""
    _crashed_after_every_call(topic, crashed, restarted, lost, flush_count, lambda store: _check_table(store, topic),
                              table=True, frame=frame)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**{name: cases for name, cases in CRASH_CASES.items() if name != "lost"})
# the batch's other chunk planned and uploaded before the changed one failed: the retry keeps the cut
@example(topic={0: [], 1: [(0, False), (1, False)]}, flush_count=2, crashed=Cutting((1,), 0), restarted=Cutting((), 0))
def test_a_dataframe_sink_restarted_with_rows_that_changed_since_the_crash_stores_every_record_once(
    topic: Topic, flush_count: int, crashed: Cutting, restarted: Cutting
) -> None:
    """A transformation that is not deterministic: the restart's rows have other bytes, so a pending plan it
    holds whole meets objects it would not write (or another object list): the plan is rolled back and the
    records written afresh, never stored twice."""
    _crashed_after_every_call(topic, crashed, restarted, set(), flush_count,
                              lambda store: _check_exactly_once(store, topic), frame=True, changed=True)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**CRASH_CASES)
def test_a_single_writer_on_a_store_ignoring_conditions_crashed_after_any_call_stores_every_record_once(
    topic: Topic, flush_count: int, crashed: Cutting, restarted: Cutting, lost: set[int]
) -> None:
    """Single-writer mode: every conditional write lands as a plain overwrite, and still no record is
    lost or doubled across a crash after any store call (a lost answer's retry lands again)."""
    _crashed_after_every_call(topic, crashed, restarted, lost, flush_count, lambda store: _check_exactly_once(store, topic),
                              lying=True, single_writer=True)


def test_single_writer_mode_on_a_store_enforcing_the_conditions_still_fences_a_second_sink(
    caplog: pytest.LogCaptureFixture,
) -> None:
    topic: Topic = {0: [(0, False), (1, False)], 1: [(3, False)]}
    with tempfile.TemporaryDirectory() as staging, caplog.at_level(logging.INFO, logger="lakesink.application"):
        store = _store()
        older = sink(topic, Cutting((), 0), store, "older", 1, staging, single_writer=True)
        older.prepare()
        sink(topic, Cutting((), 0), store, "newer", 1, staging, single_writer=True).run()
        with pytest.raises(CommitConflictError):
            older.run()
        _check_exactly_once(store, topic)
    said = [r.getMessage() for r in caplog.records if "single.writer" in r.getMessage()]
    assert len(said) == 2 and all("still fenced" in line for line in said)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


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
        older = sink(topic, first, FaultyStore(store, lose=lost), "older", flush_count, staging, batches=1)
        older.run()
        sink(topic, racer, store, "newer", flush_count, staging, batches=racer_batches).run()
        everything = SimulatedCompute(topic, first, store, "older", flush_count, staging).ranges(
            dict.fromkeys(PARTITIONS, 0), dict.fromkeys(PARTITIONS, 21)
        )
        try:
            older.write_batch(1, everything)
        except CommitConflictError:
            event("the older sink was fenced")  # its uploads are met again or replayed by the next run
        sink(topic, racer, store, "restarted", flush_count, staging).run()
        _check_exactly_once(store, topic)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    topic=st.fixed_dictionaries({p: _partition_records() for p in PARTITIONS}),
    flush_count=st.integers(min_value=1, max_value=6),
    cutting=_cutting(),
    given_up=st.sets(st.integers(min_value=1, max_value=80), min_size=1, max_size=12),
    lost=st.sets(st.integers(min_value=1, max_value=80), max_size=6),
)
def test_a_sink_waits_out_store_calls_that_fail_transiently_and_stores_every_record_once(
    topic: Topic, flush_count: int, cutting: Cutting, given_up: set[int], lost: set[int]
) -> None:
    """Calls whose SDK retries ran out (applied or not) re-run their step: the run goes on, nothing is doubled."""
    with tempfile.TemporaryDirectory() as staging, mock.patch.object(waiting, "time") as clock:
        store = _store()
        faulty = FaultyStore(store, give_up=given_up, lose=lost)
        sink(topic, cutting, faulty, "run", flush_count, staging).run()
        _check_exactly_once(store, topic)
        # a call that failed before it was applied (even numbers) always fails its step, which must have
        # waited; one applied first may pass (a lock write whose read-back shows it landed)
        if any(number <= faulty.calls and number % 2 == 0 for number in given_up):
            assert clock.sleep.called
        event(f"waited {min(clock.sleep.call_count, 3)}+ times")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    topic=st.fixed_dictionaries({p: _partition_records() for p in PARTITIONS}),
    flush_size=st.integers(min_value=1, max_value=5),
    crashed=_cutting(),
    restarted=_cutting(),
    lost=st.sets(st.integers(min_value=1, max_value=80), max_size=6),
)
def test_a_confluent_config_crashed_after_any_store_call_writes_confluents_files_once(
    topic: Topic, flush_size: int, crashed: Cutting, restarted: Cutting, lost: set[int]
) -> None:
    """Cycles held back across batches, re-read after a crash, give the same files as one clean run."""
    _crashed_after_every_call(topic, crashed, restarted, lost, flush_size,
                              lambda store: _check_confluent_cycles(store, topic, flush_size), confluent=True)


class _Metrics:
    """What the run tells its metrics port."""

    def __init__(self) -> None:
        self.reports: list[BatchReport] = []
        self.failed: list[str] = []
        self.waits = 0

    def batch_committed(self, report: BatchReport) -> None:
        self.reports.append(report)

    def batch_failed(self, kind: str) -> None:
        self.failed.append(kind)

    def waited(self) -> None:
        self.waits += 1


METERED: Topic = {0: [(o, False) for o in range(10)], 1: [(o, o % 4 == 0) for o in range(0, 14, 2)]}
"""Ten records in partition 0; seven in partition 1 (offsets 0, 2...12), four of them tombstones."""


def test_the_metrics_see_every_batch_its_records_files_offsets_lag_and_store_calls() -> None:
    with tempfile.TemporaryDirectory() as staging:
        store = FaultyStore(_store())
        metrics = _Metrics()
        run = sink(METERED, Cutting((4, 8), 3), store, "run", 3, staging, metrics=metrics)
        run.prepare()
        calls_at_start = store.calls
        run.run()

    _check_exactly_once(store.inner, METERED)
    assert metrics.reports == run.reports and len(run.reports) == 3 and metrics.failed == []
    assert sum(r.records for r in run.reports) == sum(records for r in run.reports for records in r.records_by_topic.values()) == 13
    assert sum(r.skipped for r in run.reports) == 4  # the tombstones
    files = [key for r in run.reports for key in r.files]
    assert sum(count for r in run.reports for count in r.rolls.values()) == len(files)
    assert sum(r.rolls.get(RollReason.COUNT, 0) for r in run.reports) >= 1
    committed: dict[TopicPartition, int] = {}
    for report in run.reports:
        committed.update(report.committed)
    assert committed == {(TOPIC, 0): 9, (TOPIC, 1): 12}
    assert run.reports[-1].lags == {(TOPIC, 0): 0, (TOPIC, 1): 0}
    assert run.reports[0].lags[(TOPIC, 0)] == 10 - 4  # the first batch ended at offset 4
    # the driver's calls (locks) and the tasks' (lock reads, plans, uploads), each once: all the store saw
    assert sum(r.requests for r in run.reports) == store.calls - calls_at_start
    assert all(r.duration_ms >= r.commit_ms > 0 for r in run.reports)


class _LagGroup:
    """Records what the run advises the consumer group, as lag tools would read it."""

    def __init__(self) -> None:
        self.advised: list[dict[TopicPartition, int]] = []
        self.closed = 0

    def advise(self, positions: Mapping[TopicPartition, int]) -> None:
        self.advised.append(dict(positions))

    def close(self) -> None:
        self.closed += 1


def test_each_commit_advises_the_consumer_group_the_next_offsets_the_index_holds_and_the_run_closes_it() -> None:
    group = _LagGroup()
    with tempfile.TemporaryDirectory() as staging:
        run = sink(METERED, Cutting((4, 8), 3), _store(), "run", 3, staging, lag_group=lambda: group)
        run.run()

    assert group.advised == [{tp: last + 1 for tp, last in report.committed.items()} for report in run.reports]
    assert group.advised[-1] == {(TOPIC, 0): 10, (TOPIC, 1): 13}  # Kafka's meaning: the next offset to read
    assert group.closed == 1


def test_the_metrics_count_each_attempt_the_store_failed_and_each_wait() -> None:
    with tempfile.TemporaryDirectory() as staging, mock.patch.object(waiting, "time") as clock:
        store = FaultyStore(_store())
        metrics = _Metrics()
        run = sink(METERED, Cutting((4, 8), 3), store, "run", 3, staging, metrics=metrics)
        run.prepare()
        store.give_up = {store.calls + 2, store.calls + 12}  # even: fails before it is applied
        run.run()

    _check_exactly_once(store.inner, METERED)
    assert metrics.waits == clock.sleep.call_count == 2
    assert metrics.failed == ["TransientStorageError"] * 2
    assert len(metrics.reports) == 3


class _FailingPartition:
    """A store whose uploads of one partition's objects fail (before they are applied) the first
    ``times`` times, as calls the SDK gave up on; it counts every upload per partition."""

    def __init__(self, inner: InMemoryObjectStore, partition: int, times: int) -> None:
        self.inner, self.partition, self.times = inner, partition, times
        self.uploads = dict.fromkeys(PARTITIONS, 0)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)
        if name not in ("put_if_absent", "upload_file", "put"):
            return method

        def call(bucket: str, key: str, *args: Any, **kwargs: Any) -> Any:
            for p in PARTITIONS:
                if key.startswith(f"out/{TOPIC}/{p}/"):
                    self.uploads[p] += 1
                    if p == self.partition and self.times > 0:
                        self.times -= 1
                        raise TransientStorageError(f"upload of {key} failed before it was applied")
            return method(bucket, key, *args, **kwargs)

        return call


def test_a_batch_failing_in_one_partition_commits_the_others_before_its_wait_and_runs_only_that_one_again() -> None:
    with tempfile.TemporaryDirectory() as staging, mock.patch.object(waiting, "time") as clock:
        store = _FailingPartition(_store(), partition=1, times=3)
        locks_at_each_wait: list[int | None] = []

        def lock_of_partition_0(_seconds: float) -> None:
            found = store.inner.get(BUCKET, master_lock_key(".indexes", NAME, TOPIC, 0)).data
            locks_at_each_wait.append(decode_lock(found).committed_offset)

        clock.sleep.side_effect = lock_of_partition_0
        run = sink(METERED, Cutting((), 10), store, "run", 3, staging)  # type: ignore[arg-type]
        run.run()

    _check_exactly_once(store.inner, METERED)
    assert locks_at_each_wait and set(locks_at_each_wait) == {9}  # partition 0 committed before the first wait
    # the first attempt committed something, the others nothing: the waits double from 1 s
    waits = [c.args[0] for c in clock.sleep.call_args_list]
    assert waits == [2 ** n for n in range(len(waits))]
    assert store.uploads[0] == 4  # its 10 records in objects of 3: written once, never again
    assert len(run.reports) == 1 and run.reports[0].committed == {(TOPIC, 0): 9, (TOPIC, 1): 12}
    assert run.reports[0].records == 13


def _store() -> InMemoryObjectStore:
    store = InMemoryObjectStore()
    store.create_bucket(BUCKET)
    return store
