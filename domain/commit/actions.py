"""The store calls the commit protocol asks for, and the lock a task holds while committing.

Small frozen values: :mod:`lakesink.domain.commit.lenses_chain` decides which of them to make, the
application executes them against an ``ObjectStore`` (each maps to one port method), so the
protocol is testable without a store and every backend runs the same decisions.
"""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.domain.commit.locks import IndexLock, encode_lock
from lakesink.domain.errors import CommitConflictError

# --- actions the application executes -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class PutIfAbsent:
    """Create ``key`` only if it does not exist (If-None-Match: *)."""

    bucket: str
    key: str
    body: bytes


@dataclass(frozen=True, slots=True)
class PutIfMatch:
    """Overwrite ``key`` only if its etag is still ``etag``; a mismatch means we were fenced."""

    bucket: str
    key: str
    body: bytes
    etag: str


@dataclass(frozen=True, slots=True)
class UploadFile:
    """Upload the local file ``local_path`` to ``key``, create-only; returns the object's etag."""

    bucket: str
    local_path: str
    key: str


@dataclass(frozen=True, slots=True)
class Copy:
    """Server-side copy, conditional on the source etag when ``if_match`` is set.

    With ``done_if_destination_exists`` a missing source is not an error when the destination
    exists: the copy already happened before a crash (Lenses' idempotent replay). A missing
    source and destination is a failed step.
    """

    bucket: str
    source: str
    destination: str
    if_match: str | None
    done_if_destination_exists: bool = True


@dataclass(frozen=True, slots=True)
class Delete:
    """Delete ``key``; a missing key is not an error."""

    bucket: str
    key: str


StoreAction = PutIfAbsent | PutIfMatch | UploadFile | Copy | Delete


# --- held locks ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LockRef:
    """Where a lock lives: the sink bucket of its topic, at a key from :mod:`lakesink.domain.commit.lock_keys`."""

    bucket: str
    key: str


@dataclass(frozen=True, slots=True)
class HeldLock:
    """A lock as this task last read or wrote it, with the etag that proves it still owns it.

    The etag is never re-read during a commit (Lenses' zombie fencing): if another writer
    changed the lock, the next :meth:`write` fails and the task must stop (:func:`fenced`).
    """

    ref: LockRef
    lock: IndexLock
    etag: str

    def write(self, lock: IndexLock) -> PutIfMatch:
        """The conditional write that replaces this lock with ``lock``."""
        return PutIfMatch(self.ref.bucket, self.ref.key, encode_lock(lock), self.etag)

    def written(self, lock: IndexLock, etag: str) -> HeldLock:
        """The held lock after :meth:`write` succeeded and returned ``etag``."""
        return HeldLock(self.ref, lock, etag)


def fenced(ref: LockRef) -> CommitConflictError:
    """The error for a lock write rejected by its etag condition: another writer owns the lock."""
    return CommitConflictError(
        f"Index lock {ref.bucket}/{ref.key} was changed by another writer (etag mismatch); "
        "this task is fenced out and must stop without committing."
    )
