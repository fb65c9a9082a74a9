"""The sink's index on the store, per topic-partition: opened at start-up, advanced after each batch.

The store is the source of truth for where the sink resumes (Spark's checkpoint is a cache). The
decisions are the domain's (:mod:`lakesink.domain.commit.engine`); this class keeps the state of
every partition this run reads and carries the protocol's store calls out
(:func:`~lakesink.domain.commit.store_calls.perform`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor

from lakesink.domain.commit.chunks import Chunk
from lakesink.domain.commit.engine import (
    IndexScope,
    PartitionIndex,
    commit_partition,
    open_partition,
    roll_back_plan,
)
from lakesink.domain.commit.range_plans import (
    RangePlan,
    other_clocks,
    replay_chunks,
    replay_clock,
    replay_end,
    unreproducible,
    within,
)
from lakesink.domain.commit.store_calls import Steps, perform
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import ObjectStore
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import SinkPlan

PARTITION_THREADS = 8
"""Partitions whose index steps (open at start-up, commit after a batch) run at once: each is a
few sequential store calls (lock, plans listing, plan deletes), so the driver mostly waits. Below
the HTTP pool of every store's SDK (10 connections for GCS and Azure, 50 for S3)."""


class SinkIndex:
    """The master locks, granular locks and range plans of one sink (one connector name)."""

    def __init__(
        self, store: ObjectStore, plan: SinkPlan, *, connector: str, indexes_name: str, owner: str
    ) -> None:
        self._store = store
        self._plan = plan
        self._connector = connector
        self._indexes = indexes_name
        self._owner = owner
        self._partitions: dict[TopicPartition, PartitionIndex] = {}

    def scope(self, topic: str, partition: int) -> IndexScope:
        """Where the index objects of a topic-partition live (the bucket its statement writes to)."""
        return IndexScope.of(self._plan, self._indexes, self._connector, topic, partition)

    # --- start-up --------------------------------------------------------------------------

    def open(self, partitions: Iterable[TopicPartition]) -> list[TopicPartition]:
        """Load, repair and claim the index of every partition the sink reads (those not open yet);
        returns those it opened now.

        A sink opens the partitions it knows of at start-up; one writing a DataFrame it did not
        read itself opens each partition when a batch first holds it, before writing it.

        Raises:
            CommitConflictError: another sink rewrote a lock while we claimed it.
            CommitError: a pending chain cannot be replayed, or a lock is malformed.
        """
        opened = sorted(set(partitions) - self._partitions.keys())
        self._per_partition({tp: open_partition(self.scope(*tp), self._owner) for tp in opened})
        return opened

    # --- what the query needs ---------------------------------------------------------------

    def starting_offsets(self) -> dict[TopicPartition, int]:
        """The next offset to read per partition with a committed offset (others: earliest)."""
        return {tp: s.committed + 1 for tp, s in self._partitions.items() if s.committed is not None}

    def first_batch_end(self) -> dict[TopicPartition, int]:
        """Where the first batch of a partition with uncommitted plans must end (after the highest)."""
        return {tp: end for tp, s in self._partitions.items() if (end := replay_end(s.pending)) is not None}

    def first_batch_chunks(self) -> dict[TopicPartition, tuple[tuple[int, int], ...]]:
        """The chunks the first batch must contain per partition to reproduce every uncommitted plan."""
        return {tp: replay_chunks(s.pending) for tp, s in self._partitions.items() if s.pending}

    def floors(self) -> dict[TopicPartition, int]:
        """The committed offset per partition: executors skip records at or below it."""
        return {tp: s.committed for tp, s in self._partitions.items() if s.committed is not None}

    def granular_floors(self) -> dict[TopicPartition, dict[str, int]]:
        """Lenses granular locks ahead of the master, per partition (key → offset)."""
        return {tp: dict(s.granular) for tp, s in self._partitions.items() if s.granular}

    def replay(self, ranges: Iterable[OffsetRange]) -> tuple[dict[TopicPartition, tuple[Chunk, ...]], int | None]:
        """What a batch of ``ranges`` must reproduce: per partition the chunks of the pending plans it
        holds whole (pinned when its ranges are cut), and the batch clock they recorded.

        A pending plan a range overlaps without holding it whole is rolled back first, and so is a
        held plan recorded at another batch clock than the others (a DataFrame's batch may meet the
        plans of two crashed runs); their records are written afresh.

        Raises:
            CommitConflictError: such a plan does not list its objects.
        """
        held: list[RangePlan] = []
        for offset_range in ranges:
            start, end = offset_range.start, offset_range.end
            self._roll_back(offset_range, unreproducible(self._pending(offset_range), start, end))
            held += within(self._pending(offset_range), start, end)
        late = set(other_clocks(held))
        for offset_range in ranges:
            self._roll_back(offset_range, [plan for plan in self._pending(offset_range) if plan in late])
        pinned: dict[TopicPartition, tuple[Chunk, ...]] = {}
        for offset_range in ranges:
            kept = within(self._pending(offset_range), offset_range.start, offset_range.end)
            where = (offset_range.topic, offset_range.partition)
            pinned[where] = (*pinned.get(where, ()), *replay_chunks(kept))
        return {where: chunks for where, chunks in pinned.items() if chunks}, replay_clock(set(held) - late)

    def roll_back_held(self, ranges: Iterable[OffsetRange]) -> None:
        """Roll back every pending plan ``ranges`` hold whole: a replay found their records changed
        (:class:`~lakesink.domain.errors.PlanChangedError`), so the batch writes them afresh."""
        for offset_range in ranges:
            self._roll_back(offset_range, within(self._pending(offset_range), offset_range.start, offset_range.end))

    def _pending(self, offset_range: OffsetRange) -> tuple[RangePlan, ...]:
        return self._partitions[(offset_range.topic, offset_range.partition)].pending

    def _roll_back(self, offset_range: OffsetRange, plans: Iterable[RangePlan]) -> None:
        where = (offset_range.topic, offset_range.partition)
        for plan in plans:
            self._partitions[where] = perform(roll_back_plan(self._partitions[where], plan), self._store)

    # --- commit ------------------------------------------------------------------------------

    def commit(self, lasts: Mapping[TopicPartition, int]) -> None:
        """Advance each partition's master lock to its offset in ``lasts`` (all objects up to it are
        durable), then GC its plans; the partitions concurrently (:meth:`_per_partition`).

        Raises:
            CommitConflictError: a lock changed since this run last wrote it (fenced).
            CommitOutcomeUnknownError: a lock write failed and the lock cannot be read back.
        """
        # each partition was opened before its batch was written
        self._per_partition({tp: commit_partition(self._partitions[tp], last, self._owner) for tp, last in lasts.items()})

    def _per_partition(self, steps: Mapping[TopicPartition, Steps[PartitionIndex]]) -> None:
        """Perform each partition's protocol step, up to :data:`PARTITION_THREADS` at a time, and keep
        the state of those that succeeded; then raise the first failure, in partition order.

        Partitions are independent (each its own lock and plans), so a crash leaves any subset
        committed, a state each partition's open recovers from as it did a serial commit's prefix. A
        batch of 64 partitions committed one by one spent ~1.4 s in the driver waiting on the store;
        at 10,000 it would be minutes (docs/operations.md, "Sizing").
        """
        if not steps:
            return
        with ThreadPoolExecutor(min(PARTITION_THREADS, len(steps)), thread_name_prefix="lakesink-index") as pool:
            futures = {where: pool.submit(perform, step, self._store) for where, step in sorted(steps.items())}
        failures = []
        for where, future in futures.items():
            error = future.exception()
            if error is None:
                self._partitions[where] = future.result()
            else:
                failures.append(error)
        if failures:
            raise failures[0]
