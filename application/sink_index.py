"""The sink's index on the store, per topic-partition: opened at start-up, advanced after each batch.

The store is the source of truth for where the sink resumes (Spark's checkpoint is a cache). The
decisions are the domain's (:mod:`lakesink.domain.commit.engine`); this class keeps the state of
every partition this run reads and carries the protocol's store calls out
(:func:`~lakesink.adapters.storage.store_calls.perform`).
"""

from __future__ import annotations

from collections.abc import Iterable

from lakesink.adapters.kafka.offsets import OffsetRange
from lakesink.adapters.storage.store_calls import perform
from lakesink.domain.commit.engine import (
    IndexScope,
    PartitionIndex,
    commit_partition,
    open_partition,
    roll_back_plan,
)
from lakesink.domain.commit.range_plans import replay_chunks, replay_clock, replay_end, unreproducible
from lakesink.domain.ports import ObjectStore
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import SinkPlan


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

    def open(self, partitions: Iterable[TopicPartition]) -> None:
        """Load, repair and claim the index of every partition the sink reads (those not open yet).

        A sink opens the partitions it knows of at start-up; one writing a DataFrame it did not
        read itself opens each partition when a batch first holds it, before writing it.

        Raises:
            CommitConflictError: another sink rewrote a lock while we claimed it.
            CommitError: a pending chain cannot be replayed, or a lock is malformed.
        """
        for topic, partition in sorted(set(partitions) - self._partitions.keys()):
            steps = open_partition(self.scope(topic, partition), self._owner)
            self._partitions[(topic, partition)] = perform(steps, self._store)

    # --- what the query needs ---------------------------------------------------------------

    def starting_offsets(self) -> dict[TopicPartition, int]:
        """The next offset to read per partition with a committed offset (others: earliest)."""
        return {tp: s.committed + 1 for tp, s in self._partitions.items() if s.committed is not None}

    def first_batch_end(self) -> dict[TopicPartition, int]:
        """Where the first batch of a partition with uncommitted plans must end (after the highest)."""
        return {tp: end for tp, s in self._partitions.items() if (end := replay_end(s.pending)) is not None}

    def first_batch_chunks(self) -> dict[TopicPartition, tuple[tuple[int, int], ...]]:
        """The chunks the first batch must contain per partition to reproduce every uncommitted plan
        (a partition's plans are pending until its first commit)."""
        return {tp: replay_chunks(s.pending) for tp, s in self._partitions.items() if s.pending}

    def replay_clock(self, partitions: Iterable[TopicPartition]) -> int | None:
        """The batch clock the pending plans of ``partitions`` recorded (wall-clock transforms), None
        when none did: the batch that replays them must read it."""
        states = (self._partitions.get(tp) for tp in set(partitions))
        return replay_clock(plan for state in states if state is not None for plan in state.pending)

    def floors(self) -> dict[TopicPartition, int]:
        """The committed offset per partition: executors skip records at or below it."""
        return {tp: s.committed for tp, s in self._partitions.items() if s.committed is not None}

    def granular_floors(self) -> dict[TopicPartition, dict[str, int]]:
        """Lenses granular locks ahead of the master, per partition (key → offset)."""
        return {tp: dict(s.granular) for tp, s in self._partitions.items() if s.granular}

    def roll_back_unreproducible(self, ranges: Iterable[OffsetRange]) -> None:
        """Roll back every pending plan a range of the batch overlaps without holding it whole.

        Raises:
            CommitConflictError: such a plan does not list its objects.
        """
        for offset_range in ranges:
            where = (offset_range.topic, offset_range.partition)
            state = self._partitions.get(where)
            if state is None:
                continue
            for plan in unreproducible(state.pending, offset_range.start, offset_range.end):
                state = self._partitions[where] = perform(roll_back_plan(state, plan), self._store)

    # --- commit ------------------------------------------------------------------------------

    def commit(self, topic: str, partition: int, last: int) -> None:
        """Advance the master lock to ``last`` (all objects up to it are durable), then GC plans.

        Raises:
            CommitConflictError: the lock changed since this run last wrote it (fenced).
            CommitOutcomeUnknownError: the lock write failed and the lock cannot be read back.
        """
        where = (topic, partition)
        state = self._partitions.get(where) or PartitionIndex(self.scope(topic, partition))
        self._partitions[where] = perform(commit_partition(state, last, self._owner), self._store)
