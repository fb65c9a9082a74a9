"""Confluent's rotation rules (TopicPartitionWriter) and schema.compatibility, as pure rules."""

from __future__ import annotations

import pytest

from lakesink.domain.dialects.confluent.rotation import Cycle, RotationRules
from lakesink.domain.dialects.confluent.schemas import SWITCH, SchemaCompatibility
from lakesink.domain.errors import RecordError
from lakesink.domain.flush.rolls import RollReason

V1 = {"type": "record", "name": "v", "connect.version": 1, "fields": [{"name": "a", "type": "long"}]}
V2 = {
    "type": "record",
    "name": "v",
    "connect.version": 2,
    "fields": [{"name": "a", "type": "long"}, {"name": "b", "type": ["null", "string"], "default": None}],
}


def _never() -> bool:
    raise AssertionError("the schema verdict is asked only when the other rules keep the cycle")


def _place(cycle: Cycle, encoded: str, time_ms: int | None = None, schema: object = None) -> bool:
    """Confluent's order for one record: time, schema bookkeeping, rotate-before; then write. True: rotated before."""
    cycle.begin_record(time_ms)
    current, flip = cycle.file_schema(encoded, schema)
    rotated = cycle.rotates_before(
        encoded, time_ms, flip=flip, incompatible=lambda: SchemaCompatibility.NONE.incompatible(schema, current)
    )
    if rotated:
        cycle.rotated()
        _place(cycle, encoded, time_ms, schema)
    elif cycle.wrote(encoded):
        cycle.rotated()
    return rotated


def test_flush_size_counts_every_encoded_partition_together() -> None:
    cycle = Cycle(RotationRules(flush_size=3))
    assert [_place(cycle, e) for e in ("a", "b", "a")] == [False, False, False]
    assert cycle.count == 0  # the third record filled the cycle: rotated after it


def test_record_time_rotates_before_the_record_that_is_interval_past_the_cycle_base() -> None:
    cycle = Cycle(RotationRules(flush_size=100, rotate_interval_ms=1000, time_based=True))
    assert not _place(cycle, "a", 10_000)
    assert not _place(cycle, "a", 10_999)
    assert _place(cycle, "a", 11_000)
    assert cycle.base_ms == 11_000 and cycle.count == 1


def test_partition_change_rotates_only_with_rotate_interval_and_a_time_based_partitioner() -> None:
    periodic = Cycle(RotationRules(flush_size=100, rotate_interval_ms=60_000, time_based=True))
    assert [_place(periodic, e, 0) for e in ("a", "b", "b", "a")] == [False, True, False, True]
    default = Cycle(RotationRules(flush_size=100, rotate_interval_ms=60_000, time_based=False))
    assert [_place(default, e) for e in ("a", "b", "a")] == [False, False, False]
    off = Cycle(RotationRules(flush_size=100, rotate_interval_ms=60_000, time_based=True, on_partition_change=False))
    assert [_place(off, e, 0) for e in ("a", "b", "a")] == [False, False, False]


def test_moves_to_and_from_the_tombstone_partition_do_not_rotate() -> None:
    rules = RotationRules(flush_size=100, rotate_interval_ms=60_000, time_based=True, tombstone_partition="tombstone")
    cycle = Cycle(rules)
    assert [_place(cycle, e, 0) for e in ("a", "tombstone", "a", "b")] == [False, False, False, True]


def test_a_tombstone_after_a_value_in_the_same_encoded_partition_rotates() -> None:
    cycle = Cycle(RotationRules(flush_size=100))
    assert not _place(cycle, "a", schema=V1)
    assert _place(cycle, "a", schema=None)
    assert _place(cycle, "a", schema=V1)


def test_the_schema_verdict_is_not_asked_of_the_first_record_or_after_another_rule_rotated() -> None:
    cycle = Cycle(RotationRules(flush_size=100, rotate_interval_ms=10, time_based=True))
    cycle.begin_record(0)
    assert not cycle.rotates_before("a", 0, flip=False, incompatible=_never)
    cycle.wrote("a")
    cycle.begin_record(50)
    assert cycle.rotates_before("a", 50, flip=False, incompatible=_never)


def test_none_rotates_on_any_schema_difference() -> None:
    cycle = Cycle(RotationRules(flush_size=100))
    assert [_place(cycle, "a", schema=s) for s in (V1, V1, V2, V1)] == [False, False, True, True]


@pytest.mark.parametrize(
    ("mode", "incoming", "current", "rotates"),
    [
        (SchemaCompatibility.BACKWARD, V2, V1, True),  # newer: adopt it
        (SchemaCompatibility.BACKWARD, V1, V2, False),  # older: projected into V2
        (SchemaCompatibility.FULL, V2, V1, True),
        (SchemaCompatibility.FORWARD, V1, V2, True),  # older: adopt it
        (SchemaCompatibility.FORWARD, V2, V1, False),  # newer: projected into V1
        (SchemaCompatibility.NONE, V1, V1, False),
    ],
)
def test_compatibility_modes_compare_versions(
    mode: SchemaCompatibility, incoming: dict[str, object], current: dict[str, object], rotates: bool
) -> None:
    assert mode.incompatible(incoming, current) is rotates


def test_projection_fills_defaults_and_drops_unknown_fields() -> None:
    assert SchemaCompatibility.BACKWARD.project({"a": 1}, V1, V2) == {"a": 1, "b": None}
    assert SchemaCompatibility.FORWARD.project({"a": 1, "b": "x"}, V2, V1) == {"a": 1}
    assert SchemaCompatibility.NONE.project({"a": 1}, V1, V2) == {"a": 1}


def test_switching_between_schema_and_schemaless_data_or_missing_versions_fail_the_record() -> None:
    with pytest.raises(RecordError, match=SWITCH):
        SchemaCompatibility.NONE.incompatible(V1, None)
    unversioned = {**V2, "connect.version": None}
    with pytest.raises(RecordError, match="Schema version required for BACKWARD compatibility"):
        SchemaCompatibility.BACKWARD.incompatible(unversioned, V1)
    assert SchemaCompatibility.NONE.incompatible(unversioned, V1)


def test_a_rotation_before_a_record_says_why_for_the_metrics() -> None:
    cycle = Cycle(RotationRules(flush_size=100, rotate_interval_ms=1000, time_based=True))
    reasons = []
    for encoded, time_ms, schema in (("a", 0, V1), ("b", 10, V1), ("b", 2000, V1), ("b", 2001, None)):
        if _place(cycle, encoded, time_ms, schema):
            reasons.append(cycle.reason)
    assert reasons == [RollReason.PARTITION_VALUE, RollReason.INTERVAL, RollReason.SCHEMA_CHANGE]
