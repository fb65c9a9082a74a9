"""Apply ``schema.change.detector`` and ``latest.schema.optimization.enabled`` to one range's records.

The rules are :func:`lakesink.domain.flush.schema_change.place`'s; this keeps what they need
between records (the newest declared schema, each open file's first and last) and adapts a value
written with another schema than its own. Only values that declare a schema, in formats that roll
on one, take part. See docs/formats.md, "Values and schemas".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from lakesink.domain.errors import FormatError
from lakesink.domain.flush.schema_change import SchemaRules, place
from lakesink.domain.formats import Format
from lakesink.domain.records import Record
from lakesink.domain.schema import Schema, adapt, schema_for

_CACHE_SIZE = 16


@dataclass(frozen=True, slots=True)
class FileSchemas:
    """The declared schemas of an open file's first and last records."""

    first: Schema
    last: Schema


@dataclass(frozen=True, slots=True)
class Step:
    """What to write for one record.

    Attributes:
        roll: roll the open file first.
        record: the record to write (adapted to the file's schema when it stays in the file).
        fresh: the record for a new file (adapted to the newest schema at most), used when
            the writer still refuses ``record`` and the file rolls after all.
        declared: the declared schema the file remembers (None: the record declares none).
    """

    roll: bool
    record: Record
    fresh: Record
    declared: Schema | None


class DeclaredSchemas:
    """The schema rules of one statement over one range, record by record.

    The newest schema is remembered for the topic-partition range one task writes (Lenses: per topic
    for the task's lifetime). Files never span ranges, so which records share a file is the same; a
    range that only holds older records writes them with their own schema.
    """

    def __init__(self, rules: SchemaRules) -> None:
        self._rules = rules
        self._newest: Schema | None = None
        self._hints = SchemaHints()

    @staticmethod
    def applies(format: Format) -> bool:
        """Whether files of ``format`` roll on a schema change at all."""
        return format.rolls_on_schema_change

    def step(self, record: Record, open_file: FileSchemas | None) -> Step:
        """Place ``record`` against the open file of its partition values (None: none open)."""
        incoming = self._hints.declared(record)
        if incoming is None:
            return Step(roll=False, record=record, fresh=record, declared=None)
        first = open_file.first if open_file is not None else None
        last = open_file.last if open_file is not None else None
        placement = place(self._rules, incoming, newest=self._newest, file_schema=first, last=last)
        self._newest = placement.newest
        fresh = _adapted(record, incoming, placement.declared)
        written = _adapted(fresh, placement.declared, placement.write_with)
        return Step(roll=placement.roll, record=written, fresh=fresh, declared=placement.declared)

    @staticmethod
    def remember(open_file: FileSchemas | None, declared: Schema | None) -> FileSchemas | None:
        """The file's schemas after a record declaring ``declared`` went in (None: a new file)."""
        if declared is None:
            return open_file
        return FileSchemas(first=declared if open_file is None else open_file.first, last=declared)


class SchemaHints:
    """The declared value schemas of a range's records as Avro, converted once per distinct hint."""

    def __init__(self) -> None:
        self._converted: list[tuple[Any, Schema]] = []

    def declared(self, record: Record) -> Schema | None:
        """The record's declared value schema as Avro; None when it declares none (or an unusable one)."""
        hint = record.value_schema
        if hint is None:
            return None
        for known, schema in self._converted:
            if known is hint or known == hint:
                return schema
        try:
            schema = schema_for(record.value, hint)
        except FormatError:
            return None  # the writer reports the record as poison
        self._converted.insert(0, (hint, schema))
        del self._converted[_CACHE_SIZE:]
        return schema


def _adapted(record: Record, own: Schema, target: Schema) -> Record:
    """``record`` with its value in the shape of ``target`` (itself when nothing changes)."""
    if own == target:
        return record
    try:
        value = adapt(record.value, target)
    except FormatError:
        return record  # cannot be converted: written as it is, the writer rolls or reports it
    return dataclasses.replace(record, value=value, value_schema=target)
