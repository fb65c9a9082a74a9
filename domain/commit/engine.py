"""The sink's exactly-once protocol: what it reads on start-up, writes for a range, and commits.

Three steps, each a generator of store calls that the application carries out:
:func:`open_partition` (driver), :func:`make_range_durable` (executor, per range),
:func:`commit_partition` (driver). Exactly-once follows from deterministic keys, create-only
uploads, the plan written before the uploads and the lock advanced only after them.
See docs/commit-model.md, "The engine".
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from lakesink.domain.commit.actions import (
    Copy,
    Delete,
    DeleteMany,
    Get,
    Head,
    HeldLock,
    ListKeys,
    LockRef,
    PutIfAbsent,
    Steps,
    UploadFile,
    UploadFiles,
    fenced,
)
from lakesink.domain.commit.lenses_chain import replay_chain
from lakesink.domain.commit.lock_keys import (
    granular_locks_prefix,
    granular_partition_key_of,
    master_lock_key,
    old_master_lock_key,
)
from lakesink.domain.commit.lock_writes import read_lock, write_lock
from lakesink.domain.commit.locks import IndexLock
from lakesink.domain.commit.range_plans import (
    RangePlan,
    check_existing_plan,
    decode_plan,
    encode_plan,
    obsolete_plan_starts,
    pending_plans,
    plan_key,
    plan_start_of_key,
    plans_prefix,
)
from lakesink.domain.errors import (
    CommitConflictError,
    ObjectNotFoundError,
    PlanChangedError,
    PreconditionFailedError,
    StorageError,
)
from lakesink.domain.statement_plan import SinkPlan

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IndexScope:
    """The index objects of one topic-partition of one sink: bucket, names and keys."""

    bucket: str
    indexes: str
    connector: str
    topic: str
    partition: int

    @classmethod
    def of(cls, plan: SinkPlan, indexes: str, connector: str, topic: str, partition: int) -> IndexScope:
        """The scope of a topic-partition: its index lives in the bucket its statement writes to."""
        return cls(plan.route(topic).bucket, indexes, connector, topic, partition)

    @property
    def master(self) -> LockRef:
        """The master lock ``<indexes>/<connector>/.locks/Topic(<t>)/<p>.lock``."""
        return LockRef(self.bucket, master_lock_key(self.indexes, self.connector, self.topic, self.partition))

    @property
    def plans_prefix(self) -> str:
        """The folder of this partition's range plans."""
        return plans_prefix(self.indexes, self.connector, self.topic, self.partition)

    def plan_key(self, start: int) -> str:
        """The key of the range plan starting at ``start``."""
        return plan_key(self.indexes, self.connector, self.topic, self.partition, start)


@dataclass(frozen=True, slots=True)
class PartitionIndex:
    """What the index says about one topic-partition, and the master lock this run holds."""

    scope: IndexScope
    held: HeldLock | None = None
    """The master lock as this run claimed or last wrote it; None while the partition has none."""
    granular: Mapping[str, int] = field(default_factory=dict)
    """Lenses granular locks ahead of the master: writer key → offset, records to skip."""
    pending: tuple[RangePlan, ...] = ()
    """The uncommitted plans of the last batch, by start (one per range that uploaded)."""

    @property
    def committed(self) -> int | None:
        """The last offset durably written (the master lock's ``committedOffset``)."""
        return None if self.held is None else self.held.lock.committed_offset


# --- start-up ---------------------------------------------------------------------------------


def open_partition(scope: IndexScope, owner: str) -> Steps[PartitionIndex]:
    """Load, repair and claim the index of one partition.

    Raises:
        CommitConflictError: another sink kept rewriting the lock while we claimed it.
        CommitError: a pending Lenses chain cannot be finished, or a lock or plan is malformed.
    """
    yield from _move_old_master(scope)
    held = yield from _claim(scope, owner)
    committed = held.lock.committed_offset
    granular = yield from _granular_ahead(scope, committed)
    pending = yield from _pending_plans(scope, committed)
    logger.info(
        "Index of %s-%d: committed offset %s, %d granular locks ahead, pending plans %s",
        scope.topic, scope.partition, committed, len(granular), [(plan.start, plan.last) for plan in pending],
    )
    return PartitionIndex(scope, held, granular, pending)


CLAIM_ATTEMPTS = 5
"""Reads and claims of one lock before a start-up gives up to writers that keep changing it."""


