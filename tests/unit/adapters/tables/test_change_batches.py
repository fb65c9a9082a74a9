"""A batch's change records (Lenses envelopes of Debezium events, as Arrow tables read from its
objects) reduced to what the change table gets: the keys to delete and the rows to append."""

from __future__ import annotations

import pyarrow as pa
import pytest

from lakesink.adapters.tables.change_batches import applied_changes
from lakesink.domain.errors import CommitError
from lakesink.domain.tables.changes import ChangeFormat, ChangeSpec

SPEC = ChangeSpec(ChangeFormat.DEBEZIUM, ("id",))
ROW = pa.struct([("id", pa.int64()), ("name", pa.string())])
VALUE = pa.struct([("before", ROW), ("after", ROW), ("op", pa.string()), ("ts_ms", pa.int64())])
METADATA = pa.struct([("timestamp", pa.int64()), ("topic", pa.string()), ("partition", pa.int32()), ("offset", pa.int64())])


def _envelopes(changes: list[tuple[dict[str, object] | None, dict[str, object] | None, int, int]]) -> pa.Table:
    """One envelope per (record key, value, partition, offset)."""
    return pa.table({
        "key": pa.array([key for key, _, _, _ in changes], pa.struct([("id", pa.int32())])),
        "value": pa.array([value for _, value, _, _ in changes], VALUE),
        "metadata": pa.array(
            [{"timestamp": 1_000 + offset, "topic": "t", "partition": partition, "offset": offset}
             for _, _, partition, offset in changes], METADATA),
    })


def _event(op: str, before: dict[str, object] | None, after: dict[str, object] | None) -> dict[str, object]:
    return {"before": before, "after": after, "op": op, "ts_ms": None}


def test_each_key_ends_with_its_newest_change_deleted_keys_have_no_row() -> None:
    batch = _envelopes([
        ({"id": 1}, _event("c", None, {"id": 1, "name": "a"}), 0, 0),
        ({"id": 2}, _event("c", None, {"id": 2, "name": "b"}), 0, 1),
        ({"id": 1}, _event("u", {"id": 1, "name": "a"}, {"id": 1, "name": "a2"}), 0, 2),
        ({"id": 2}, _event("d", {"id": 2, "name": "b"}, None), 0, 3),
        ({"id": 2}, None, 0, 4),  # the tombstone after the delete
    ])
    applied = applied_changes([batch], SPEC, "s.t")
    assert sorted(applied.changed) == [(1,), (2,)]
    assert applied.removed == [(2,)]
    assert applied.rows is not None and applied.rows.to_pylist() == [{"id": 1, "name": "a2"}]


def test_a_batch_of_tombstones_only_deletes_the_record_keys() -> None:
    batch = pa.table({
        "key": pa.array([{"id": 7}], pa.struct([("id", pa.int64())])),
        "value": pa.nulls(1),
        "metadata": pa.array([{"timestamp": 1, "topic": "t", "partition": 0, "offset": 9}], METADATA),
    })
    applied = applied_changes([batch], SPEC, "s.t")
    assert (applied.changed, applied.rows) == ([(7,)], None)


def test_a_change_without_its_key_column_names_the_record() -> None:
    batch = _envelopes([(None, _event("c", None, {"id": None, "name": "x"}), 2, 41)])
    with pytest.raises(CommitError, match=r"Change record t-2@41 \(table s.t\) has no value for key column 'id'"):
        applied_changes([batch], SPEC, "s.t")


def test_values_that_are_not_structures_are_refused_naming_the_converter() -> None:
    batch = pa.table({"value": pa.array(["{}"]), "metadata": pa.array(
        [{"timestamp": 1, "topic": "t", "partition": 0, "offset": 0}], METADATA)})
    with pytest.raises(CommitError, match="not Debezium change events: read them with a converter"):
        applied_changes([batch], SPEC, "s.t")


def test_a_truncate_names_no_key_it_is_counted_and_not_applied() -> None:
    batch = _envelopes([
        (None, _event("t", None, None), 0, 0),
        ({"id": 3}, _event("c", None, {"id": 3, "name": "c"}), 0, 1),
    ])
    applied = applied_changes([batch], SPEC, "s.t")
    assert (applied.changed, applied.skipped) == ([(3,)], 1)
    assert applied.rows is not None and applied.rows.num_rows == 1


def test_an_empty_batch_changes_nothing() -> None:
    assert applied_changes([], SPEC, "s.t").changed == []
