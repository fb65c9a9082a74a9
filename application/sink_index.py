"""The sink's index on the store: executes the pure commit decisions of :mod:`lakesink.domain.commit.lenses_chain`.

The store is the source of truth for where the sink resumes (Spark's checkpoint is a cache). On
start-up :meth:`SinkIndex.open` reads, per topic-partition, everything Lenses or an earlier
lakesink run left: it migrates a Lenses 9.0.0 master lock, replays a pending copy/delete chain,
claims the master lock for this run (an If-Match rewrite with our owner id, which fences an older
instance still running), reads Lenses granular locks that are ahead of the master, and finds the
batch plans (one per chunk of the partition's range) that were uploaded but never committed. After each batch :meth:`SinkIndex.commit`
advances the master lock with the etag held since start-up — a rejected write means another sink
with the same name took over — and deletes the plans the lock now covers.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from lakesink.domain.commit.lenses_chain import (
    Copy,
    Delete,
    HeldLock,
    LockRef,
    Outcome,
    StepError,
    UploadFile,
    after_success,
    decide_failure,
    fenced,
    migrate_old_master,
    next_action,
)
from lakesink.domain.commit.locks import (
    IndexLock,
    decode_lock,
    encode_lock,
    granular_locks_prefix,
    master_lock_key,
    old_master_lock_key,
)
from lakesink.domain.commit.range_plans import (
    BatchPlan,
    decode_plan,
    obsolete_plan_starts,
    pending_plans,
    plan_key,
    plan_start_of_key,
    plans_prefix,
    replay_chunks,
    replay_end,
)
from lakesink.domain.errors import CommitError, ObjectNotFoundError, PreconditionFailedError, StorageError
from lakesink.domain.ports import ObjectStore, iter_objects
from lakesink.domain.statement_plan import SinkPlan

logger = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
_LOCK_SUFFIX = ".lock"


@dataclass
class PartitionIndex:
    """What the index says about one topic-partition, and the master lock this run holds."""

    ref: LockRef
    held: HeldLock | None = None
    committed: int | None = None
    granular: dict[str, int] = field(default_factory=dict)
    pending: tuple[BatchPlan, ...] = ()
    """The uncommitted plans of the last batch, by start (one per chunk that uploaded)."""


class SinkIndex:
    """The master locks, granular locks and batch plans of one sink (one connector name)."""

    def __init__(
        self, store: ObjectStore, plan: SinkPlan, *, connector: str, indexes_name: str, owner: str
    ) -> None:
        self._store = store
        self._plan = plan
        self._connector = connector
        self._indexes = indexes_name
        self._owner = owner
        self._partitions: dict[TopicPartition, PartitionIndex] = {}

    # --- start-up --------------------------------------------------------------------------

    def open(self, partitions: Iterable[TopicPartition]) -> None:
        """Load, repair and claim the index of every partition the sink reads.

        Raises:
            CommitConflictError: another sink rewrote a lock while we claimed it.
            CommitError: a pending chain cannot be replayed, or a lock is malformed.
        """
        for topic, partition in sorted(partitions):
            self._partitions[(topic, partition)] = self._open_partition(topic, partition)

    def _open_partition(self, topic: str, partition: int) -> PartitionIndex:
        bucket = self._plan.route(topic).bucket
        ref = LockRef(bucket, master_lock_key(self._indexes, self._connector, topic, partition))
        self._migrate_old_master(bucket, topic, partition, ref.key)
        state = PartitionIndex(ref)
        stored = self._read_lock(ref)
        if stored is not None:
            held = self._replay(HeldLock(ref, *stored))
            claimed = IndexLock(self._owner, held.lock.committed_offset, None)
            state.held = self._write(held, claimed)
            state.committed = claimed.committed_offset
        state.granular = self._granular_ahead(bucket, topic, partition, state.committed)
        state.pending = self._pending_plans(bucket, topic, partition, state.committed)
        logger.info(
            "Index of %s-%d: committed offset %s, %d granular locks ahead, pending plans %s",
            topic, partition, state.committed, len(state.granular),
            [(plan.start, plan.last) for plan in state.pending],
        )
        return state

    def _migrate_old_master(self, bucket: str, topic: str, partition: int, new_key: str) -> None:
        old_key = old_master_lock_key(self._indexes, topic, partition)
        try:
            self._store.head(bucket, old_key)
        except ObjectNotFoundError:
            return
        copy, delete = migrate_old_master(bucket, old_key, new_key)
        self._store.copy(copy.bucket, copy.source, copy.destination)
        self._store.delete(delete.bucket, delete.key)
        logger.info("Migrated Lenses 9.0.0 lock %s/%s to %s", bucket, old_key, new_key)

    def _read_lock(self, ref: LockRef) -> tuple[IndexLock, str] | None:
        try:
            stored = self._store.get(ref.bucket, ref.key)
        except ObjectNotFoundError:
            return None
        return decode_lock(stored.data, key=ref.key), stored.etag

    def _granular_ahead(self, bucket: str, topic: str, partition: int, committed: int | None) -> dict[str, int]:
        """Granular locks (Lenses writers) whose offset is above the master's: records to skip."""
        prefix = granular_locks_prefix(self._indexes, self._connector, topic, partition)
        ahead: dict[str, int] = {}
        for info in iter_objects(self._store, bucket, prefix):
            name = info.key[len(prefix) :]
            if "/" in name or not name.endswith(_LOCK_SUFFIX):
                continue
            ref = LockRef(bucket, info.key)
            stored = self._read_lock(ref)
            if stored is None:
                continue
            lock = self._replay(HeldLock(ref, *stored)).lock
            offset = lock.committed_offset
            if offset is not None and (committed is None or offset > committed):
                ahead[name[: -len(_LOCK_SUFFIX)]] = offset
        return ahead

    def _pending_plans(
        self, bucket: str, topic: str, partition: int, committed: int | None
    ) -> tuple[BatchPlan, ...]:
        plans = []
        for info in iter_objects(self._store, bucket, plans_prefix(self._indexes, self._connector, topic, partition)):
            if plan_start_of_key(info.key) is not None:
                plans.append(decode_plan(self._store.get(bucket, info.key).data, key=info.key))
        if committed is not None:
            self._delete_plans(bucket, topic, partition, [p.start for p in plans], committed)
        return pending_plans(plans, committed)

    # --- replaying a Lenses commit chain ----------------------------------------------------

    def _replay(self, held: HeldLock) -> HeldLock:
        """Finish the copy/delete chain a lock records (Lenses crashed mid-commit)."""
        lock = held.lock
        while (action := next_action(lock)) is not None:
            try:
                produced = self._execute(action)
            except (StorageError, _StagingFileMissing) as error:
                kind = StepError.STAGING_FILE_MISSING if isinstance(error, _StagingFileMissing) else StepError.FAILED
                decision = decide_failure(lock, kind, live=False)
                if decision.lock_to_write is not None:
                    held = self._write(held, decision.lock_to_write)
                if decision.outcome is Outcome.ABANDON:
                    return held
                raise CommitError(
                    f"Cannot finish the pending commit recorded in {held.ref.bucket}/{held.ref.key}: {error}"
                ) from error
            lock = after_success(lock, produced)
            held = self._write(held, lock)
            logger.info("Replayed %s from %s", type(action).__name__, held.ref.key)
        return held

    def _execute(self, action: UploadFile | Copy | Delete) -> str | None:
        if isinstance(action, UploadFile):
            raise _StagingFileMissing(f"staging file {action.local_path} of another process")
        if isinstance(action, Delete):
            self._store.delete(action.bucket, action.key)
            return None
        try:
            return self._store.copy(action.bucket, action.source, action.destination, if_match=action.if_match)
        except ObjectNotFoundError:
            if not action.done_if_destination_exists:
                raise
            self._store.head(action.bucket, action.destination)  # copied before the crash, else NotFound
            return None

    def _write(self, held: HeldLock, lock: IndexLock) -> HeldLock:
        action = held.write(lock)
        try:
            etag = self._store.put_if_match(action.bucket, action.key, action.body, action.etag)
        except PreconditionFailedError:
            raise fenced(held.ref) from None
        return held.written(lock, etag)

    # --- what the query needs ---------------------------------------------------------------

    def starting_offsets(self) -> dict[TopicPartition, int]:
        """The next offset to read per partition with a committed offset (others: earliest)."""
        return {tp: s.committed + 1 for tp, s in self._partitions.items() if s.committed is not None}

    def first_batch_end(self) -> dict[TopicPartition, int]:
        """Where the first batch of a partition with uncommitted plans must end (after the highest)."""
        return {
            tp: end for tp, s in self._partitions.items() if (end := replay_end(s.pending)) is not None
        }

    def first_batch_chunks(self) -> dict[TopicPartition, tuple[tuple[int, int], ...]]:
        """The chunks the first batch must contain per partition to reproduce every uncommitted plan."""
        return {tp: replay_chunks(s.pending) for tp, s in self._partitions.items() if s.pending}

    def floors(self) -> dict[TopicPartition, int]:
        """The committed offset per partition: executors skip records at or below it."""
        return {tp: s.committed for tp, s in self._partitions.items() if s.committed is not None}

    def granular_floors(self) -> dict[TopicPartition, dict[str, int]]:
        """Lenses granular locks ahead of the master, per partition (key → offset)."""
        return {tp: dict(s.granular) for tp, s in self._partitions.items() if s.granular}

    def committed(self, topic: str, partition: int) -> int | None:
        """The committed offset of a partition as this run knows it."""
        state = self._partitions.get((topic, partition))
        return None if state is None else state.committed

    # --- commit ------------------------------------------------------------------------------

    def commit(self, topic: str, partition: int, last: int) -> None:
        """Advance the master lock to ``last`` (all objects up to it are durable), then GC plans.

        Raises:
            CommitConflictError: the lock changed since this run last wrote it (fenced).
        """
        state = self._partitions.get((topic, partition))
        if state is None:
            bucket = self._plan.route(topic).bucket
            ref = LockRef(bucket, master_lock_key(self._indexes, self._connector, topic, partition))
            state = self._partitions[(topic, partition)] = PartitionIndex(ref)
        if state.committed is not None and last <= state.committed:
            return
        lock = IndexLock(self._owner, last, None)
        if state.held is None:
            try:
                etag = self._store.put_if_absent(state.ref.bucket, state.ref.key, encode_lock(lock))
            except PreconditionFailedError:
                raise fenced(state.ref) from None
            state.held = HeldLock(state.ref, lock, etag)
        else:
            state.held = self._write(state.held, lock)
        state.committed = last
        state.pending = ()
        state.granular = {k: v for k, v in state.granular.items() if v > last}
        starts = [
            start
            for info in iter_objects(self._store, state.ref.bucket, plans_prefix(self._indexes, self._connector, topic, partition))
            if (start := plan_start_of_key(info.key)) is not None
        ]
        self._delete_plans(state.ref.bucket, topic, partition, starts, last)

    def _delete_plans(self, bucket: str, topic: str, partition: int, starts: list[int], committed: int) -> None:
        obsolete = obsolete_plan_starts(starts, committed)
        if obsolete:
            self._store.delete_many(
                bucket, [plan_key(self._indexes, self._connector, topic, partition, s) for s in obsolete]
            )


class _StagingFileMissing(Exception):
    """A persisted ``upload`` step names a local file this process does not have."""
