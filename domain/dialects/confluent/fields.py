"""Record fields as Confluent's partitioners see them: Connect Structs and Maps.

``FieldPartitioner`` and the ``RecordField`` extractor read dotted names out of a value, and what
they accept depends on its Connect type, which lakesink does not keep: it is recovered from the
record (:func:`value_shape`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lakesink.domain.errors import FormatError
from lakesink.domain.records import Record
from lakesink.domain.schema.model import Names, Schema, kind, logical, non_null
from lakesink.domain.schema.resolve import schema_for

STRUCT = "struct"
MAP = "map"

#: Connect logical names of the Avro logical types AvroData converts.
_LOGICAL_NAMES = {
    "timestamp-millis": "Timestamp",
    "date": "Date",
    "time-millis": "Time",
    "decimal": "Decimal",
}
_AVRO_TO_CONNECT = {
    "boolean": "BOOLEAN",
    "float": "FLOAT32",
    "double": "FLOAT64",
    "bytes": "BYTES",
    "fixed": "BYTES",
    "string": "STRING",
    "enum": "STRING",
    "array": "ARRAY",
    "map": "MAP",
    "record": "STRUCT",
    "error": "STRUCT",
}


@dataclass(frozen=True, slots=True)
class ConnectType:
    """A field's Connect type (``INT32``, ``STRING``...) and logical name (``Timestamp``), if any.

    ``logical`` is ``"avro:<name>"`` for an Avro logical type Confluent's AvroData leaves alone.
    """

    type: str
    logical: str | None = None


@dataclass(frozen=True, slots=True)
class ValueShape:
    """What Confluent would see as the record value: ``struct``, ``map`` or None (neither)."""

    kind: str | None
    schema: Schema = None
    names: Names | None = None


class FieldLookupError(Exception):
    """A dotted field cannot be read; the message says why (Confluent's meaning)."""


class SchemaMemo:
    """The schema-derived answers for the last value schema seen, reused while it stays the same.

    The records of a batch usually share one schema object, and normalising it for every record
    would dominate the cost of partitioning. The memo is keyed by identity (it keeps the schema
    alive, so the identity cannot be reused) and is dropped when pickled.
    """

    __slots__ = ("_schema", "_shape", "_types")

    def __init__(self) -> None:
        self._schema: Any = None
        self._shape = ValueShape(None)
        self._types: dict[tuple[str, ...], ConnectType | None] = {}

    def __reduce__(self) -> tuple[type[SchemaMemo], tuple[()]]:
        return SchemaMemo, ()

    def value_shape(self, record: Record) -> ValueShape:
        """:func:`value_shape`, memoised on the record's value schema."""
        if not isinstance(record.value, Mapping) or record.value_schema is None:
            return value_shape(record)
        if record.value_schema is not self._schema:
            shape = value_shape(record)
            self._schema, self._shape, self._types = record.value_schema, shape, {}
        return self._shape

    def struct_field_type(self, shape: ValueShape, path: Sequence[str]) -> ConnectType | None:
        """:func:`struct_field_type` for a shape this memo returned, memoised per path."""
        key = tuple(path)
        if shape is not self._shape:
            return struct_field_type(shape, key)
        if key not in self._types:
            self._types[key] = struct_field_type(shape, key)
        return self._types[key]


def value_shape(record: Record) -> ValueShape:
    """Whether the record's value is a Struct, a Map or neither, with its struct schema.

    A value with a record (struct) schema in ``Record.value_schema`` (Avro, or Connect converted to
    Avro first) is a **Struct**; its fields' Connect types follow from their Avro types as
    ``AvroData`` maps them (``int`` is INT32 unless ``connect.type`` says int8 or int16, ``enum`` is
    STRING, ``timestamp-millis`` the Timestamp logical type...; a ``["null", T]`` union is an
    optional ``T``, any other union a struct; a logical type ``AvroData`` does not map is reported as
    such, so callers can refuse it). A mapping without a schema, or with a map schema, is a **Map**;
    anything else (null, a primitive, an array) is neither.

    Raises:
        FieldLookupError: ``value_schema`` is not a schema lakesink understands.
    """
    value = record.value
    if not isinstance(value, Mapping):
        return ValueShape(None)
    if record.value_schema is None:
        return ValueShape(MAP)
    try:
        schema = schema_for(value, record.value_schema)
    except FormatError as error:
        raise FieldLookupError(f"the value schema cannot be read: {error}") from None
    names = Names(schema)
    resolved = _strip_null(schema, names)
    if kind(resolved) in ("record", "error"):
        return ValueShape(STRUCT, resolved, names)
    if kind(resolved) == "map":
        return ValueShape(MAP)
    return ValueShape(None)


def struct_field_type(shape: ValueShape, path: Sequence[str]) -> ConnectType | None:
    """The Connect type of the field at ``path`` in a Struct's schema; None when it is absent.

    Raises:
        FieldLookupError: the path continues below a field that is not a struct.
    """
    names = shape.names
    if shape.kind != STRUCT or names is None:
        raise ValueError("struct_field_type needs the shape of a Struct")
    schema = shape.schema
    for depth, name in enumerate(path):
        resolved = _strip_null(schema, names)
        if kind(resolved) not in ("record", "error"):
            walked = ".".join(path[:depth])
            raise FieldLookupError(f"cannot look up field '{name}' below '{walked}': it is not a struct")
        match = next((f for f in resolved["fields"] if f["name"] == name), None)
        if match is None:
            return None
        schema = match["type"]
    return connect_type(schema, names)


def struct_value(value: Any, path: Sequence[str]) -> Any:
    """The value at ``path`` in a Struct whose schema has that path; None if null on the way."""
    for name in path:
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise FieldLookupError(f"field '{name}' is read from a {type(value).__name__}, not a struct")
        value = value.get(name)
    return value


def map_value(value: Any, path: Sequence[str]) -> Any:
    """The value at ``path`` in a Map (Confluent ``DataUtils.getNestedFieldValue``).

    Raises:
        FieldLookupError: a name is missing or null, or a step is not a map.
    """
    for name in path:
        if not isinstance(value, Mapping):
            raise FieldLookupError(f"Argument not a Struct or Map. Cannot get field '{name}'.")
        value = value.get(name)
        if value is None:
            raise FieldLookupError(f"Unable to find nested field '{name}'")
    return value


def connect_type(schema: Schema, names: Names) -> ConnectType:
    """The Connect type Confluent's AvroData gives an Avro schema."""
    resolved = _strip_null(schema, names)
    if isinstance(resolved, list):
        return ConnectType("STRUCT", "union")
    avro_type = kind(resolved)
    avro_logical = logical(resolved)
    if avro_type in ("int", "long"):
        connect = "INT64" if avro_type == "long" else _int_width(resolved)
    else:
        connect = _AVRO_TO_CONNECT.get(avro_type, "UNKNOWN")
    if avro_logical is None or (avro_logical == "uuid" and connect == "STRING"):
        return ConnectType(connect)
    return ConnectType(connect, _LOGICAL_NAMES.get(avro_logical, f"avro:{avro_logical}"))


def _int_width(schema: Schema) -> str:
    declared = schema.get("connect.type") if isinstance(schema, dict) else None
    return {"int8": "INT8", "int16": "INT16"}.get(str(declared), "INT32")


def _strip_null(schema: Schema, names: Names) -> Schema:
    try:
        schema = names.resolve(schema)
        if isinstance(schema, list):
            branches = non_null(schema)
            if len(branches) == 1:
                return names.resolve(branches[0])
    except FormatError as error:
        raise FieldLookupError(f"the value schema cannot be read: {error}") from None
    return schema
