"""The exactly-once commit protocol as pure decisions over index locks (reference §4.4–§4.6).

The domain decides, the application executes: every function here returns the next lock value
and the store calls to make as small frozen action objects (``PutIfAbsent``, ``PutIfMatch``,
``UploadFile``, ``Copy``, ``Delete``); no store is ever called from this module.

One engine drives both a live commit and crash recovery: a lock's pending state is a list of
operations; :func:`next_action` gives the store call for the first one, :func:`after_success`
gives the lock to persist (If-Match with the held etag) once it succeeded, and
:func:`decide_failure` says what a failure means. Executor loop::

    lock = begin_commit(held.lock, ...)            # or a loaded lock with a pending state
    while (action := next_action(lock)) is not None:
        etag = execute(action)                     # on failure: decide_failure(...)
        lock = after_success(lock, etag)
        held = held.written(lock, execute(held.write(lock)))   # PreconditionFailed -> fenced(ref)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import Enum

from lakesink.domain.commit.actions import (
    Copy,
    Delete,
    HeldLock,
    LockRef,
    PutIfAbsent,
    PutIfMatch,
    StoreAction,
    UploadFile,
    fenced,
)
from lakesink.domain.commit.locks import (
    CopyOp,
    DeleteOp,
    IndexLock,
    PendingOperation,
    PendingState,
    UploadOp,
    encode_lock,
    master_committed_offset,
)
from lakesink.domain.errors import CommitError

__all__ = [
    "PLACEHOLDER_ETAG",
    "Copy",
    "Delete",
    "FailureDecision",
    "HeldLock",
    "LockOpening",
    "LockRef",
    "Outcome",
    "PutIfAbsent",
    "PutIfMatch",
    "StepError",
    "StoreAction",
    "UploadFile",
    "after_success",
    "begin_commit",
    "decide_failure",
    "fenced",
    "master_lock_update",
    "migrate_old_master",
    "next_action",
    "obsolete_granular_locks",
    "open_lock",
    "seek_offset",
    "writer_start_offset",
]

#: Etag recorded for the copy/delete steps until the upload returns the real one (as Lenses).
PLACEHOLDER_ETAG = "placeholder"

# --- opening ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LockOpening:
    """What to do with a lock on partition assignment (master) or writer creation (granular).

    ``create`` is set when the lock did not exist: execute it; a PreconditionFailed means
    another task created it first — for the master lock that is :func:`fenced`, for a granular
    lock read it again and open again. ``needs_replay`` means ``lock`` carries a pending state
    to finish (executor loop with ``live=False``) before its committed offset can be used.
    """

    lock: IndexLock
    create: PutIfAbsent | None
    needs_replay: bool


def open_lock(
    ref: LockRef, stored: IndexLock | None, *, owner: str, fallback_offset: int | None = None
) -> LockOpening:
    """Decide how to open a lock read from the store (None = not found).

    ``fallback_offset`` seeds a new master lock from a legacy v1 index; granular locks are
    created empty.
    """
    if stored is None:
        lock = IndexLock(owner=owner, committed_offset=fallback_offset, pending=None)
        return LockOpening(lock, PutIfAbsent(ref.bucket, ref.key, encode_lock(lock)), needs_replay=False)
    return LockOpening(stored, None, needs_replay=stored.pending is not None)


def seek_offset(lock: IndexLock) -> int | None:
    """The Kafka offset to seek a partition to: the committed offset itself, or None (no seek).

    Seeking *to* (not past) the committed offset re-delivers one record already written;
    ``writer_state.should_skip`` drops it. This keeps Lenses' behaviour on a shared bucket.

    Raises:
        CommitError: the lock still has a pending state (replay it first).
    """
    if lock.pending is not None:
        raise CommitError(
            f"Cannot seek from a lock with a pending commit at offset {lock.pending.pending_offset}."
        )
    return lock.committed_offset


def writer_start_offset(granular: IndexLock | None, master_seek: int | None) -> int | None:
    """A new writer's committed offset: its granular lock's, else the master's (§4.5 step 4)."""
    if granular is not None and granular.committed_offset is not None:
        return granular.committed_offset
    return master_seek


def migrate_old_master(bucket: str, old_key: str, new_key: str) -> tuple[Copy, Delete]:
    """Move a Lenses 9.0.0 master lock (found by a HEAD) to the current layout."""
    return Copy(bucket, old_key, new_key, if_match=None, done_if_destination_exists=False), Delete(
        bucket, old_key
    )


# --- the commit chain ------------------------------------------------------------------------


def begin_commit(
    lock: IndexLock, *, bucket: str, staging_path: str, final_key: str, offset: int, temp_key: str | None
) -> IndexLock:
    """The in-memory lock whose pending chain uploads a sealed file durably up to ``offset``.

    With ``temp_key`` this is Lenses' chain: upload to the temporary key, copy to the final key,
    delete the temporary object. With None it is lakesink's cheap chain for stores with
    conditional PUT: one create-only upload straight to the final key. Either way nothing is
    persisted until the upload succeeded, so a pending ``upload`` never reaches the store.
    """
    ops: tuple[PendingOperation, ...]
    if temp_key is None:
        ops = (UploadOp(bucket, staging_path, final_key),)
    else:
        ops = (
            UploadOp(bucket, staging_path, temp_key),
            CopyOp(bucket, temp_key, final_key, PLACEHOLDER_ETAG),
            DeleteOp(bucket, temp_key, PLACEHOLDER_ETAG),
        )
    return replace(lock, pending=PendingState(offset, ops))


