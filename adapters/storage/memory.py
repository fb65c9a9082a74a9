"""An object store held in this process's memory: a real backend for tests, demos and dry runs.

State belongs to the instance (never to the class), so two stores never see each other's data.
Every operation holds one lock, which makes conditional writes linearizable across threads.
Pickling copies the contents: a Spark executor receives a snapshot, not a shared store, so this
backend is only meaningful in local mode.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from lakesink.adapters.clock import WallClock
from lakesink.adapters.storage.paging import paginate, roll_up
from lakesink.adapters.storage.store_base import PagedStore
from lakesink.domain.config.backends import MemorySettings
from lakesink.domain.errors import BucketNotFoundError, ObjectNotFoundError, PreconditionFailedError
from lakesink.domain.ports import Clock, ListPage, ObjectInfo, StoredObject

_Bucket = dict[str, tuple[bytes, ObjectInfo]]


class InMemoryObjectStore(PagedStore):
    """A thread-safe, bucketed object store in a dict; etags are MD5 hex digests plus a version."""

    def __init__(self, settings: MemorySettings | None = None, clock: Clock | None = None) -> None:
        self.settings = settings or MemorySettings()
        self._clock = clock or WallClock()
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()
        self._version = 0

    # --- administration (not part of the port) ----------------------------------------------

    def create_bucket(self, bucket: str) -> None:
        """Create an empty bucket; creating an existing one keeps its contents."""
        with self._lock:
            self._buckets.setdefault(bucket, {})

    # --- writes -------------------------------------------------------------------------------

    def put(self, bucket: str, key: str, data: bytes) -> str:
        with self._lock:
            return self._store(bucket, key, bytes(data))

    def put_if_absent(self, bucket: str, key: str, data: bytes) -> str:
        with self._lock:
            if key in self._bucket(bucket):
                raise PreconditionFailedError(f"Object {bucket}/{key} already exists.")
            return self._store(bucket, key, bytes(data))

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        with self._lock:
            current = self._bucket(bucket).get(key)
            if current is None or current[1].etag != etag:
                raise PreconditionFailedError(f"Object {bucket}/{key} no longer has etag {etag}.")
            return self._store(bucket, key, bytes(data))

    def upload_file(self, bucket: str, key: str, path: Path, *, if_absent: bool = False) -> str:
        data = Path(path).read_bytes()
        return self.put_if_absent(bucket, key, data) if if_absent else self.put(bucket, key, data)

    def delete(self, bucket: str, key: str) -> None:
        with self._lock:
            self._bucket(bucket).pop(key, None)

    def delete_many(self, bucket: str, keys: Iterable[str]) -> None:
        with self._lock:
            objects = self._bucket(bucket)
            for key in keys:
                objects.pop(key, None)

    def copy(
        self,
        bucket: str,
        source_key: str,
        destination_key: str,
        *,
        destination_bucket: str | None = None,
        if_match: str | None = None,
    ) -> str:
        with self._lock:
            data, info = self._entry(bucket, source_key)
            if if_match is not None and info.etag != if_match:
                raise PreconditionFailedError(f"Object {bucket}/{source_key} no longer has etag {if_match}.")
            return self._store(destination_bucket or bucket, destination_key, data)

    # --- reads --------------------------------------------------------------------------------

    def get(self, bucket: str, key: str) -> StoredObject:
        with self._lock:
            data, info = self._entry(bucket, key)
        return StoredObject(data, info.etag)

    def download_file(self, bucket: str, key: str, path: Path) -> ObjectInfo:
        with self._lock:
            data, info = self._entry(bucket, key)
        Path(path).write_bytes(data)
        return info

    def head(self, bucket: str, key: str) -> ObjectInfo:
        with self._lock:
            return self._entry(bucket, key)[1]

    def _pages(
        self, bucket: str, prefix: str, delimiter: str | None, start_after: str | None, page_size: int
    ) -> Iterator[ListPage]:
        with self._lock:
            objects = self._bucket(bucket)
            snapshot = [objects[k][1] for k in sorted(k for k in objects if k.startswith(prefix))]
        return paginate(roll_up(snapshot, _key_of, prefix, delimiter, start_after), page_size)

    def check_bucket(self, bucket: str) -> None:
        with self._lock:
            self._bucket(bucket)

    # --- pickling -----------------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            return {"settings": self.settings, "buckets": {b: dict(o) for b, o in self._buckets.items()},
                    "version": self._version, "clock": self._clock}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.settings = state["settings"]
        self._buckets = state["buckets"]
        self._version = state["version"]
        self._clock = state["clock"]
        self._lock = threading.Lock()

    # --- internals (callers hold the lock) ----------------------------------------------------

    def _bucket(self, bucket: str) -> _Bucket:
        try:
            return self._buckets[bucket]
        except KeyError:
            raise BucketNotFoundError(f"Bucket {bucket} does not exist.") from None

    def _entry(self, bucket: str, key: str) -> tuple[bytes, ObjectInfo]:
        try:
            return self._bucket(bucket)[key]
        except KeyError:
            raise ObjectNotFoundError(f"Object {bucket}/{key} does not exist.") from None

    def _store(self, bucket: str, key: str, data: bytes) -> str:
        objects = self._bucket(bucket)
        # The version suffix makes every write a new etag, like S3 after an overwrite with a
        # changed body; identical bodies still differ, so a stale etag can never match again.
        self._version += 1
        etag = f"{hashlib.md5(data, usedforsecurity=False).hexdigest()}-{self._version}"
        objects[key] = (data, ObjectInfo(key, len(data), etag, self._clock.now_ms()))
        return etag



def _key_of(info: ObjectInfo) -> str:
    return info.key
