"""When does a new record schema roll the open file (``connect.<prefix>.schema.change.detector``)?

Only files with one schema roll (Avro, Parquet, CSV), and only for values that *declare* a schema;
the detector compares it with the schema of the last record written to the open file (Lenses'
``lastKnownSchema``). See docs/formats.md, "Values and schemas".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from lakesink.domain.errors import ConfigError
from lakesink.domain.schema.compat import can_read
from lakesink.domain.schema.model import Names, Schema, full_name, kind, non_null


class SchemaChangeDetector(Enum):
    """The ``schema.change.detector`` setting."""

    DEFAULT = "default"  # any difference
    VERSION = "version"  # another name, or a newer version
    COMPATIBILITY = "compatibility"  # the open file's schema cannot read the new one

    @classmethod
    def parse(cls, text: str, *, key: str = "schema.change.detector") -> SchemaChangeDetector:
        """Parse a setting value, naming the key when it is not one of the detectors."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            allowed = ", ".join(member.value for member in cls)
            raise ConfigError(f"{key}: {text!r} is not one of {allowed}") from None


@dataclass(frozen=True, slots=True)
class SchemaRules:
    """The two settings together: how declared schemas roll files."""

    detector: SchemaChangeDetector = SchemaChangeDetector.DEFAULT
    latest_optimization: bool = False


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a record with a declared schema goes.

    Attributes:
        roll: roll the open file before writing the record.
        declared: the record's schema after the optimisation (the file remembers it as its
            last schema); differs from the record's own when the record is adapted to the
            newest schema.
        write_with: the schema the value is written with: ``declared``, or the open file's
            schema when the record stays in the file.
        newest: the newest schema seen so far (None without the optimisation).
    """

    roll: bool
    declared: Schema
    write_with: Schema
    newest: Schema | None


def version_of(schema: Schema) -> int | None:
    """The version a schema carries (Confluent ``connect.version`` or a ``version`` attribute)."""
    schema = _core(schema)
    if isinstance(schema, dict):
        for attribute in ("connect.version", "version"):
            if isinstance(schema.get(attribute), int):
                return int(schema[attribute])
    return None


def name_of(schema: Schema) -> str | None:
    """The full name of a named schema; None for unnamed and primitive ones."""
    core = _core(schema)
    if isinstance(core, dict) and "name" in core:
        return full_name(core)
    return None


def is_newer(candidate: Schema, current: Schema) -> bool:
    """Whether ``candidate`` is a later version of the same type as ``current``.

    Higher version when both carry one (Lenses' rule); otherwise ``candidate`` reads data of
    ``current`` and has every field of it and at least one more.
    """
    if candidate == current or name_of(candidate) != name_of(current):
        return False
    new, old = version_of(candidate), version_of(current)
    if new is not None and old is not None:
        return new > old
    return (
        can_read(candidate, current)
        and _covers(candidate, current, Names(candidate), Names(current))
        and not _covers(current, candidate, Names(current), Names(candidate))
    )


def schema_changed(detector: SchemaChangeDetector, last: Schema, incoming: Schema) -> bool:
    """Whether ``incoming`` counts as a change from ``last`` for ``detector``."""
    if last == incoming:
        return False
    if detector is SchemaChangeDetector.DEFAULT:
        return True
    if detector is SchemaChangeDetector.VERSION:
        return name_of(last) != name_of(incoming) or is_newer(incoming, last)
    return not can_read(last, incoming)


def place(
    rules: SchemaRules,
    incoming: Schema,
    *,
    newest: Schema | None,
    file_schema: Schema | None,
    last: Schema | None,
) -> Placement:
    """Decide for one record whose value declares ``incoming``.

    Args:
        rules: the two settings.
        incoming: the record's declared value schema.
        newest: the newest schema seen so far (the previous placement's ``newest``).
        file_schema / last: the declared schema of the open file's first and last records;
            None when no file is open for the record's partition values.
    """
    declared = incoming
    if rules.latest_optimization:
        if newest is None or is_newer(incoming, newest):
            newest = incoming
        elif is_newer(newest, incoming) and can_read(newest, incoming):
            declared = newest
    if file_schema is None or last is None:
        return Placement(roll=False, declared=declared, write_with=declared, newest=newest)
    if schema_changed(rules.detector, last, declared):
        return Placement(roll=True, declared=declared, write_with=declared, newest=newest)
    if declared != file_schema and not can_read(file_schema, declared):
        return Placement(roll=True, declared=declared, write_with=declared, newest=newest)
    return Placement(roll=False, declared=declared, write_with=file_schema, newest=newest)


def _core(schema: Schema) -> Schema:
    core = non_null(schema)
    return core[0] if len(core) == 1 else schema


def _covers(reader: Schema, writer: Schema, reader_names: Names, writer_names: Names) -> bool:
    """Whether every record field of ``writer`` has a counterpart in ``reader``."""
    reader, writer = reader_names.resolve(_core(reader)), writer_names.resolve(_core(writer))
    if kind(reader) != "record" or kind(writer) != "record":
        return True
    reader_fields: dict[str, Any] = {field["name"]: field for field in reader["fields"]}
    for field in writer["fields"]:
        match = reader_fields.get(field["name"])
        if match is None or not _covers(match["type"], field["type"], reader_names, writer_names):
            return False
    return True
