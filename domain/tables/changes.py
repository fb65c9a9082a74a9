"""Change data applied to a table: which change of each key a batch applies, and what a change does.

A change table (``'table.change.format'``, ``'table.key'``) keeps the change records as its objects
and applies them as upserts and deletes by key. The ordering rule: offset order within a
topic-partition; across partitions of one batch, the newest source time (Debezium's ``ts_ms``), then
the newest Kafka timestamp; batches apply in commit order (docs/tables.md, "Change data").
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from enum import Enum

from lakesink.domain.errors import CommitError


class ChangeFormat(Enum):
    """How a record says what changed (KCQL ``'table.change.format'``)."""

    DEBEZIUM = "DEBEZIUM"
    """Debezium's envelope: ``op`` (``c`` create, ``r`` snapshot read, ``u`` update, ``d`` delete, ``t``
    truncate), ``before`` and ``after`` (the row), ``ts_ms``; a tombstone (no value) deletes its key."""


@dataclass(frozen=True, slots=True)
class ChangeSpec:
    """A change table's format and key columns (the columns that identify a row of the table)."""

    format: ChangeFormat
    key_columns: tuple[str, ...]


class Op(Enum):
    """What one change does to its key's row."""

    UPSERT = "upsert"
    DELETE = "delete"
    SKIP = "skip"
    """A change that touches no row by key (a truncate): logged, not applied."""


_DEBEZIUM_OPS = {"c": Op.UPSERT, "r": Op.UPSERT, "u": Op.UPSERT, "d": Op.DELETE, "t": Op.SKIP, None: Op.DELETE}
"""Debezium's ``op`` values; None is a tombstone (a record without a value)."""


def change_op(change_format: ChangeFormat, op: str | None, where: Callable[[], str]) -> Op:
    """What a change of ``change_format`` whose operation field holds ``op`` does.

    Raises:
        CommitError: an operation the format does not write, naming the record ``where()`` says
            (asked only then: it is read from the batch's rows).
    """
    return _OPS[change_format](op, where)


def debezium_op(op: str | None, where: Callable[[], str]) -> Op:
    """What Debezium's ``op`` (None: a tombstone) does.

    Raises:
        CommitError: an ``op`` Debezium does not write, naming the record ``where()`` says.
    """
    try:
        return _DEBEZIUM_OPS[op]
    except KeyError:
        raise CommitError(
            f"Change record {where()} has op {op!r}, which is no Debezium operation (c, r, u, d, t): the batch is not "
            "applied. Route records that are not Debezium change events to another statement."
        ) from None


_OPS = {ChangeFormat.DEBEZIUM: debezium_op}


@dataclass(frozen=True, slots=True)
class ChangeAt:
    """Where a change sits and its source time: what orders it against the other changes of its key."""

    topic: str
    partition: int
    offset: int
    source_ms: int | None
    """Debezium's ``ts_ms`` (when the connector saw the change); None when the record has none."""
    timestamp_ms: int | None
    """The Kafka record's timestamp."""


def newest_changes(keys: Sequence[Hashable], places: Sequence[ChangeAt]) -> list[int]:
    """The index of the change each key ends with, in first-seen order of the keys: the highest
    offset of each (key, topic-partition), then across partitions the newest source time, then the
    newest Kafka timestamp, then the greater topic and partition (a rule, so that a replay decides
    the same)."""
    per_partition: dict[tuple[Hashable, str, int], int] = {}
    for index, (key, place) in enumerate(zip(keys, places, strict=True)):
        slot = (key, place.topic, place.partition)
        kept = per_partition.get(slot)
        if kept is None or places[kept].offset < place.offset:
            per_partition[slot] = index
    newest: dict[Hashable, int] = {}
    for (key, _topic, _partition), index in per_partition.items():
        kept = newest.get(key)
        if kept is None or _order(places[kept]) < _order(places[index]):
            newest[key] = index
    return list(newest.values())


def _order(place: ChangeAt) -> tuple[int, int, str, int]:
    return (
        place.source_ms if place.source_ms is not None else -1,
        place.timestamp_ms if place.timestamp_ms is not None else -1,
        place.topic,
        place.partition,
    )
