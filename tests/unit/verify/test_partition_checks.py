"""The pure checks of one topic-partition: gaps, duplicates, orphans and pending objects from claims and facts."""

from __future__ import annotations

from lakesink.domain.commit.range_plans import RangePlan
from lakesink.domain.verify.check import PartitionFacts, check_partition
from lakesink.domain.verify.claims import Evidence, KeyOffset, key_claim, read_claim, unproven_claim


def _last(key_offset: int, records: int) -> object:
    return key_claim(
        f"t/0/{key_offset:012d}.json", key_offset, KeyOffset.LAST, records, evidence=Evidence.KEY_AND_COUNT
    )


def _facts(
    committed: int | None = None,
    *,
    indexed: bool = True,
    plans: tuple[RangePlan, ...] = (),
    end: int | None = None,
) -> PartitionFacts:
    return PartitionFacts(
        "t", 0, "b", indexed, committed, plans, topic_start=0 if end is not None else None, topic_end=end
    )


def test_consecutive_files_up_to_the_lock_are_clean_and_the_lag_is_the_rest_of_the_topic() -> None:
    check = check_partition(_facts(29, end=35), [_last(9, 10), _last(19, 10), _last(29, 10)])
    assert (check.gaps, check.duplicates, check.orphans, check.pending) == ((), (), (), ())
    assert (check.first_stored, check.last_stored, check.objects, check.records, check.lag) == (
        0,
        29,
        3,
        30,
        5,
    )
    assert check.problems == 0 and check.evidence == (Evidence.KEY_AND_COUNT,)


def test_a_missing_file_is_a_gap_and_so_is_a_missing_tail_below_the_lock() -> None:
    check = check_partition(_facts(39), [_last(9, 10), _last(29, 10)])
    assert check.gaps == ((10, 19), (30, 39))


def test_a_file_copied_under_another_offset_is_a_duplicate_naming_both_objects() -> None:
    check = check_partition(_facts(19), [_last(9, 10), _last(19, 10), _last(14, 10)])
    assert [(d.first, d.last) for d in check.duplicates] == [(5, 9), (10, 14)]
    assert "t/0/000000000014.json" in check.duplicates[0].keys
    assert check.first_stored == 0  # offsets below 0 cannot be claimed


def test_objects_beyond_the_lock_are_orphans_unless_a_pending_plan_covers_them() -> None:
    plan = RangePlan("run", 20, 29)
    check = check_partition(
        _facts(19, plans=(plan,)), [_last(9, 10), _last(19, 10), _last(24, 5), _last(29, 5), _last(35, 6)]
    )
    assert [b.key for b in check.pending] == ["t/0/000000000024.json", "t/0/000000000029.json"]
    assert all(b.plan == plan for b in check.pending)
    assert [(b.first, b.last) for b in check.orphans] == [(30, 35)]
    assert check.gaps == () and check.problems == 1


def test_a_plan_at_or_below_the_lock_covers_nothing() -> None:
    check = check_partition(_facts(19, plans=(RangePlan("old", 10, 25),)), [_last(19, 20), _last(25, 6)])
    assert [b.key for b in check.orphans] == ["t/0/000000000025.json"] and check.pending == ()


def test_without_a_lock_every_object_of_an_exactly_once_sink_is_beyond_it() -> None:
    plan = RangePlan("run", 0, 9)
    check = check_partition(_facts(None, plans=(plan,)), [_last(9, 10)])
    assert [b.key for b in check.pending] == ["t/0/000000000009.json"] and check.gaps == ()


def test_a_lock_with_nothing_stored_below_it_misses_at_least_its_own_offset() -> None:
    assert check_partition(_facts(41), []).gaps == ((41, 41),)


def test_at_least_once_checks_up_to_the_last_stored_offset_and_has_no_orphans() -> None:
    check = check_partition(
        _facts(indexed=False, end=50), [_last(9, 10), _last(29, 10), _last(39, 10), _last(39, 10)]
    )
    assert check.gaps == ((10, 19),)
    assert [(d.first, d.last) for d in check.duplicates] == [(30, 39)]
    assert check.orphans == () and check.lag == 10


def test_offsets_read_from_interleaved_files_prove_each_offset() -> None:
    east = read_claim("k=east/t(0_8).json", 8, [0, 2, 4, 6, 8])
    west = read_claim("k=west/t(0_9).json", 9, [1, 3, 5, 9, 9])
    check = check_partition(_facts(9), [east, west])
    assert check.gaps == ((7, 7),)
    assert [(d.first, d.last) for d in check.duplicates] == [(9, 9)]
    assert check.evidence == (Evidence.READ,)


def test_first_offset_keys_claim_forward_from_the_key() -> None:
    first = key_claim("t+0+0000000010.json", 10, KeyOffset.FIRST, 5, evidence=Evidence.KEY_AND_COUNT)
    assert first.runs == ((10, 14),) and (first.lowest, first.highest) == (10, 14)


def test_unproven_files_are_checked_for_orphans_only() -> None:
    check = check_partition(
        _facts(20), [unproven_claim("a/t(0_12).json", 12, 3), unproven_claim("b/t(0_25).json", 25, 2)]
    )
    assert check.gaps == () and check.duplicates == ()
    assert [b.key for b in check.orphans] == ["b/t(0_25).json"]
    assert check.records == 5
