"""Avro schema → Arrow schema, for the Parquet writer (the mapping parquet-avro uses).

Optional types (``["null", T]``) become nullable columns; logical types keep their meaning:
timestamp-millis → ``timestamp[ms, UTC]``, date → ``date32``, time-millis → ``time32[ms]``,
decimal → ``decimal128`` (``decimal256`` above 38 digits). Parquet cannot store a union of
several types, an empty struct or a recursive type; those raise FormatError.
"""

from __future__ import annotations

import pyarrow as pa

from lakesink.domain.errors import FormatError
from lakesink.domain.schema import Schema
from lakesink.domain.schema.model import Names, kind, logical, non_null

_PRIMITIVES = {
    "null": pa.null(),
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "bytes": pa.binary(),
    "string": pa.string(),
}
_LOGICAL = {
    "timestamp-millis": pa.timestamp("ms", tz="UTC"),
    "timestamp-micros": pa.timestamp("us", tz="UTC"),
    "local-timestamp-millis": pa.timestamp("ms"),
    "local-timestamp-micros": pa.timestamp("us"),
    "date": pa.date32(),
    "time-millis": pa.time32("ms"),
    "time-micros": pa.time64("us"),
    "uuid": pa.string(),
}


def arrow_schema(record: Schema) -> pa.Schema:
    """The Arrow schema of an Avro record schema (its fields become the columns)."""
    names = Names(record)
    record = names.resolve(record)
    if kind(record) != "record":
        raise FormatError(f"a Parquet file needs a record schema, got {kind(record)}")
    return pa.schema(_Converter(names).fields(record, ()))


class _Converter:
    """Converts one schema; remembers the named records being converted to spot recursion."""

    def __init__(self, names: Names) -> None:
        self._names = names
        self._open_records: list[str] = []

    def fields(self, record: Schema, path: tuple[str, ...]) -> list[pa.Field]:
        if not record["fields"]:
            raise FormatError(f"Parquet cannot store a struct without fields (at {'.'.join(path) or 'the root'})")
        name = str(record.get("name", ""))
        self._open_records.append(name)
        try:
            return [self.field(field["name"], field["type"], (*path, field["name"])) for field in record["fields"]]
        finally:
            self._open_records.pop()

    def field(self, name: str, schema: Schema, path: tuple[str, ...]) -> pa.Field:
        core = non_null(schema)
        nullable = len(core) < (len(schema) if isinstance(schema, list) else 1)
        if not core:
            return pa.field(name, pa.null(), nullable=True)
        if len(core) > 1:
            raise FormatError(f"Parquet cannot store a union of several types at {'.'.join(path)}: {schema!r}")
        return pa.field(name, self.type(core[0], path), nullable=nullable)

    def type(self, schema: Schema, path: tuple[str, ...]) -> pa.DataType:
        if isinstance(schema, str) and schema not in _PRIMITIVES:
            if schema.rpartition(".")[2] in self._open_records:
                raise FormatError(f"Parquet cannot store the recursive type {schema} at {'.'.join(path)}")
            schema = self._names.resolve(schema)
        logical_type = logical(schema)
        if logical_type == "decimal":
            precision, scale = int(schema.get("precision", 38)), int(schema.get("scale", 0))
            return pa.decimal128(precision, scale) if precision <= 38 else pa.decimal256(precision, scale)
        if logical_type in _LOGICAL:
            return _LOGICAL[logical_type]
        type_name = kind(schema)
        if type_name in _PRIMITIVES:
            return _PRIMITIVES[type_name]
        if type_name in ("record", "error"):
            return pa.struct(self.fields(schema, path))
        if type_name == "array":
            return pa.list_(self.field("element", schema["items"], path))
        if type_name == "map":
            return pa.map_(pa.string(), self.field("value", schema["values"], path))
        if type_name == "enum":
            return pa.string()
        if type_name == "fixed":
            return pa.binary(int(schema["size"]))
        raise FormatError(f"Parquet cannot store the Avro type {type_name!r} at {'.'.join(path)}")
