"""Splitting one partition's range into chunks: pure, covering, prefix-stable, keeping pinned chunks whole."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.adapters.kafka.offsets import (
    FIRST_BATCH_CHUNKS,
    chunks_from_json,
    chunks_to_json,
    ranges_between,
    split_for_min_partitions,
)
from lakesink.adapters.kafka.source_options import SourceOptions
from lakesink.domain.commit.chunks import chunk_bounds
from lakesink.domain.errors import ConfigError
from lakesink.domain.offset_range import OffsetRange

offsets = st.integers(min_value=0, max_value=5_000)
sizes = st.one_of(st.none(), st.integers(min_value=0, max_value=700))


@st.composite
def _pinned(draw: st.DrawFn) -> list[tuple[int, int]]:
    """Disjoint chunks anywhere in [0, 10000), as plans of one crashed batch are."""
    bounds = sorted(set(draw(st.lists(st.integers(min_value=0, max_value=10_000), max_size=10))))
    pairs = list(zip(bounds[::2], bounds[1::2], strict=False))
    return [pair for pair in pairs if draw(st.booleans())]


@given(start=offsets, length=st.integers(min_value=0, max_value=5_000), size=sizes, pinned=_pinned())
def test_chunks_cover_the_range_exactly_once_in_order(
    start: int, length: int, size: int | None, pinned: list[tuple[int, int]]
) -> None:
    chunks = chunk_bounds(start, start + length, size, pinned)

    covered = [offset for lo, hi in chunks for offset in range(lo, hi)]
    assert covered == list(range(start, start + length))
    assert all(lo < hi for lo, hi in chunks)
    if size:
        # only a pinned chunk (clipped to the range) may be longer than the size
        assert all(hi - lo <= size or any(p <= lo and hi <= q for p, q in pinned) for lo, hi in chunks)


@given(start=offsets, length=st.integers(min_value=1, max_value=5_000), size=sizes, pinned=_pinned())
def test_every_pinned_chunk_inside_the_range_comes_out_whole(
    start: int, length: int, size: int | None, pinned: list[tuple[int, int]]
) -> None:
    chunks = chunk_bounds(start, start + length, size, pinned)

    inside = [(lo, hi) for lo, hi in pinned if start <= lo and hi <= start + length]
    assert set(inside) <= set(chunks)


@given(start=offsets, length=st.integers(min_value=0, max_value=5_000),
       more=st.integers(min_value=0, max_value=5_000), size=st.integers(min_value=1, max_value=700))
def test_chunking_is_prefix_stable_so_a_longer_replan_keeps_the_full_chunks(
    start: int, length: int, more: int, size: int
) -> None:
    short = chunk_bounds(start, start + length, size)
    longer = chunk_bounds(start, start + length + more, size)

    full = [chunk for chunk in short if chunk[1] - chunk[0] == size]
    assert longer[: len(full)] == full


def test_chunks_are_counted_from_the_range_start() -> None:
    assert chunk_bounds(10, 35, 10) == [(10, 20), (20, 30), (30, 35)]
    assert chunk_bounds(10, 35, 10, pinned=[(13, 27), (30, 99)]) == [(10, 13), (13, 27), (27, 30), (30, 35)]
    assert chunk_bounds(10, 45, 5, pinned=[(13, 27)]) == [
        (10, 13), (13, 27), (27, 32), (32, 37), (37, 42), (42, 45)
    ]
    assert chunk_bounds(10, 35, 0) == [(10, 35)]
    assert chunk_bounds(10, 10, 5) == []


def test_ranges_between_splits_each_partition_and_keeps_a_stable_order() -> None:
    start = {("t", 1): 0, ("t", 0): 5, ("t", 2): 3}
    end = {("t", 0): 12, ("t", 1): 4, ("t", 2): 3, ("t", 3): 0}

    ranges = ranges_between(start, end, max_offsets=4, pinned={("t", 0): ((6, 11),)})

    assert ranges == [
        OffsetRange("t", 0, 5, 6), OffsetRange("t", 0, 6, 11), OffsetRange("t", 0, 11, 12),
        OffsetRange("t", 1, 0, 4),
    ]


def test_pinned_chunks_round_trip_through_their_json_form() -> None:
    chunks = {("b", 1): ((7, 9), (3, 5)), ("a", 0): ((0, 1),)}

    document = chunks_to_json(chunks)

    assert document == {"a": {"0": [[0, 1]]}, "b": {"1": [[3, 5], [7, 9]]}}
    assert chunks_from_json(document, setting=FIRST_BATCH_CHUNKS) == {
        ("a", 0): ((0, 1),), ("b", 1): ((3, 5), (7, 9))
    }


@pytest.mark.parametrize("document", [[], {"t": [[1, 2]]}, {"t": {"0": 5}}, {"t": {"0": [[-1, 2]]}},
                                      {"t": {"0": [[3, 3]]}}, {"t": {"0": [[1, 2, 3]]}}, {"t": {"x": [[1, 2]]}},
                                      {"t": {"0": [[True, 2]]}}])
def test_malformed_pinned_chunks_are_a_config_error_naming_the_option(document: object) -> None:
    with pytest.raises(ConfigError, match=FIRST_BATCH_CHUNKS):
        chunks_from_json(document, setting=FIRST_BATCH_CHUNKS)  # type: ignore[arg-type]


def test_source_options_carry_the_split_size_and_the_first_batch_split_offsets() -> None:
    options = SourceOptions.parse(
        {"kafka.bootstrap.servers": "b:1", "subscribe": "t", "maxRangeOffsets": "1000",
         "firstBatchChunks": '{"t": {"0": [[40, 50], [10, 20]]}}'}
    )

    assert options.max_range_offsets == 1000
    assert options.first_batch_chunks == ((("t", 0), ((10, 20), (40, 50))),)


@pytest.mark.parametrize("options", [{"maxRangeOffsets": "0"}, {"maxRangeOffsets": "x"},
                                     {"firstBatchChunks": "{oops"}])
def test_invalid_split_options_are_a_config_error_naming_the_option(options: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match=next(iter(options))):
        SourceOptions.parse({"kafka.bootstrap.servers": "b:1", "subscribe": "t", **options})


def test_min_partitions_splits_large_ranges_in_proportion_and_leaves_small_ones_whole() -> None:
    ranges = [OffsetRange("t", 0, 0, 100), OffsetRange("t", 1, 50, 60), OffsetRange("t", 2, 7, 7)]

    split = split_for_min_partitions(ranges, 5)

    assert [r.describe() for r in split] == [
        "t-0[0, 25)", "t-0[25, 50)", "t-0[50, 75)", "t-0[75, 100)", "t-1[50, 60)"
    ]


def test_min_partitions_changes_nothing_when_there_are_enough_ranges() -> None:
    ranges = [OffsetRange("t", 0, 0, 100), OffsetRange("t", 1, 0, 1)]

    assert split_for_min_partitions(ranges, 2) == ranges
    assert split_for_min_partitions(ranges, None) == ranges
