"""A sink task gives the C heap's free pages back to the system when it ends (glibc)."""

from __future__ import annotations

import ctypes
import threading

import pytest

from lakesink.adapters import native_heap

pytestmark = pytest.mark.skipif(native_heap._TRIM is None, reason="no glibc malloc_trim here")


def _resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def test_free_memory_held_in_a_threads_arena_is_returned() -> None:
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    kept: list[int] = []

    def allocate_then_free_all_but_the_last() -> None:  # as a task's native allocations on another thread
        chunks = [libc.malloc(4096) for _ in range(40_000)]  # 160 MB below the mmap threshold
        for chunk in chunks:
            ctypes.memset(chunk, 1, 4096)
        kept.append(libc.malloc(4096))  # pins the arena's top: glibc cannot shrink it by itself
        for chunk in chunks:
            libc.free(chunk)

    worker = threading.Thread(target=allocate_then_free_all_but_the_last)
    worker.start()
    worker.join()
    before = _resident_mb()
    native_heap.return_free_heap()
    after = _resident_mb()
    libc.free(kept[0])
    assert before - after > 100, f"{before:.0f} MB resident before the trim, {after:.0f} MB after"
