"""What a restart derives from the uncommitted plans of a batch split into chunks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.commit.chunks import chunk_bounds
from lakesink.domain.commit.range_plans import (
    RangePlan,
    check_existing_plan,
    decode_plan,
    encode_plan,
    obsolete_plan_starts,
    pending_plans,
    replay_chunks,
    replay_clock,
    replay_end,
    unreproducible,
)
from lakesink.domain.errors import CommitConflictError, CommitError


def test_pending_plans_are_every_plan_above_the_committed_offset_in_start_order() -> None:
    plans = [RangePlan("r", 30, 39), RangePlan("r", 0, 9), RangePlan("r", 12, 19)]

    assert pending_plans(plans, 9) == (RangePlan("r", 12, 19), RangePlan("r", 30, 39))
    assert pending_plans(plans, None) == tuple(sorted(plans, key=lambda plan: plan.start))
    assert pending_plans(plans, 39) == ()


def test_the_replay_holds_a_chunk_from_each_plan_start_to_its_last_and_ends_after_the_highest() -> None:
    plans = (RangePlan("r", 30, 39), RangePlan("r", 12, 19), RangePlan("r", 20, 27))

    assert replay_chunks(plans) == ((12, 20), (20, 28), (30, 40))
    assert replay_end(plans) == 40
    assert replay_end(()) is None


def test_plan_gc_takes_every_chunk_plan_the_commit_covers() -> None:
    assert obsolete_plan_starts([0, 10, 20, 30], committed_offset=29) == (0, 10, 20)


@st.composite
def _crashed_batch(draw: st.DrawFn) -> tuple[list[tuple[int, int]], list[RangePlan]]:
    """Chunks of a batch split by some size, and plans of a subset, each inside its chunk."""
    size = draw(st.integers(min_value=1, max_value=50))
    chunks = chunk_bounds(0, draw(st.integers(min_value=1, max_value=400)), size)
    plans = []
    for lo, hi in chunks:
        if draw(st.booleans()):
            start = draw(st.integers(min_value=lo, max_value=hi - 1))
            plans.append(RangePlan("r", start, draw(st.integers(min_value=start, max_value=hi - 1))))
    return chunks, plans


@given(batch=_crashed_batch(), new_size=st.integers(min_value=0, max_value=60))
def test_a_replay_with_any_split_size_has_a_chunk_from_each_plan_start_to_its_last(
    batch: tuple[list[tuple[int, int]], list[RangePlan]], new_size: int
) -> None:
    chunks, plans = batch
    end = replay_end(plans) or chunks[-1][1]

    replayed = chunk_bounds(0, end, new_size, replay_chunks(plans))

    for plan in plans:
        assert (plan.start, plan.last + 1) in replayed


def test_a_plan_without_a_batch_clock_keeps_its_bytes_and_one_with_a_clock_round_trips() -> None:
    plain = RangePlan("run", 5, 9)
    assert encode_plan(plain) == b'{"owner":"run","start":5,"last":9}'
    clocked = RangePlan("run", 5, 9, clock_ms=1_709_622_000_123)
    assert encode_plan(clocked) == b'{"owner":"run","start":5,"last":9,"clock":1709622000123}'
    assert decode_plan(encode_plan(clocked), key="k") == clocked
    assert decode_plan(encode_plan(plain), key="k") == plain


def test_a_plan_replayed_at_another_batch_clock_is_a_conflict_before_any_upload() -> None:
    check_existing_plan(RangePlan("a", 5, 9, 100), RangePlan("b", 5, 9, 100), where="w")
    with pytest.raises(CommitConflictError, match="batch clock 100 .* replays it at 200"):
        check_existing_plan(RangePlan("a", 5, 9, 100), RangePlan("b", 5, 9, 200), where="w")


def test_the_replay_clock_is_the_one_the_pending_plans_recorded() -> None:
    assert replay_clock([RangePlan("a", 0, 3), RangePlan("a", 4, 7)]) is None
    assert replay_clock([RangePlan("a", 0, 3, 42), RangePlan("a", 4, 7, 42)]) == 42


def test_a_plan_lists_its_objects_for_a_roll_back_and_an_old_plan_without_them_still_reads() -> None:
    listed = RangePlan("run", 5, 9, objects=(("lake", "out/a.json"), ("lake", "out/b.json")))
    assert encode_plan(listed) == (
        b'{"owner":"run","start":5,"last":9,"objects":[["lake","out/a.json"],["lake","out/b.json"]]}'
    )
    assert decode_plan(encode_plan(listed), key="k") == listed
    assert decode_plan(b'{"owner":"run","start":5,"last":9}', key="k").objects is None


def test_a_malformed_object_list_names_the_plan() -> None:
    with pytest.raises(CommitError, match="Malformed batch plan k"):
        decode_plan(b'{"owner":"run","start":5,"last":9,"objects":[["lake",3]]}', key="k")


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (10, 20, ()),  # holds the whole plan
        (0, 10, ()),  # ends before the plan: left for a later batch
        (20, 30, ()),  # starts after it
        (0, 15, ((10, 19),)),  # ends inside it
        (12, 30, ((10, 19),)),  # starts inside it
        (12, 15, ((10, 19),)),  # inside it
    ],
)
def test_a_range_that_overlaps_a_plan_without_holding_it_whole_cannot_reproduce_it(
    start: int, end: int, expected: tuple[tuple[int, int], ...]
) -> None:
    found = unreproducible([RangePlan("run", 10, 19)], start, end)
    assert tuple((plan.start, plan.last) for plan in found) == expected
