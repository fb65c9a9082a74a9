"""The ``field`` option of Lenses' header SMTs: which part of a record holds the timestamp.

A path without ``_key``, ``_value`` or ``_timestamp`` in front reads the value
(:func:`field_path`); reading follows Connect's two modes, with and without a schema (:func:`read`).
See docs/transforms.md, "Lenses".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from lakesink.domain.errors import ConfigError, FormatError, RecordError
from lakesink.domain.records import Record
from lakesink.domain.schema.model import Names, Schema, kind, non_null
from lakesink.domain.transforms.options import TransformOptions
from lakesink.domain.transforms.parts import Part

FIELD = "field"


class Source(Enum):
    """Where the path starts."""

    KEY = "_key"
    VALUE = "_value"
    TIMESTAMP = "_timestamp"


@dataclass(frozen=True, slots=True)
class FieldPath:
    """A parsed ``field`` option: the source and the names below it (empty = the source itself)."""

    source: Source
    names: tuple[str, ...]

    def describe(self) -> str:
        """The path as the user wrote it, prefix included, for messages."""
        return ".".join((self.source.value, *self.names))


@dataclass(frozen=True, slots=True)
class Reading:
    """A value found at a path, with its schema in lakesink's Avro model (None when schemaless).

    ``from_timestamp`` is True for the record timestamp, which Connect types as a ``Timestamp``.
    """

    value: Any
    schema: Schema | None
    from_timestamp: bool = False


def field_path(options: TransformOptions, name: str = FIELD) -> FieldPath:
    """The path an option names, split like Java's ``String.split("\\\\.")``.

    The first segment may name the part, compared ignoring case: ``_key.a.b`` reads the key,
    ``_value.a.b`` the value and ``_timestamp`` the record timestamp (alone: a path below it is a
    ConfigError). **A path without one of these prefixes reads the value**: ``field=timestamp`` is
    the value's ``timestamp`` field, not the record timestamp, and an empty ``field`` (or just
    ``_value``/``_key``) is the whole value/key.

    Raises:
        ConfigError: ``_timestamp`` is followed by more names.
    """
    text = options.text(name) or Source.VALUE.value
    segments = text.split(".")
    while segments and segments[-1] == "":  # Java's split drops trailing empty strings
        segments.pop()
    head = segments[0].lower() if segments else ""
    if head == Source.TIMESTAMP.value:
        if len(segments) > 1:
            raise ConfigError(
                f"Invalid value {text!r} for {options.key(name)}: the record timestamp is a primitive, "
                "so the path must be just _timestamp."
            )
        return FieldPath(Source.TIMESTAMP, ())
    if head == Source.KEY.value:
        return FieldPath(Source.KEY, tuple(segments[1:]))
    if head == Source.VALUE.value:
        return FieldPath(Source.VALUE, tuple(segments[1:]))
    return FieldPath(Source.VALUE, tuple(segments))


def read(record: Record, path: FieldPath) -> Reading | None:
    """What ``path`` holds in ``record``; None when the schema says the field is not there.

    When the part has a schema (a Connect schema from ``JsonConverter`` with ``schemas.enable=true``,
    or Avro), the schema decides: a leaf the schema lacks, or a null struct on the way, yields nothing
    (Lenses then leaves the record without the header), and the leaf's schema says how to read its
    value. Schemaless data must be maps all the way down; a missing leaf reads as null.

    Raises:
        RecordError: schemaless data that is not a map where the path needs one, data with a
            schema that is not a struct, or a path through a field that is not a struct.
    """
    if path.source is Source.TIMESTAMP:
        return Reading(record.timestamp, "long", from_timestamp=True)
    part = Part.KEY if path.source is Source.KEY else Part.VALUE
    data = part.data(record)
    try:
        schema = part.schema(record)
    except FormatError as error:
        raise RecordError(f"the {part.value.lower()} schema cannot be read: {error}") from error
    if schema is None:
        return Reading(_schemaless(data, path), None)
    if not path.names:
        return Reading(data, schema)
    return _with_schema(data, schema, path)


def _schemaless(data: Any, path: FieldPath) -> Any:
    if data is None or not path.names:
        return data
    current = data
    for depth, name in enumerate(path.names):
        if not isinstance(current, Mapping):
            where = ".".join((path.source.value, *path.names[:depth]))
            raise RecordError(
                f"{where} is a {_type_name(current)}, not a map: schemaless data must be maps along "
                f"the path {path.describe()}"
            )
        current = current.get(name)
    return current


def _with_schema(data: Any, root: Schema, path: FieldPath) -> Reading | None:
    names = Names(root)
    schema = root
    current = data
    for depth, name in enumerate(path.names):
        if current is None:
            return None
        struct = _struct_schema(schema, names)
        if struct is None or not isinstance(current, Mapping):
            where = ".".join((path.source.value, *path.names[:depth]))
            raise RecordError(f"{where} is not a struct, so the path {path.describe()} cannot be read")
        field = next((field for field in struct["fields"] if field["name"] == name), None)
        if field is None:
            if depth < len(path.names) - 1:
                raise RecordError(f"{name!r} is not a field of the struct on the path {path.describe()}")
            return None
        schema = field["type"]
        current = current.get(name)
    if isinstance(schema, list):
        return Reading(current, [names.resolve(branch) for branch in schema])
    return Reading(current, names.resolve(schema))


def _struct_schema(schema: Schema, names: Names) -> dict[str, Any] | None:
    branches = [names.resolve(branch) for branch in non_null(schema)]
    if len(branches) == 1 and kind(branches[0]) in ("record", "error"):
        return branches[0]  # type: ignore[return-value]
    return None


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__
