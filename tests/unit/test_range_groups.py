"""How a batch's ranges are shared out among its tasks."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.range_groups import TASKS_PER_CORE, range_groups


def _ranges(sizes: list[int], topic: str = "orders") -> list[OffsetRange]:
    return [OffsetRange(topic, partition, 0, size) for partition, size in enumerate(sizes)]


def test_no_ranges_make_no_tasks() -> None:
    assert range_groups([], cores=2) == []


def test_fewer_ranges_than_the_task_budget_keep_one_task_each() -> None:
    assert range_groups(_ranges([10, 20, 30]), cores=2) == [(2,), (1,), (0,)]


def test_many_ranges_are_written_by_a_few_tasks_per_core_balanced_by_size() -> None:
    ranges = _ranges([500] * 64)

    groups = range_groups(ranges, cores=2)

    assert len(groups) == 2 * TASKS_PER_CORE
    assert sorted(len(group) for group in groups) == [8] * 8
    assert sorted(index for group in groups for index in group) == list(range(64))


def test_one_large_range_gets_a_task_of_its_own_while_the_small_ones_share() -> None:
    groups = range_groups(_ranges([100_000] + [1_000] * 20), cores=1)

    assert (0,) in groups
    assert len(groups) == TASKS_PER_CORE


def test_ranges_of_one_partition_never_share_a_task_even_past_the_budget() -> None:
    chunks = [OffsetRange("orders", 0, start, start + 10) for start in range(0, 100, 10)]  # ten chunks of one partition

    groups = range_groups(chunks, cores=1)

    assert len(groups) == 10 and all(len(group) == 1 for group in groups)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 10_000)), min_size=1, max_size=200), st.integers(1, 16))
def test_every_range_is_written_once_and_no_task_holds_a_partition_twice(
    specs: list[tuple[int, int]], cores: int
) -> None:
    starts: dict[int, int] = {}
    ranges = []
    for partition, size in specs:
        start = starts.get(partition, 0)
        ranges.append(OffsetRange("orders", partition, start, start + size))
        starts[partition] = start + size

    groups = range_groups(ranges, cores)

    assert sorted(index for group in groups for index in group) == list(range(len(ranges)))
    for group in groups:
        assert list(group) == sorted(group)
        assert len({ranges[index].partition for index in group}) == len(group)
    assert len(groups) <= max(TASKS_PER_CORE * cores, *Counter(partition for partition, _ in specs).values())
