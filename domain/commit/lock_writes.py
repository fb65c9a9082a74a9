"""Writing an index lock, and what a rejected or unanswered write means.

A conditional write can answer 412 although it landed (answer lost, the retry met our own change),
or fail transiently after it was applied: neither is "fenced". The stored lock decides: exactly what
this run wrote (its owner id is a fresh uuid) means it landed, anything else that another writer owns
it, unchanged that it did not happen and the store's error stands. See docs/commit-model.md.
"""

from __future__ import annotations

from lakesink.domain.commit.actions import Get, HeldLock, LockRef, PutIfAbsent, Steps, fenced
from lakesink.domain.commit.locks import IndexLock, decode_lock, encode_lock
from lakesink.domain.errors import (
    CommitOutcomeUnknownError,
    ObjectNotFoundError,
    PreconditionFailedError,
    StorageError,
    TransientStorageError,
)


def read_lock(ref: LockRef) -> Steps[HeldLock | None]:
    """The lock at ``ref`` with its etag, or None when there is none."""
    try:
        stored = yield Get(ref.bucket, ref.key)
    except ObjectNotFoundError:
        return None
    return HeldLock(ref, decode_lock(stored.data, key=ref.key), stored.etag)


def write_lock(ref: LockRef, held: HeldLock | None, lock: IndexLock) -> Steps[HeldLock]:
    """Replace the lock this run holds (create it when it holds none) with ``lock``.

    Raises:
        CommitConflictError: another writer changed the lock (fenced).
        TransientStorageError: the store failed and the lock is unchanged (nothing happened).
        CommitOutcomeUnknownError: the write failed and the lock cannot be read back.
    """
    call = PutIfAbsent(ref.bucket, ref.key, encode_lock(lock)) if held is None else held.write(lock)
    try:
        etag = yield call
    except (PreconditionFailedError, TransientStorageError) as error:
        return (yield from _established(ref, held, lock, error))
    return HeldLock(ref, lock, etag)


def _established(ref: LockRef, held: HeldLock | None, wanted: IndexLock, error: StorageError) -> Steps[HeldLock]:
    """The outcome of a rejected or unanswered lock write, read back from the store."""
    try:
        stored = yield from read_lock(ref)
    except TransientStorageError as read_error:
        raise CommitOutcomeUnknownError(
            f"Writing index lock {ref.bucket}/{ref.key} failed ({error}) and reading it back failed too "
            f"({read_error}): whether it was written is unknown until the store answers; the commit runs "
            "again then (a restart would resume from the lock as well)."
        ) from read_error
    if stored is not None and stored.lock == wanted:
        return stored  # our write landed; only its answer was lost
    unchanged = (stored is None and held is None) or (
        stored is not None and held is not None and stored.etag == held.etag
    )
    if isinstance(error, TransientStorageError) and unchanged:
        raise error
    raise fenced(ref) from None
