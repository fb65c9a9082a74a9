"""records_before_flush answers for a whole slice what reason() answers after each record."""

from __future__ import annotations

from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.flush import FileStats, FlushPolicy


def _one_by_one(policy: FlushPolicy, stats: FileStats, sizes: list[int]) -> int | None:
    count, written = stats.record_count, stats.bytes_written
    for index, size in enumerate(sizes):
        count, written = count + 1, written + size
        if policy.reason(FileStats(count, written, created_ms=0), now_ms=0) is not None:
            return index + 1
    return None


@given(
    count=st.one_of(st.none(), st.integers(1, 30)),
    size=st.integers(1, 400),
    already=st.integers(0, 20),
    sizes=st.lists(st.integers(0, 60), max_size=40),
)
def test_records_before_flush_matches_asking_after_every_record(
    count: int | None, size: int, already: int, sizes: list[int]
) -> None:
    policy = FlushPolicy(count=count, size_bytes=size)
    # An open file is below both thresholds (it would have been flushed otherwise).
    records = already if count is None else min(already, count - 1)
    stats = FileStats(records, min(already * 7, size - 1), created_ms=0)

    assert policy.records_before_flush(stats, list(accumulate(sizes))) == _one_by_one(policy, stats, sizes)


def test_a_file_flushes_after_the_record_that_reaches_the_size() -> None:
    policy = FlushPolicy(count=None, size_bytes=100)

    assert policy.records_before_flush(FileStats(3, 40, created_ms=0), [30, 60, 90]) == 2
    assert policy.records_before_flush(FileStats(3, 40, created_ms=0), [30, 59]) is None
