"""Kafka Connect's data rules for the built-in transforms, over lakesink's plain data and Avro schemas.

Connect's transforms see a ``Struct`` or a ``Map``; lakesink has a dict plus, maybe, the part's
Avro schema. This bridges them: Connect's ``Requirements`` checks, struct fields, the Connect type
of an Avro schema and ``copySchemaBasics``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from lakesink.domain.errors import RecordError
from lakesink.domain.schema.connect import time_of_day_millis
from lakesink.domain.schema.model import Names, Schema, is_nullable, kind, logical, non_null, optional
from lakesink.domain.transforms.options import TransformOptions

TIMESTAMP = "Timestamp"
DATE = "Date"
TIME = "Time"
DECIMAL = "Decimal"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

PACKAGE = "org.apache.kafka.connect.transforms."
"""The package of Kafka's transform classes, the prefix of their registered names."""
REPLACE_NULL = "replace.null.with.default"
"""The option most of Kafka's field transforms share (KIP-1040); default true."""


def replace_null_with_default(options: TransformOptions) -> bool:
    """The ``replace.null.with.default`` option: whether a null struct field reads as its default."""
    return options.boolean(REPLACE_NULL, True)


_INT_LOGICAL = {"date": DATE, "time-millis": TIME}
_LONG_LOGICAL = {"timestamp-millis": TIMESTAMP, "timestamp-micros": TIMESTAMP, "time-micros": TIME}


def type_name(value: Any) -> str:
    """The Python type of a value, as Connect's errors name the Java class (``null`` for None)."""
    return "null" if value is None else type(value).__name__


def require_map(value: Any, purpose: str) -> Mapping[str, Any]:
    """A schemaless part that must be a map.

    Raises:
        RecordError: it is not (Connect's message).
    """
    if not isinstance(value, Mapping):
        raise RecordError(
            f"Only Map objects supported in absence of schema for [{purpose}], found: {type_name(value)}"
        )
    return value


@dataclass(frozen=True)
class StructSchema:
    """The record schema of a part with a schema: its definition, whether the part is optional,
    and the resolver of the named types it refers to."""

    record: dict[str, Any]
    optional: bool
    names: Names

    @property
    def fields(self) -> list[dict[str, Any]]:
        """The record's field definitions, in order."""
        return list(self.record["fields"])

    def field(self, name: str) -> dict[str, Any] | None:
        """The field called ``name``, or None."""
        return next((field for field in self.record["fields"] if field["name"] == name), None)

    def rebuilt(self, fields: list[dict[str, Any]]) -> Schema:
        """The same record (name, namespace, doc kept) with other fields; optional if this one was."""
        out = {**self.record, "fields": fields}
        return optional(out) if self.optional else out


def struct_schema(schema: Schema, purpose: str, names: Names | None = None) -> StructSchema:
    """The record behind a part's schema.

    Reads a struct's fields from the Avro ``record`` schema, unwrapping ``["null", …]`` for optional
    structs.

    Raises:
        RecordError: the schema is not a (possibly optional) record (Connect's message).
    """
    resolver = names or Names(schema)
    branches = [resolver.resolve(branch) for branch in non_null(schema)]
    if len(branches) != 1 or kind(branches[0]) not in ("record", "error"):
        raise RecordError(f"Only Struct objects supported for [{purpose}], found schema: {schema!r}")
    return StructSchema(branches[0], is_nullable(schema), resolver)


def require_struct(value: Any, purpose: str) -> Mapping[str, Any]:
    """A part with a schema that must be a struct (a dict here).

    Raises:
        RecordError: it is not (Connect's message).
    """
    if not isinstance(value, Mapping):
        raise RecordError(f"Only Struct objects supported for [{purpose}], found: {type_name(value)}")
    return value


def field_value(struct: Mapping[str, Any], field: Mapping[str, Any], replace_null_with_default: bool) -> Any:
    """A struct field's value; with ``replace_null_with_default`` a null reads as the field's default
    (Connect's ``Struct.get`` versus ``getWithoutDefault``)."""
    value = struct.get(field["name"])
    if value is None and replace_null_with_default:
        return field.get("default")
    return value


def connect_type(schema: Schema, names: Names) -> tuple[str, str | None]:
    """The Connect type (``INT8``…``STRUCT``) and logical name (``Timestamp``, ``Date``, ``Time``,
    ``Decimal`` or None) that Confluent's ``AvroData`` gives an Avro schema.

    Raises:
        RecordError: a union of several types, which Connect has no type for.
    """
    branches = non_null(schema)
    if len(branches) != 1:
        raise RecordError(f"the Avro union {schema!r} has no Connect type")
    core = names.resolve(branches[0])
    avro, logical_type = kind(core), logical(core)
    if avro == "int":
        connect = core.get("connect.type") if isinstance(core, dict) else None
        return (str(connect).upper() if connect in ("int8", "int16") else "INT32"), _INT_LOGICAL.get(
            logical_type or ""
        )
    if avro == "long":
        return "INT64", _LONG_LOGICAL.get(logical_type or "")
    if avro in ("bytes", "fixed"):
        return "BYTES", DECIMAL if logical_type == "decimal" else None
    simple = {
        "boolean": "BOOLEAN",
        "float": "FLOAT32",
        "double": "FLOAT64",
        "string": "STRING",
        "enum": "STRING",
        "record": "STRUCT",
        "error": "STRUCT",
        "array": "ARRAY",
        "map": "MAP",
    }
    if avro not in simple:
        raise RecordError(f"the Avro type {avro!r} has no Connect type")
    return simple[avro], None


def epoch_millis(value: date | time) -> int:
    """The ``java.util.Date`` millis behind a Connect Timestamp (a naive ``datetime`` is UTC), Date
    (midnight UTC) or Time (on the first day of 1970) value."""
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return (aware - _EPOCH) // timedelta(milliseconds=1)
    if isinstance(value, date):
        return (value - _EPOCH.date()).days * 86_400_000
    return time_of_day_millis(value)
