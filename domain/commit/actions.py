"""The store calls the commit protocol asks for, and the lock a run holds.

The protocol (:mod:`.engine`, :mod:`.lenses_chain`) is written as generators that *yield* these
small frozen values and receive what the store answered (or have the store's error thrown into
them). One loop (:func:`~lakesink.domain.commit.store_calls.perform`) carries them out
against an :class:`~lakesink.domain.ports.ObjectStore`; a test can carry them out against
anything, crash after any one of them, or lose its answer. Each call maps to one port method.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, TypeVar

from lakesink.domain.commit.locks import IndexLock, encode_lock
from lakesink.domain.errors import CommitConflictError, StorageError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Head:
    """Metadata of ``key``; answers an :class:`~lakesink.domain.ports.ObjectInfo`."""

    bucket: str
    key: str


@dataclass(frozen=True, slots=True)
class Get:
    """Read ``key`` with its etag; answers a :class:`~lakesink.domain.ports.StoredObject`."""

    bucket: str
    key: str


@dataclass(frozen=True, slots=True)
class ListKeys:
    """Every key under ``prefix``, in key order; answers a tuple of keys."""

    bucket: str
    prefix: str


@dataclass(frozen=True, slots=True)
class PutIfAbsent:
    """Create ``key`` only if it does not exist (If-None-Match: *); answers the etag."""

    bucket: str
    key: str
    body: bytes


@dataclass(frozen=True, slots=True)
class PutIfMatch:
    """Overwrite ``key`` only if its etag is still ``etag``; answers the new etag."""

    bucket: str
    key: str
    body: bytes
    etag: str


@dataclass(frozen=True, slots=True)
class UploadFile:
    """One local file for :class:`UploadFiles`: where it goes, and its size (to recognise it again)."""

    bucket: str
    key: str
    local_path: str
    size: int
    replaces: bool = False
    """Written over the object an earlier batch left under the key (one object per key holding its
    latest record: Aiven's key grouping), so never create-only."""


@dataclass(frozen=True, slots=True)
class UploadFiles:
    """Upload local files, create-only when ``create_only`` (except the files that replace), a few at a time.

    Answers one outcome per file, in order: the etag, or the :class:`StorageError` that upload
    raised (the protocol decides what each error means; nothing is thrown).
    """

    files: tuple[UploadFile, ...]
    create_only: bool


@dataclass(frozen=True, slots=True)
class Copy:
    """Server-side copy, conditional on the source etag when ``if_match`` is set; answers the etag."""

    bucket: str
    source: str
    destination: str
    if_match: str | None


@dataclass(frozen=True, slots=True)
class Delete:
    """Delete ``key``; a missing key is not an error."""

    bucket: str
    key: str


@dataclass(frozen=True, slots=True)
class DeleteMany:
    """Delete every key of ``keys``; missing keys are not an error."""

    bucket: str
    keys: tuple[str, ...]


StoreCall = Head | Get | ListKeys | PutIfAbsent | PutIfMatch | UploadFiles | Copy | Delete | DeleteMany

Steps = Generator[StoreCall, Any, T]
"""A protocol step: yields store calls, is sent their answers (or thrown their errors), returns T."""

UploadOutcome = str | StorageError


# --- held locks ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LockRef:
    """Where a lock lives: the sink bucket of its topic, at a key from :mod:`.lock_keys`."""

    bucket: str
    key: str


@dataclass(frozen=True, slots=True)
class HeldLock:
    """A lock as this run last read or wrote it, with the etag that proves it still owns it.

    The etag is never refreshed behind the protocol's back (Lenses' zombie fencing): if another
    writer changed the lock, the next :meth:`write` is rejected and the run stops (:func:`fenced`).
    """

    ref: LockRef
    lock: IndexLock
    etag: str

    def write(self, lock: IndexLock) -> PutIfMatch:
        """The conditional write that replaces this lock with ``lock``."""
        return PutIfMatch(self.ref.bucket, self.ref.key, encode_lock(lock), self.etag)


def fenced(ref: LockRef) -> CommitConflictError:
    """The error for a lock another writer changed: this run is fenced out."""
    return CommitConflictError(
        f"Index lock {ref.bucket}/{ref.key} was changed by another writer (etag mismatch); "
        "this run is fenced out and must stop without committing."
    )
