"""When does a new record schema roll the open file (``connect.<prefix>.schema.change.detector``)?

Only formats whose files carry one schema roll (Avro, Parquet, CSV; see
:attr:`lakesink.domain.formats.Format.rolls_on_schema_change`). Detectors, as Lenses names them:

* ``default``: any difference between the file's schema and the record's;
* ``version``: the record names another type, or carries a higher version;
* ``compatibility``: the file's schema cannot read data written with the record's schema.

``latest.schema.optimization.enabled`` (seed "Flush Options") avoids rolling back and forth
when producers with an older schema interleave with newer ones: a record whose schema is
*older* and backward compatible (the newest schema reads it) stays in the open file, adapted
to the newest schema with :func:`lakesink.domain.schema.adapt`. "Older" means a lower
version when both schemas carry one; without versions it means the newest schema has every
field of the older one, so adapting never drops data.
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

    DEFAULT = "default"
    VERSION = "version"
    COMPATIBILITY = "compatibility"

    @classmethod
    def parse(cls, text: str, *, key: str = "schema.change.detector") -> SchemaChangeDetector:
        """Parse a setting value, naming the key when it is not one of the detectors."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            allowed = ", ".join(member.value for member in cls)
            raise ConfigError(f"{key}: {text!r} is not one of {allowed}") from None


@dataclass(frozen=True, slots=True)
class SchemaDecision:
    """What to do with a record whose schema differs from the open file's.

    ``roll``: finish the file and open a new one with ``schema``; otherwise keep writing
    with ``schema``, adapting the record to it when ``adapt`` is set.
    """

    roll: bool
    schema: Schema
    adapt: bool = False


def version_of(schema: Schema) -> int | None:
    """The version a schema carries (Confluent ``connect.version`` or a ``version`` attribute)."""
    if isinstance(schema, dict):
        for attribute in ("connect.version", "version"):
            if isinstance(schema.get(attribute), int):
                return int(schema[attribute])
    return None


def name_of(schema: Schema) -> str | None:
    """The full name of a named schema; None for unnamed and primitive ones."""
    core = non_null(schema)
    if len(core) == 1 and isinstance(core[0], dict) and "name" in core[0]:
        return full_name(core[0])
    return None


def schema_changed(detector: SchemaChangeDetector, current: Schema, incoming: Schema) -> bool:
    """Whether ``incoming`` counts as a change from ``current`` for ``detector``."""
    if current == incoming:
        return False
    if detector is SchemaChangeDetector.DEFAULT:
        return True
    if detector is SchemaChangeDetector.VERSION:
        if name_of(current) != name_of(incoming):
            return True
        old, new = version_of(_core(current)), version_of(_core(incoming))
        return old is not None and new is not None and new > old
    return not can_read(current, incoming)


def decide(
    detector: SchemaChangeDetector,
    current: Schema,
    incoming: Schema,
    *,
    latest_optimization: bool = False,
) -> SchemaDecision:
    """Roll or keep writing when a record with ``incoming`` meets a file with ``current``."""
    if not schema_changed(detector, current, incoming):
        return SchemaDecision(roll=False, schema=current, adapt=current != incoming)
    if latest_optimization and _is_older_and_readable(current, incoming):
        return SchemaDecision(roll=False, schema=current, adapt=True)
    return SchemaDecision(roll=True, schema=incoming)


def _core(schema: Schema) -> Schema:
    core = non_null(schema)
    return core[0] if len(core) == 1 else schema


def _is_older_and_readable(newest: Schema, older: Schema) -> bool:
    if not can_read(newest, older):
        return False
    new_version, old_version = version_of(_core(newest)), version_of(_core(older))
    if new_version is not None and old_version is not None:
        return old_version < new_version
    return _covers(newest, older, Names(newest), Names(older))


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
