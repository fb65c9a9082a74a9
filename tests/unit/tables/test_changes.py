"""Which change of each key a batch applies (the ordering rule of docs/tables.md, "Change data"),
and what Debezium's operations do."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import CommitError
from lakesink.domain.tables.changes import ChangeAt, ChangeFormat, Op, change_op, newest_changes


def _at(partition: int, offset: int, source_ms: int | None = None, timestamp_ms: int | None = None) -> ChangeAt:
    return ChangeAt("t", partition, offset, source_ms, timestamp_ms)


def test_within_a_partition_the_highest_offset_wins_whatever_the_times_say() -> None:
    places = [_at(0, 5, source_ms=300), _at(0, 9, source_ms=100), _at(0, 7, source_ms=900)]
    assert newest_changes(["k", "k", "k"], places) == [1]


def test_across_partitions_the_newest_source_time_wins_then_the_kafka_timestamp() -> None:
    keys = ["a", "a", "b", "b"]
    places = [_at(3, 50, source_ms=100), _at(0, 1, source_ms=200), _at(1, 4, 500, 20), _at(2, 3, 500, 10)]
    assert sorted(newest_changes(keys, places)) == [1, 2]


def test_without_any_time_the_greater_partition_decides_so_a_replay_decides_the_same() -> None:
    places = [_at(2, 0), _at(1, 0)]
    assert newest_changes([("x", 1), ("x", 1)], places) == [0]
    assert newest_changes([("x", 1), ("x", 1)], list(reversed(places))) == [1]


def test_each_key_keeps_one_change_in_first_seen_order() -> None:
    keys = ["a", "b", "a", "c", "b"]
    places = [_at(0, offset) for offset in range(5)]
    assert newest_changes(keys, places) == [2, 4, 3]


def test_the_same_partition_number_of_two_topics_is_two_partitions() -> None:
    places = [ChangeAt("orders", 0, 9, 100, None), ChangeAt("returns", 0, 1, 200, None)]
    assert newest_changes(["k", "k"], places) == [1]


@pytest.mark.parametrize(
    ("op", "applied"),
    [("c", Op.UPSERT), ("r", Op.UPSERT), ("u", Op.UPSERT), ("d", Op.DELETE), (None, Op.DELETE), ("t", Op.SKIP)],
)
def test_debezium_operations(op: str | None, applied: Op) -> None:
    assert change_op(ChangeFormat.DEBEZIUM, op, lambda: "t-0@1") is applied


def test_an_operation_debezium_does_not_write_names_the_record() -> None:
    with pytest.raises(CommitError, match=r"Change record t-0@1 has op 'x'"):
        change_op(ChangeFormat.DEBEZIUM, "x", lambda: "t-0@1")
