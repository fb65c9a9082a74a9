"""records_before_flush (a whole slice) and room() (a writer, up front) answer what reason() answers after each record."""

from __future__ import annotations

from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.flush.policy import FileRoom, FileStats, FlushPolicy


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
def test_records_before_flush_and_room_match_asking_after_every_record(
    count: int | None, size: int, already: int, sizes: list[int]
) -> None:
    policy = FlushPolicy(count=count, size_bytes=size)
    # An open file is below both thresholds (it would have been flushed otherwise).
    records = already if count is None else min(already, count - 1)
    stats = FileStats(records, min(already * 7, size - 1), created_ms=0)
    expected = _one_by_one(policy, stats, sizes)

    assert policy.records_before_flush(stats, list(accumulate(sizes))) == expected
    assert _flushes_after_by_room(policy.room(stats), sizes) == expected


def test_a_file_flushes_after_the_record_that_reaches_the_size() -> None:
    policy = FlushPolicy(count=None, size_bytes=100)

    assert policy.records_before_flush(FileStats(3, 40, created_ms=0), [30, 60, 90]) == 2
    assert policy.records_before_flush(FileStats(3, 40, created_ms=0), [30, 59]) is None


def _flushes_after_by_room(room: FileRoom, sizes: list[int]) -> int | None:
    added_records, added_bytes = 0, 0
    for index, size in enumerate(sizes):
        added_records, added_bytes = added_records + 1, added_bytes + size
        if (room.records is not None and added_records >= room.records) or added_bytes >= room.bytes:
            return index + 1
    return None


def test_an_empty_file_has_the_whole_count_and_size_as_room() -> None:
    assert FlushPolicy(count=10, size_bytes=500).room(FileStats(0, 0, created_ms=0)) == FileRoom(10, 500)
    assert FlushPolicy(count=None, size_bytes=500).room(FileStats(4, 120, created_ms=0)) == FileRoom(
        None, 380
    )
