"""A batch's change records, read back from its objects (Lenses envelopes of Debezium events), reduced
to what a change table gets: the newest change of each key (docs/tables.md, "Change data").

Both table formats apply the result in one commit: Iceberg as a delete and an append, Delta as a merge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import pyarrow as pa
import pyarrow.compute as pc

from lakesink.domain.errors import CommitError
from lakesink.domain.tables.changes import ChangeAt, ChangeSpec, Op, change_op, newest_changes


@dataclass(frozen=True, slots=True)
class AppliedChanges:
    """What one batch does to the table: the keys whose rows go, and the rows that come (one per key)."""

    changed: list[tuple[object, ...]]
    """Every key the batch changed (upserted keys too: their old row goes)."""
    removed: list[tuple[object, ...]]
    """The keys whose newest change deletes them."""
    rows: pa.Table | None
    """The newest row of each upserted key; None when the batch upserts nothing."""
    skipped: int = 0
    """Changes that name no row (truncates)."""


def applied_changes(records: Sequence[pa.Table], spec: ChangeSpec, table_name: str) -> AppliedChanges:
    """The batch's change records (Lenses envelopes of Debezium events) reduced to what the table gets.

    Raises:
        CommitError: a record that is no change event, or lacks a key column (naming the record).
    """
    if not records or not sum(batch.num_rows for batch in records):
        return AppliedChanges([], [], None)
    changes = pa.concat_tables(records, promote_options="permissive")
    value = _struct_column(changes, "value", table_name)
    ops = [change_op(spec.format, op, partial(_where, changes, index, table_name))
           for index, op in enumerate(_field(value, "op").to_pylist())]
    skipped = ops.count(Op.SKIP)
    if skipped:  # a truncate names no key: it takes no part in the ordering
        kept = [index for index, op in enumerate(ops) if op is not Op.SKIP]
        changes, ops = changes.take(kept), [ops[index] for index in kept]
        value = _struct_column(changes, "value", table_name)
    metadata = changes.column("metadata").combine_chunks()
    after = _field(value, "after")
    key = changes.column("key").combine_chunks() if "key" in changes.column_names else None
    keys = _keys(spec.key_columns, (after, _field(value, "before"), key),
                 lambda index: _where(changes, index, table_name))
    source_ms = _field(value, "ts_ms").to_pylist()
    columns = [pc.struct_field(metadata, name).to_pylist() for name in ("topic", "partition", "offset", "timestamp")]
    places = [
        ChangeAt(topic, partition, offset, _millis(source), _millis(timestamp))
        for topic, partition, offset, timestamp, source in zip(*columns, source_ms, strict=True)
    ]
    newest = newest_changes(keys, places)
    upserted = [index for index in newest if ops[index] is Op.UPSERT]
    valid = after.is_valid().to_pylist()
    if (missing := next((index for index in upserted if not valid[index]), None)) is not None:
        raise CommitError(
            f"Change record {_where(changes, missing, table_name)} is a create or an update without 'after': the batch "
            "is not applied."
        )
    rows = pa.Table.from_struct_array(after.take(upserted)) if upserted else None
    removed = [keys[index] for index in newest if ops[index] is Op.DELETE]
    return AppliedChanges([keys[index] for index in newest], removed, rows, skipped)


def _where(changes: pa.Table, index: int, table_name: str) -> str:
    """The record at row ``index`` of the envelopes, for messages: ``topic-partition@offset (table name)``."""
    metadata = changes.column("metadata")[index].as_py() or {}
    return f"{metadata.get('topic')}-{metadata.get('partition')}@{metadata.get('offset')} (table {table_name})"


def _struct_column(changes: pa.Table, name: str, table_name: str) -> pa.Array:
    """The envelope's ``name`` column: structures, or all null (a batch of tombstones only)."""
    column = changes.column(name).combine_chunks()
    if not (pa.types.is_struct(column.type) or pa.types.is_null(column.type)):
        raise CommitError(
            f"Change table {table_name}: the record values are {column.type}, not Debezium change events: read them "
            "with a converter that gives structures (JSON or Avro), and check 'table.change.format'."
        )
    return column


def _field(struct: pa.Array, name: str) -> pa.Array:
    """A field of each row (null where the row is null); a field no row has is all null."""
    if not _has(struct, name):
        return pa.nulls(len(struct))
    return pc.struct_field(struct, name)


def _keys(
    columns: Sequence[str], sources: Sequence[pa.Array | None], where: Callable[[int], str]
) -> list[tuple[object, ...]]:
    """Each change's key: every key column from the first of ``sources`` (the row after, the row
    before, the record key) that holds it.

    Raises:
        CommitError: a change none of them gives a key column's value, naming the record.
    """
    values = []
    for column in columns:
        found = [_field(source, column) for source in sources if source is not None and _has(source, column)]
        merged = _coalesced(found) if found else None
        if merged is None or merged.null_count:
            missing = 0 if merged is None else pc.index(pc.is_null(merged), True).as_py()
            raise CommitError(
                f"Change record {where(missing)} has no value for key column {column!r} (in 'after', 'before' or the "
                "record key): the batch is not applied. Check 'table.key', and that the source emits the key columns."
            )
        values.append(merged.to_pylist())
    return list(zip(*values, strict=True))


def _has(source: pa.Array, column: str) -> bool:
    return pa.types.is_struct(source.type) and source.type.get_field_index(column) >= 0


def _coalesced(arrays: Sequence[pa.Array]) -> pa.Array:
    """The first non-null of ``arrays`` per row, in the first one's type (a key read as a long in the
    row and as an int in the record key is one key)."""
    first = arrays[0]
    return pc.coalesce(*(array.cast(first.type) for array in arrays)) if len(arrays) > 1 else first


def _millis(value: object) -> int | None:
    """A time as epoch milliseconds: Debezium's ``ts_ms`` is a number, the envelope's timestamp too."""
    return value if isinstance(value, int) else None