def _claim(scope: IndexScope, owner: str) -> Steps[HeldLock]:
    """Read the master lock (finishing a pending Lenses chain) and write it back with ``owner``.

    A newer sink takes a partition over from one of the same name that may still be running: a
    commit of the older one landing between this read and this write is the older one's last word,
    not a rival claim, so the claim reads the lock again (with that commit's offset) and retries.
    Claimed even when there is no lock yet (created with no committed offset): otherwise an older
    sink whose first commit of the partition is still to come would create the lock after this
    claim, and go on writing while this sink is the one fenced.

    Raises:
        CommitConflictError: the lock changed under every one of :data:`CLAIM_ATTEMPTS` claims.
    """
    for attempt in range(1, CLAIM_ATTEMPTS):
        try:
            return (yield from _claim_once(scope, owner))
        except CommitConflictError:
            logger.info(
                "Index lock %s/%s changed while this run claimed it (a running sink of the same name "
                "committed); reading it again (claim %d of %d)",
                scope.bucket, scope.master.key, attempt + 1, CLAIM_ATTEMPTS,
            )
    return (yield from _claim_once(scope, owner))


def _claim_once(scope: IndexScope, owner: str) -> Steps[HeldLock]:
    held = yield from read_lock(scope.master)
    if held is not None:
        held = yield from replay_chain(held)
    committed = None if held is None else held.lock.committed_offset
    return (yield from write_lock(scope.master, held, IndexLock(owner, committed, None)))


def _move_old_master(scope: IndexScope) -> Steps[None]:
    """A Lenses 9.0.0 master lock (``<indexes>/.locks/…``) moves to the current path."""
    old_key = old_master_lock_key(scope.indexes, scope.topic, scope.partition)
    try:
        yield Head(scope.bucket, old_key)
    except ObjectNotFoundError:
        return
    yield Copy(scope.bucket, old_key, scope.master.key, if_match=None)
    yield Delete(scope.bucket, old_key)
    logger.info("Moved Lenses 9.0.0 lock %s/%s to %s", scope.bucket, old_key, scope.master.key)


def _granular_ahead(scope: IndexScope, committed: int | None) -> Steps[dict[str, int]]:
    """Granular locks (Lenses writers) whose offset is above the master's, chains finished first."""
    prefix = granular_locks_prefix(scope.indexes, scope.connector, scope.topic, scope.partition)
    ahead: dict[str, int] = {}
    for key in (yield ListKeys(scope.bucket, prefix)):
        name = granular_partition_key_of(prefix, key)
        held = None if name is None else (yield from read_lock(LockRef(scope.bucket, key)))
        if name is None or held is None:
            continue
        offset = (yield from replay_chain(held)).lock.committed_offset
        if offset is not None and (committed is None or offset > committed):
            ahead[name] = offset
    return ahead


def _pending_plans(scope: IndexScope, committed: int | None) -> Steps[tuple[RangePlan, ...]]:
    plans = []
    for key in (yield ListKeys(scope.bucket, scope.plans_prefix)):
        if plan_start_of_key(key) is not None:
            stored = yield Get(scope.bucket, key)
            plans.append(decode_plan(stored.data, key=key))
    if committed is not None:
        yield from _delete_plans(scope, [plan.start for plan in plans], committed)
    return pending_plans(plans, committed)


# --- one range --------------------------------------------------------------------------------


def make_range_durable(
    scope: IndexScope, plan: RangePlan | None, files: tuple[UploadFile, ...]
) -> Steps[None]:
    """Record the range's plan (exactly-once; None: at-least-once), then upload its files.

    Raises:
        CommitConflictError: the plan exists for another range, or an object exists with
            other bytes: another writer, or a hand-edited index. Nothing was uploaded after it.
        PlanChangedError: the plan exists for this range with other objects, or one of its objects
            with another size: the range's records changed since it was planned.
        StorageError: an upload failed (the task fails; a retry writes the same objects).
    """
    if not files:
        return
    replayed = False
    if plan is not None:
        yield from _check_still_owner(scope, plan.owner)
        replayed = yield from _write_plan(scope, plan)
    outcomes = yield UploadFiles(files, create_only=plan is not None)
    for file, outcome in zip(files, outcomes, strict=True):
        if isinstance(outcome, PreconditionFailedError):
            yield from _check_same_object(file, replayed)
        elif isinstance(outcome, StorageError):
            raise outcome


def _check_still_owner(scope: IndexScope, owner: str) -> Steps[None]:
    """Stop before uploading when a newer sink of the same name claimed the partition.

    Without this a superseded sink still running would upload its range (new keys, records the
    newer sink also writes) and learn it was fenced only at its lock write, after the duplicate
    landed. A newer sink that claims the lock between this read and the uploads is not seen here;
    its first commit then fences this one (docs/commit-model.md).
    """
    held = yield from read_lock(scope.master)
    if held is not None and held.lock.owner != owner:
        raise fenced(scope.master)


