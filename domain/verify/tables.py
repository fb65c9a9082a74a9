"""A change table compared with its change log: the rows a table holds against the newest change of
every key the log keeps up to the table's mark (docs/verify.md, "Change tables").

The offsets check proves the log whole; this proves the table is what applying that log makes it.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from lakesink.domain.records import TopicPartition

FINDINGS = ("missing", "deleted", "unknown", "differing", "repeated")
"""The kinds of wrong rows a :class:`TableCheck` names, each a field of it."""

Key = tuple[Hashable, ...]
Row = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class LogObject:
    """One object of a change table's log: where it is and whose records it holds."""

    bucket: str
    key: str
    topic_partition: TopicPartition


@dataclass(frozen=True, slots=True)
class TableCheck:
    """What comparing one change table with its change log found.

    Attributes:
        table: the table as users name it.
        rows: the rows the table holds (None: not read, see ``error``).
        keys: the keys the change log leaves alive (their newest change is no delete).
        changes: the change records of the log up to the table's mark.
        marked: the table's mark, the last offset of each topic-partition it holds.
        missing: keys the log leaves alive whose row the table lacks.
        deleted: keys whose newest change deletes them but whose row the table still holds.
        unknown: rows whose key no change of the log names.
        differing: keys whose row differs from their newest change (each with the first column that does).
        repeated: keys the table holds more than one row of.
        error: why the table was not compared (no table yet, or it could not be read).
    """

    table: str
    rows: int | None = None
    keys: int = 0
    changes: int = 0
    marked: Mapping[TopicPartition, int] | None = None
    missing: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    differing: tuple[str, ...] = ()
    repeated: tuple[str, ...] = ()
    error: str | None = None

    @property
    def problems(self) -> int:
        """Keys whose row is not what the log makes it (an unread table counts as one problem)."""
        found = sum(len(getattr(self, kind)) for kind in FINDINGS)
        return found + (1 if self.error is not None else 0)


def compare_rows(
    table: str,
    expected: Mapping[Key, Row],
    removed: Iterable[Key],
    held: Sequence[tuple[Key, Row]],
    *,
    changes: int,
    marked: Mapping[TopicPartition, int],
) -> TableCheck:
    """The table's rows ``held`` (each with its key) against the newest row of every key the log keeps
    (``expected``) and the keys whose newest change deletes them (``removed``).

    A column the table has and a key's newest row lacks (a column added by a later change of another
    key) must be null in that key's row: the sink writes the newest row whole.
    """
    gone = set(removed)
    seen: dict[Key, Row] = {}
    repeated: list[Key] = []
    deleted: list[Key] = []
    unknown: list[Key] = []
    differing: list[str] = []
    for key, row in held:
        if key in seen:
            repeated.append(key)
            continue
        seen[key] = row
        if key in gone:
            deleted.append(key)
        elif key not in expected:
            unknown.append(key)
        elif (column := first_difference(expected[key], row)) is not None:
            differing.append(f"{shown(key)} (column {column}: table {row.get(column)!r}, log {expected[key].get(column)!r})")
    missing = [key for key in expected if key not in seen]
    return TableCheck(
        table=table,
        rows=len(held),
        keys=len(expected),
        changes=changes,
        marked=dict(marked),
        missing=_shown_all(missing),
        deleted=_shown_all(deleted),
        unknown=_shown_all(unknown),
        differing=tuple(differing),
        repeated=_shown_all(dict.fromkeys(repeated)),
    )


def first_difference(newest: Row, row: Row) -> str | None:
    """The first column (in the table's order) whose value in ``row`` is not the newest change's;
    None when they agree (a column the change lacks must be null)."""
    for column in (*row, *(c for c in newest if c not in row)):
        if not _same(newest.get(column), row.get(column)):
            return column
    return None


def shown(key: Key) -> str:
    """A key as a report shows it: its one value, or its values in key-column order."""
    return repr(key[0]) if len(key) == 1 else repr(key)


def _shown_all(keys: Iterable[Key]) -> tuple[str, ...]:
    return tuple(shown(key) for key in keys)


def _same(left: object, right: object) -> bool:
    """Equal values, NaN equal to NaN (a float column's NaN is a value the table keeps)."""
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left) and math.isnan(right):
        return True
    return left == right
