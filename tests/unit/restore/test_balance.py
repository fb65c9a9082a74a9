"""Origins spread over task slots by bytes, not by hash luck."""

from __future__ import annotations

from lakesink.domain.restore.balance import balanced_groups


def test_equal_origins_split_evenly_over_the_slots() -> None:
    groups = balanced_groups([100] * 8, 2)
    assert sorted(len(group) for group in groups) == [4, 4]
    assert sorted(index for group in groups for index in group) == list(range(8))


def test_the_largest_origin_gets_a_slot_of_its_own() -> None:
    groups = balanced_groups([10, 10, 10, 30], 2)
    assert sorted(groups) == [[0, 1, 2], [3]]


def test_fewer_origins_than_slots_gives_one_group_per_origin_and_no_empty_group() -> None:
    assert sorted(balanced_groups([5, 7], 8)) == [[0], [1]]
    assert balanced_groups([], 4) == []


def test_each_group_keeps_the_driver_order_of_its_origins() -> None:
    for group in balanced_groups([3, 9, 1, 7, 5, 5, 2, 8], 3):
        assert group == sorted(group)