def _write_plan(scope: IndexScope, plan: RangePlan) -> Steps[bool]:
    """Create the plan; an existing one must describe the same range (a retry, or a lost answer).
    Returns whether it existed."""
    key = scope.plan_key(plan.start)
    try:
        yield PutIfAbsent(scope.bucket, key, encode_plan(plan))
    except PreconditionFailedError:
        stored = yield Get(scope.bucket, key)
        check_existing_plan(decode_plan(stored.data, key=key), plan, where=f"{scope.bucket}/{key}")
        logger.info("Range plan %s/%s exists with the same range: uploading the same objects", scope.bucket, key)
        return True
    return False


def _check_same_object(file: UploadFile, replayed: bool) -> Steps[None]:
    """An object already under the key must be the one this range writes (an earlier attempt's)."""
    info = yield Head(file.bucket, file.key)
    if info.size != file.size and replayed:
        raise PlanChangedError(
            f"Object {file.bucket}/{file.key} of a replayed range plan holds {info.size} bytes, but this "
            f"batch wrote {file.size} bytes for it: the range's records changed since it was planned."
        )
    if info.size != file.size:
        raise CommitConflictError(
            f"Object {file.bucket}/{file.key} already exists with {info.size} bytes, but this batch "
            f"wrote {file.size} bytes for it: another writer produced different data under the same key."
        )
    logger.info("Object %s/%s already uploaded by an earlier attempt", file.bucket, file.key)


def roll_back_plan(index: PartitionIndex, plan: RangePlan) -> Steps[PartitionIndex]:
    """Undo a pending plan no batch can reproduce: delete its objects, then the plan.

    Its records are above the committed offset, so they are written again by the batch that
    needed the roll-back. Deleting the plan last makes a crash in between harmless: the restart
    finds the plan and rolls it back again (deleting a missing object is no error).

    Raises:
        CommitConflictError: the plan does not list its objects (written before plans did, or
            overwriting objects in place), so it can only be reproduced, not undone.
    """
    scope = index.scope
    if plan.objects is None:
        raise CommitConflictError(
            f"The pending plan {scope.bucket}/{scope.plan_key(plan.start)} (offsets {plan.start}..{plan.last}, "
            f"run {plan.owner}) cannot be reproduced by this batch, and it does not list its objects (an earlier "
            "lakesink version wrote it, or its objects are overwritten in place), so it cannot be rolled back: "
            "restart from the Spark checkpoint of the run that wrote it, whose batch reproduces it."
        )
    buckets = sorted({bucket for bucket, _ in plan.objects})
    for bucket in buckets:
        yield DeleteMany(bucket, tuple(key for where, key in plan.objects if where == bucket))
    yield Delete(scope.bucket, scope.plan_key(plan.start))
    logger.warning(
        "Rolled back the pending plan of %s-%d for offsets %d..%d (run %s, %d objects deleted): this batch "
        "cannot reproduce it and writes those records again",
        scope.topic, scope.partition, plan.start, plan.last, plan.owner, len(plan.objects),
    )
    return replace(index, pending=tuple(kept for kept in index.pending if kept != plan))


# --- commit -----------------------------------------------------------------------------------


def commit_partition(index: PartitionIndex, last: int, owner: str) -> Steps[PartitionIndex]:
    """Advance the master lock to ``last`` (every object up to it is durable), then drop covered plans.

    Raises:
        CommitConflictError: the lock changed since this run last wrote it (fenced).
        CommitOutcomeUnknownError: the write failed and the lock cannot be read back.
    """
    if index.committed is not None and last <= index.committed:
        return index
    scope = index.scope
    held = yield from write_lock(scope.master, index.held, IndexLock(owner, last, None))
    starts = [start for key in (yield ListKeys(scope.bucket, scope.plans_prefix)) if (start := plan_start_of_key(key)) is not None]
    yield from _delete_plans(scope, starts, last)
    granular = {name: offset for name, offset in index.granular.items() if offset > last}
    # plans above ``last`` stay pending: a DataFrame's batch may commit below a pending range
    return replace(index, held=held, granular=granular, pending=pending_plans(index.pending, last))


def _delete_plans(scope: IndexScope, starts: list[int], committed: int) -> Steps[None]:
    obsolete = obsolete_plan_starts(starts, committed)
    if obsolete:
        yield DeleteMany(scope.bucket, tuple(scope.plan_key(start) for start in obsolete))

