"""Giving the C heap's free pages back to the system after a sink task (glibc's ``malloc_trim``).

A task frees nearly all it allocated natively (pyarrow writers, librdkafka buffers, botocore
connections), but glibc keeps freed pages in several threads' arenas. Issue 19's case (500 files a
task): a worker grew ~12 MB a task (187 → 573 MB over 32 tasks) with Python and Arrow flat; trimming
after each task held it at 180-230 MB, for 1-2 ms a task. Without glibc (macOS, musl) a no-op.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def return_free_heap() -> None:
    """Release the free memory of every malloc arena to the system (glibc only)."""
    if _TRIM is not None:
        _TRIM(0)
