"""Object stores that fail the way real ones do, by wrapping a real store (faults are never product code).

* :class:`Crash` — the process dies: raised (a ``BaseException``, so nothing in the product
  catches it) right after the chosen call was applied, before its answer is seen.
* lost answers — the call is applied, its answer never arrives, and the SDK retries it with the
  same condition: what the caller sees is the retry's answer (a 412 for a conditional write).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

WRITES = ("put", "put_if_absent", "put_if_match", "upload_file", "copy", "delete", "delete_many")
CALLS = (*WRITES, "get", "head", "list_pages", "download_file", "check_bucket")


class Crash(BaseException):
    """The simulated process died (kill -9): no code of the sink runs after it."""


class FaultyStore:
    """Counts every store call; crashes after call number ``crash_after``; loses the answers of ``lose``.

    Call numbers start at 1 and count calls of every thread in the order they are applied.
    """

    def __init__(self, inner: Any, *, crash_after: int | None = None, lose: Iterable[int] = ()) -> None:
        self.inner = inner
        self.crash_after = crash_after
        self.lose = set(lose)
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
                if name == "list_pages":  # materialised under the lock: a listing is one call here
                    result: Any = list(method(*args, **kwargs))
                else:
                    result = method(*args, **kwargs)
                if number == self.crash_after:
                    self.crashed = True
                    raise Crash(f"crashed after call {number} ({name})")
                if number in self.lose and name in WRITES:  # the SDK's retry: same call, same condition
                    return method(*args, **kwargs)
            return iter(result) if name == "list_pages" else result

        return call