def next_action(lock: IndexLock) -> UploadFile | Copy | Delete | None:
    """The store call for the first pending operation, or None when the chain is finished."""
    if lock.pending is None:
        return None
    head = lock.pending.operations[0]
    if isinstance(head, UploadOp):
        return UploadFile(head.bucket, head.source, head.destination)
    if isinstance(head, CopyOp):
        return Copy(head.bucket, head.source, head.destination, if_match=head.etag)
    # The etag of a delete is recorded but not enforced (Lenses deletes unconditionally on S3).
    return Delete(head.bucket, head.source)


def after_success(lock: IndexLock, produced_etag: str | None = None) -> IndexLock:
    """The lock to persist once the first pending operation succeeded.

    An etag produced by the step (the upload's) replaces the etag of the remaining steps. After
    the last step the pending offset becomes the committed offset and the pending state clears.
    """
    pending = _pending(lock)
    rest = pending.operations[1:]
    if not rest:
        return replace(lock, committed_offset=pending.pending_offset, pending=None)
    if produced_etag is not None:
        rest = tuple(_with_etag(op, produced_etag) for op in rest)
    return replace(lock, pending=PendingState(pending.pending_offset, rest))


class StepError(Enum):
    """How a chain step failed, as far as the decision depends on it."""

    STAGING_FILE_MISSING = "staging file missing"
    ALREADY_EXISTS = "create-only upload found an existing object"
    FAILED = "failed"


class Outcome(Enum):
    """What the executor does after a failed step."""

    RETRY = "retry"  # keep the writer Uploading and its staging file; commit again later
    FATAL = "fatal"  # stop the task; a restart replays from the persisted lock
    ABANDON = "abandon"  # pending state dropped; the records are re-consumed from Kafka
    AS_SUCCESS = "as_success"  # the step's effect is already in place: continue with after_success


@dataclass(frozen=True, slots=True)
class FailureDecision:
    """The outcome of a failed step and, if set, a lock to persist before acting on it."""

    outcome: Outcome
    lock_to_write: IndexLock | None = None


def decide_failure(lock: IndexLock, error: StepError, *, live: bool) -> FailureDecision:
    """Lenses' error classification (§4.4), with one improvement for direct uploads.

    ``live`` is True for a commit of this task's own sealed file and False for a replay found
    in a lock at open (Lenses' ``escalateOnCancel``).

    * Upload whose staging file is gone: clear the pending state (old committed offset kept);
      live → FATAL (the task restarts and re-reads), replay → ABANDON (records re-consumed).
    * Direct upload (no copy step) that finds the final key already there: AS_SUCCESS — the same
      records were uploaded before a crash (deterministic keys). Lenses retries forever here.
    * Other upload errors → RETRY. A middle step (copy) → FATAL, the lock keeps the remaining
      steps for the next open. The last step (delete) → RETRY.
    """
    operations = _pending(lock).operations
    head, has_rest = operations[0], len(operations) > 1
    if isinstance(head, UploadOp):
        if error is StepError.STAGING_FILE_MISSING:
            return FailureDecision(Outcome.FATAL if live else Outcome.ABANDON, replace(lock, pending=None))
        if error is StepError.ALREADY_EXISTS and not has_rest:
            return FailureDecision(Outcome.AS_SUCCESS)
        return FailureDecision(Outcome.RETRY)
    return FailureDecision(Outcome.FATAL if has_rest else Outcome.RETRY)


# --- preCommit and garbage collection ---------------------------------------------------------


def master_lock_update(
    held: HeldLock, *, owner: str, global_safe_offset: int, last_written: int | None
) -> PutIfMatch | None:
    """The master lock write for a safe offset (PARTITIONBY writers), or None if already written.

    The master stores ``safe - 1`` (None at 0). If the write is rejected, Lenses returns no
    offset to Kafka for that partition and keeps the old etag; so does lakesink.
    """
    if last_written is not None and global_safe_offset <= last_written:
        return None
    return held.write(IndexLock(owner, master_committed_offset(global_safe_offset), None))


def obsolete_granular_locks(
    locks: Mapping[str, IndexLock], *, master_committed: int | None, active_keys: Iterable[str]
) -> tuple[str, ...]:
    """Granular lock keys safe to delete, in key order (Lenses' GC and orphan sweep).

    A lock is obsolete when no live writer holds it, it has no pending state, and it is empty
    or below the master's committed offset: the master floor then covers it, because a lock
    *at* the master offset still prevents the one-record-overlap duplicate.
    """
    active = set(active_keys)
    return tuple(
        key
        for key, lock in sorted(locks.items())
        if key not in active
        and lock.pending is None
        and (
            lock.committed_offset is None
            or (master_committed is not None and lock.committed_offset < master_committed)
        )
    )


def _pending(lock: IndexLock) -> PendingState:
    if lock.pending is None:
        raise CommitError("The lock has no pending commit chain.")
    return lock.pending


def _with_etag(op: PendingOperation, etag: str) -> PendingOperation:
    return op if isinstance(op, UploadOp) else replace(op, etag=etag)
