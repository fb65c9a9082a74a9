"""Carries out the commit protocol's store calls: the one place its decisions meet a store.

:func:`perform` runs the protocol's generator against an :class:`~lakesink.domain.ports.ObjectStore`,
sending each answer back in or throwing the store's error in, so the protocol decides what it
means. It lives in the domain and talks only to the port, so the driver's use case and the
executors' tasks both run it without a layer importing the wrong one.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from lakesink.domain.commit.actions import (
    Copy,
    Delete,
    DeleteMany,
    Get,
    Head,
    ListKeys,
    PutIfAbsent,
    PutIfMatch,
    Steps,
    StoreCall,
    UploadFile,
    UploadFiles,
    UploadOutcome,
)
from lakesink.domain.errors import StorageError
from lakesink.domain.ports import ObjectStore, iter_objects

T = TypeVar("T")

UPLOAD_THREADS = 4


class RequestCount:
    """Store calls made through :func:`perform` (an upload of N files counts N; a multipart upload once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # a driver may perform from several threads
        self.total = 0

    def add(self, count: int) -> None:
        with self._lock:
            self.total += count


_PROCESS_REQUESTS = RequestCount()


def store_requests() -> int:
    """How many store calls this process has made through :func:`perform` without a count of its own
    (the driver's: its index and replays); a difference of two readings is what a step made."""
    return _PROCESS_REQUESTS.total


def perform(steps: Steps[T], store: ObjectStore, requests: RequestCount | None = None) -> T:
    """Run a protocol step to its end against ``store`` and return its result; its calls are counted
    in ``requests`` (default: the process's, :func:`store_requests`).

    Uploads of one range run a few at a time (S3 multipart parts are concurrent too, inside each).
    Every call is counted for the metrics (an upload of N files as N): in the caller's
    :class:`RequestCount` (a sink task's), else in the process's (:func:`store_requests`, the driver's).

    Raises:
        LakesinkError: whatever the protocol raises (it sees every store error first).
    """
    counted = _PROCESS_REQUESTS if requests is None else requests
    try:
        call = next(steps)
        while True:
            counted.add(len(call.files) if isinstance(call, UploadFiles) else 1)
            try:
                answer = execute(call, store)
            except StorageError as error:
                call = steps.throw(error)
            else:
                call = steps.send(answer)
    except StopIteration as done:
        return done.value


def execute(call: StoreCall, store: ObjectStore) -> Any:
    """One store call; its answer as the protocol expects it (see :mod:`lakesink.domain.commit.actions`)."""
    match call:
        case Head(bucket, key):
            return store.head(bucket, key)
        case Get(bucket, key):
            return store.get(bucket, key)
        case ListKeys(bucket, prefix):
            return tuple(info.key for info in iter_objects(store, bucket, prefix))
        case PutIfAbsent(bucket, key, body):
            return store.put_if_absent(bucket, key, body)
        case PutIfMatch(bucket, key, body, etag):
            return store.put_if_match(bucket, key, body, etag)
        case UploadFiles(files, create_only):
            return _upload_all(store, files, create_only)
        case Copy(bucket, source, destination, if_match):
            return store.copy(bucket, source, destination, if_match=if_match)
        case Delete(bucket, key):
            return store.delete(bucket, key)
        case DeleteMany(bucket, keys):
            return store.delete_many(bucket, keys)
    raise TypeError(f"Not a store call: {call!r}")


def _upload_all(store: ObjectStore, files: tuple[UploadFile, ...], create_only: bool) -> tuple[UploadOutcome, ...]:
    def upload(file: UploadFile) -> UploadOutcome:
        try:
            return store.upload_file(
                file.bucket, file.key, Path(file.local_path), if_absent=create_only and not file.replaces
            )
        except StorageError as error:
            return error

    if len(files) == 1:
        return (upload(files[0]),)
    with ThreadPoolExecutor(max_workers=min(UPLOAD_THREADS, len(files))) as pool:
        return tuple(pool.map(upload, files))
