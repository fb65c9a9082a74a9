"""The Avro-dict schema model: normal form, optionality, named types and record names.

Every schema module works on the normal form :func:`from_avro` gives, so equal schemas compare
equal with ``==``. Avro dicts, not a model of our own: every schema reaching a writer is one or
maps onto one without loss, and Lenses itself converts to Avro before writing. Primitives are
plain strings, optional types ``["null", T]``; :func:`name_records` names records as Confluent
does. See docs/formats.md, "Values and schemas".
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from lakesink.domain.errors import FormatError

Schema = Any
"""An Avro schema in normal form: a primitive name, a dict, or a union list."""

CONNECT_DEFAULT_NAME = "ConnectDefault"
CONNECT_DEFAULT_NAMESPACE = "io.confluent.connect.avro"

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
NAMED = frozenset({"record", "enum", "fixed", "error"})

TIMESTAMP_MILLIS: Schema = {"type": "long", "logicalType": "timestamp-millis"}
DATE: Schema = {"type": "int", "logicalType": "date"}
TIME_MILLIS: Schema = {"type": "int", "logicalType": "time-millis"}
DEFAULT_DECIMAL_PRECISION = 38
"""Used when a decimal carries no precision (Connect ``Decimal`` only has a scale): the widest
precision that still fits a 128-bit Parquet decimal."""


def decimal(scale: int, precision: int = DEFAULT_DECIMAL_PRECISION) -> Schema:
    """A ``bytes`` decimal, the encoding Confluent and Lenses use."""
    return {"type": "bytes", "logicalType": "decimal", "precision": precision, "scale": scale}


def from_avro(schema: Any) -> Schema:
    """Normalise an Avro schema given as JSON text, a dict, a list or a name.

    Primitive dicts without extra attributes collapse to their name and nested types are
    normalised recursively; anything that is not an Avro schema raises FormatError.
    """
    if isinstance(schema, bytes):
        schema = schema.decode()
    if isinstance(schema, str) and schema[:1] in ("{", "[", '"'):
        try:
            schema = json.loads(schema)
        except ValueError as error:
            raise FormatError(f"invalid Avro schema JSON: {error}") from error
    return _normalise(schema)


def _normalise(schema: Any) -> Schema:
    if isinstance(schema, str):
        return schema
    if isinstance(schema, list):
        return [_normalise(branch) for branch in schema]
    if not isinstance(schema, Mapping) or "type" not in schema:
        raise FormatError(f"not an Avro schema: {schema!r}")
    kind = schema["type"]
    if not isinstance(kind, str):
        return _normalise(kind)  # {"type": {...}} or {"type": [...]} wraps another schema
    if kind in PRIMITIVES and len(schema) == 1:
        return kind
    out = dict(schema)
    if kind in ("record", "error"):
        out["fields"] = [_normalise_field(field) for field in schema.get("fields", ())]
    elif kind == "array":
        out["items"] = _normalise(schema["items"])
    elif kind == "map":
        out["values"] = _normalise(schema["values"])
    return out


def _normalise_field(field: Mapping[str, Any]) -> dict[str, Any]:
    if "name" not in field or "type" not in field:
        raise FormatError(f"an Avro record field needs a name and a type: {field!r}")
    out = dict(field)
    out["type"] = _normalise(field["type"])
    return out


def kind(schema: Schema) -> str:
    """The Avro type name of a schema (``"union"`` for a list)."""
    if isinstance(schema, list):
        return "union"
    if isinstance(schema, str):
        return schema
    return str(schema["type"])


def logical(schema: Schema) -> str | None:
    """The logical type name, if any."""
    return schema.get("logicalType") if isinstance(schema, dict) else None


def is_nullable(schema: Schema) -> bool:
    """Whether ``None`` is a valid value of the schema."""
    if isinstance(schema, list):
        return any(branch == "null" for branch in schema)
    return schema == "null"


def non_null(schema: Schema) -> list[Schema]:
    """The branches of a schema other than ``null``."""
    branches = schema if isinstance(schema, list) else [schema]
    return [branch for branch in branches if branch != "null"]


def optional(schema: Schema) -> Schema:
    """The schema made nullable, with ``null`` first so a ``None`` default is valid Avro."""
    if schema == "null":
        return "null"
    branches = non_null(schema)
    return ["null", *branches]


def full_name(schema: Mapping[str, Any], namespace: str | None = None) -> str:
    """The fully qualified name of a named type."""
    name = str(schema["name"])
    if "." in name:
        return name
    space = schema.get("namespace", namespace)
    return f"{space}.{name}" if space else name


def walk_named(schema: Schema, namespace: str | None = None) -> Iterator[tuple[str, Schema, str | None]]:
    """Every named type defined in ``schema``: (full name, definition, its namespace)."""
    if isinstance(schema, list):
        for branch in schema:
            yield from walk_named(branch, namespace)
        return
    if not isinstance(schema, dict):
        return
    type_name = schema["type"]
    if type_name in NAMED and "name" in schema:
        name = full_name(schema, namespace)
        namespace = name.rpartition(".")[0] or None
        yield name, schema, namespace
    if type_name in ("record", "error"):
        for field in schema["fields"]:
            yield from walk_named(field["type"], namespace)
    elif type_name == "array":
        yield from walk_named(schema["items"], namespace)
    elif type_name == "map":
        yield from walk_named(schema["values"], namespace)


class Names:
    """Resolves references to named types inside one root schema (built on first use)."""

    def __init__(self, root: Schema) -> None:
        self._root = root
        self._table: dict[str, Schema] | None = None

    def resolve(self, schema: Schema) -> Schema:
        """The definition behind a name reference; other schemas are returned as they are."""
        if not isinstance(schema, str) or schema in PRIMITIVES:
            return schema
        if self._table is None:
            self._table = {}
            for name, definition, _ in walk_named(self._root):
                self._table[name] = definition
                self._table.setdefault(name.rpartition(".")[2], definition)
        try:
            return self._table[schema]
        except KeyError:
            raise FormatError(f"unknown Avro type name {schema!r}") from None


def name_records(schema: Schema) -> Schema:
    """Give every unnamed record a Confluent default name, leaving named ones alone.

    Confluent's ``AvroData`` calls an unnamed Connect struct ``ConnectDefault`` and numbers the
    following ones (``ConnectDefault2``…), all in namespace ``io.confluent.connect.avro``;
    Avro needs names to be unique, so the count skips names the schema already uses.
    """
    taken = {name for name, _, _ in walk_named(schema)}
    counter = [0]

    def fresh() -> str:
        while True:
            counter[0] += 1
            suffix = "" if counter[0] == 1 else str(counter[0])
            name = CONNECT_DEFAULT_NAME + suffix
            if f"{CONNECT_DEFAULT_NAMESPACE}.{name}" not in taken:
                return name

    def visit(node: Schema) -> Schema:
        if isinstance(node, list):
            return [visit(branch) for branch in node]
        if not isinstance(node, dict):
            return node
        type_name = node["type"]
        if type_name in ("record", "error"):
            out = dict(node)
            if "name" not in out:
                out["name"] = fresh()
                out["namespace"] = CONNECT_DEFAULT_NAMESPACE
            out["fields"] = [{**field, "type": visit(field["type"])} for field in node["fields"]]
            return out
        if type_name == "array":
            return {**node, "items": visit(node["items"])}
        if type_name == "map":
            return {**node, "values": visit(node["values"])}
        return node

    return visit(schema)


def record(fields: list[tuple[str, Schema]], *, optional_fields: bool = False) -> Schema:
    """An unnamed record; with ``optional_fields`` every field is nullable and defaults to None."""
    out_fields = []
    for name, field_schema in fields:
        if optional_fields:
            out_fields.append({"name": name, "type": optional(field_schema), "default": None})
        else:
            out_fields.append({"name": name, "type": field_schema})
    return {"type": "record", "fields": out_fields}


def canonical_json(schema: Schema) -> str:
    """A stable JSON text of the schema (sorted keys, no spaces): equality and hashing."""
    return json.dumps(schema, sort_keys=True, separators=(",", ":"))
