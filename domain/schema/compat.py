"""Avro reader/writer compatibility, in pure Python over the schema model.

Implements the resolution rules of the Avro specification ("Schema Resolution"), which is
what Avro's Java ``SchemaCompatibility.checkReaderWriterCompatibility`` checks and what the
Lenses ``compatibility`` detector and ``latest.schema.optimization`` rely on. Logical types
are ignored, as Java does: they never change how data resolves.
"""

from __future__ import annotations

from lakesink.domain.schema.model import Names, Schema, full_name, kind

_PROMOTIONS = {
    "int": {"long", "float", "double"},
    "long": {"float", "double"},
    "float": {"double"},
    "string": {"bytes"},
    "bytes": {"string"},
}


def can_read(reader: Schema, writer: Schema) -> bool:
    """Whether data written with ``writer`` can be read with ``reader``."""
    return _Checker(reader, writer).check(reader, writer)


class _Checker:
    """Walks a reader and a writer schema together; remembers record pairs already seen."""

    def __init__(self, reader_root: Schema, writer_root: Schema) -> None:
        self._reader_names = Names(reader_root)
        self._writer_names = Names(writer_root)
        self._assumed: set[tuple[str, str]] = set()

    def check(self, reader: Schema, writer: Schema) -> bool:
        reader_ref = reader if isinstance(reader, str) else None
        writer_ref = writer if isinstance(writer, str) else None
        reader = self._reader_names.resolve(reader)
        writer = self._writer_names.resolve(writer)
        if isinstance(writer, list):
            return all(self.check(reader, branch) for branch in writer)
        if isinstance(reader, list):
            return any(self.check(branch, writer) for branch in reader)
        reader_kind, writer_kind = kind(reader), kind(writer)
        if reader_kind != writer_kind:
            return reader_kind in _PROMOTIONS.get(writer_kind, ())
        if reader_kind in ("record", "error"):
            pair = (reader_ref or _name_of(reader), writer_ref or _name_of(writer))
            if pair in self._assumed:
                return True  # a recursive type: assume compatible while checking it
            self._assumed.add(pair)
            return self._records(reader, writer)
        if reader_kind == "array":
            return self.check(reader["items"], writer["items"])
        if reader_kind == "map":
            return self.check(reader["values"], writer["values"])
        if reader_kind == "enum":
            return _same_name(reader, writer) and (
                set(writer["symbols"]) <= set(reader["symbols"]) or "default" in reader
            )
        if reader_kind == "fixed":
            return _same_name(reader, writer) and reader["size"] == writer["size"]
        return True

    def _records(self, reader: Schema, writer: Schema) -> bool:
        if not _same_name(reader, writer):
            return False
        writer_fields = {}
        for field in writer["fields"]:
            writer_fields[field["name"]] = field
            for alias in field.get("aliases", ()):
                writer_fields.setdefault(alias, field)
        for field in reader["fields"]:
            match = writer_fields.get(field["name"])
            if match is None:
                match = next((writer_fields[a] for a in field.get("aliases", ()) if a in writer_fields), None)
            if match is None:
                if "default" not in field:
                    return False
            elif not self.check(field["type"], match["type"]):
                return False
        return True


def _name_of(schema: Schema) -> str:
    return full_name(schema) if isinstance(schema, dict) and "name" in schema else str(id(schema))


def _same_name(reader: Schema, writer: Schema) -> bool:
    """Unnamed (inferred) types match anything; named ones by full name or a reader alias."""
    if "name" not in reader or "name" not in writer:
        return True
    writer_name = full_name(writer)
    if full_name(reader) == writer_name or reader["name"] == writer["name"]:
        return True
    return writer_name in reader.get("aliases", ()) or writer["name"] in reader.get("aliases", ())
