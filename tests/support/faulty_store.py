"""Object stores that fail the way real ones do, by wrapping a real store (faults are never product code).

* :class:`Crash` — the process dies: raised (a ``BaseException``, so nothing in the product
  catches it) right after the chosen call was applied, before its answer is seen.
* lost answers — the call is applied, its answer never arrives, and the SDK retries it with the
  same condition: what the caller sees is the retry's answer (a 412 for a conditional write).
* given-up calls — the SDK's retries ran out: the call fails with :class:`TransientStorageError`,
  after it was applied (odd call numbers: the last attempt's answer was lost) or before (even).
* :class:`FailingUploads` — a Spark task dies right after its uploads landed (retried by Spark,
  then by ``error.policy``).
* :class:`CrashBeforeCommit` — the sink dies between its uploads and the lock's advance.
* :class:`ConditionsIgnored` — a store that lies: conditional writes always land.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import Any

from lakesink.domain.commit.locks import decode_lock
from lakesink.domain.errors import ObjectNotFoundError, TransientStorageError

WRITES = ("put", "put_if_absent", "put_if_match", "upload_file", "copy", "delete", "delete_many")
CALLS = (*WRITES, "get", "head", "list_pages", "download_file", "check_bucket")


class Crash(BaseException):
    """The simulated process died (kill -9): no code of the sink runs after it."""


class FaultyStore:
    """Counts every store call; crashes after call number ``crash_after``; loses the answers of
    ``lose``; fails the calls of ``give_up`` as transient.

    Call numbers start at 1 and count calls of every thread in the order they are applied.
    """

    def __init__(self, inner: Any, *, crash_after: int | None = None, lose: Iterable[int] = (),
                 give_up: Iterable[int] = ()) -> None:
        self.inner = inner
        self.crash_after = crash_after
        self.lose = set(lose)
        self.give_up = set(give_up)
        self.calls = 0
        self.crashed = False
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.inner, name)
        if name not in CALLS:
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                if self.crashed:
                    raise Crash("the process is dead")
                self.calls += 1
                number = self.calls
                if number in self.give_up and number % 2 == 0:
                    raise TransientStorageError(f"store call {number} ({name}) failed before it was applied")
                if name == "list_pages":  # materialised under the lock: a listing is one call here
                    result: Any = list(method(*args, **kwargs))
                else:
                    result = method(*args, **kwargs)
                if number == self.crash_after:
                    self.crashed = True
                    raise Crash(f"crashed after call {number} ({name})")
                if number in self.lose and name in WRITES:  # the SDK's retry: same call, same condition
                    return method(*args, **kwargs)
                if number in self.give_up:
                    raise TransientStorageError(f"store call {number} ({name}) was applied, its answer lost")
            return iter(result) if name == "list_pages" else result

        return call



class _Wrapping:
    """Delegates every store method to ``inner``; picklable, so Spark ships it to the executors."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # unpickling looks attributes up before __dict__ is filled
            raise AttributeError(name)
        return getattr(self.inner, name)


class FailingUploads(_Wrapping):
    """A task that dies right after an upload landed: the first ``times`` uploads into every key
    directory (one per topic-partition in the default layout; create-only or not, landed or refused
    as already there) raise after the store applied them.

    Each failure claims a marker file ``<directory with / as _>.<n>`` create-only in ``directory``,
    so the count holds across Spark's task retries and the sink's batch re-runs, on any executor.
    A task attempt (one unpickled copy of this store) fails at most once, however many of its files
    upload in parallel.
    """

    def __init__(self, inner: Any, directory: str, times: int = 1) -> None:
        super().__init__(inner)
        self.directory = directory
        self.times = times
        self._attempt = threading.Lock()
        self._failed = False

    def __getstate__(self) -> dict[str, Any]:
        return {"inner": self.inner, "directory": self.directory, "times": self.times}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["inner"], state["directory"], state["times"])  # type: ignore[misc]

    def upload_file(self, bucket: str, key: str, path: Any, *, if_absent: bool = False) -> str:
        try:
            return self.inner.upload_file(bucket, key, path, if_absent=if_absent)
        finally:
            with self._attempt:
                if not self._failed:
                    self._fail_once_more(key)

    def _fail_once_more(self, key: str) -> None:
        name = key.rpartition("/")[0].replace("/", "_")
        for number in range(self.times):
            try:
                fd = os.open(os.path.join(self.directory, f"{name}.{number}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                continue
            os.close(fd)
            self._failed = True
            raise RuntimeError(f"lakesink test fault injection: attempt {number + 1} dies after uploading {key}")

    def failed_attempts(self) -> dict[str, int]:
        """Failures so far per key directory (as marker names have it)."""
        counts: dict[str, int] = {}
        for marker in os.listdir(self.directory):
            name = marker.rsplit(".", 1)[0]
            counts[name] = counts.get(name, 0) + 1
        return counts


class CrashBeforeCommit(_Wrapping):
    """A run that dies between its uploads and its commit: any lock write that would move a
    partition's committed offset raises (the run's claim of a lock, which keeps the offset, passes)."""

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        self._refuse_an_advance(bucket, key, data)
        return self.inner.put_if_match(bucket, key, data, etag)

    def put_if_absent(self, bucket: str, key: str, data: bytes) -> str:
        self._refuse_an_advance(bucket, key, data)
        return self.inner.put_if_absent(bucket, key, data)

    def _refuse_an_advance(self, bucket: str, key: str, data: bytes) -> None:
        if not key.endswith(".lock"):
            return
        try:
            stored = decode_lock(self.inner.get(bucket, key).data).committed_offset
        except ObjectNotFoundError:
            stored = None
        if decode_lock(data).committed_offset != stored:
            raise RuntimeError(f"simulated crash before the commit of {key}")


class ConditionsIgnored(_Wrapping):
    """A store that accepts conditional writes unconditionally, as older MinIO releases and some
    S3-compatible services do with ``If-None-Match`` / ``If-Match``: every write lands."""

    def put_if_absent(self, bucket: str, key: str, data: bytes) -> str:
        return str(self.inner.put(bucket, key, data))

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        return str(self.inner.put(bucket, key, data))

    def upload_file(self, bucket: str, key: str, path: Any, *, if_absent: bool = False) -> str:
        return str(self.inner.upload_file(bucket, key, path, if_absent=False))
