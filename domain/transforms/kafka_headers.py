"""Connect's header transforms: ``HeaderFrom$Key``/``$Value``, ``InsertHeader`` and ``DropHeaders``.

Headers are ``(name, value)`` pairs in Connect's order; a header added goes last, and a name may
repeat (adding never replaces). Values are Python data, as the sink's header converter gives them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.schema.headers import header_schema
from lakesink.domain.schema.model import NAMED, PRIMITIVES
from lakesink.domain.transforms.chain import TransformFactory
from lakesink.domain.transforms.header_values import parse_string
from lakesink.domain.transforms.kafka_data import (
    PACKAGE,
    REPLACE_NULL,
    field_value,
    replace_null_with_default,
    require_map,
    require_struct,
    struct_schema,
)
from lakesink.domain.transforms.options import TransformOptions
from lakesink.domain.transforms.parts import Part, variants


@dataclass(frozen=True)
class HeaderFrom:
    """Copies (or moves) fields of the part into headers, the i-th field to the i-th header name."""

    part: Part
    fields: tuple[str, ...]
    headers: tuple[str, ...]
    move: bool
    replace_null_with_default: bool
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        data = self.part.data(record)
        schema = self.part.schema(record)
        purpose = "header " + ("move" if self.move else "copy")
        if schema is None:
            value = require_map(data, purpose)
            added = tuple(
                (header, value.get(name)) for name, header in zip(self.fields, self.headers, strict=True)
            )
            updated = {key: item for key, item in value.items() if not (self.move and key in self.fields)}
            return self.part.replace(record, updated, None).add_headers(added)
        struct = require_struct(data, purpose)
        shape = struct_schema(schema, purpose)
        pairs, schemas = [], []
        for name, header in zip(self.fields, self.headers, strict=True):
            field = shape.field(name)
            if field is None:
                raise RecordError(
                    f"field {name!r} is not in the schema of the record's {self.part.value.lower()}"
                )
            pairs.append((header, field_value(struct, field, self.replace_null_with_default)))
            schemas.append(_header_field_schema(shape.names.resolve(field["type"])))
        moved = self.part.hint(record)
        updated_value: Any = struct
        if self.move:
            kept = [field for field in shape.fields if field["name"] not in self.fields]
            moved = shape.rebuilt(kept)
            updated_value = {
                field["name"]: field_value(struct, field, self.replace_null_with_default) for field in kept
            }
        out = self.part.replace(record, updated_value, moved)
        return out.add_headers(tuple(pairs), schemas)


def _header_field_schema(schema: Any) -> Any:
    """The copied field's schema as its header's, or None (inferred from the value) when it holds a
    named type: the headers record would define that name a second time beside the value's."""
    return schema if not _names_a_type(schema) else None


def _names_a_type(schema: Any) -> bool:
    if isinstance(schema, str):
        return schema not in PRIMITIVES
    if isinstance(schema, list):
        return any(_names_a_type(branch) for branch in schema)
    kind = schema.get("type")
    if kind in NAMED:
        return True
    if kind == "array":
        return _names_a_type(schema["items"])
    if kind == "map":
        return _names_a_type(schema["values"])
    # "array" and "map" themselves name no type: an array or map of primitives keeps its schema
    return _names_a_type(kind) if not isinstance(kind, str) else kind not in PRIMITIVES


def header_from(options: TransformOptions, clock: Clock, part: Part) -> HeaderFrom:
    """``HeaderFrom$Key`` / ``HeaderFrom$Value`` from their options."""
    options.check_known(("fields", "headers", "operation", REPLACE_NULL))
    fields, headers = options.items("fields"), options.items("headers")
    for name, listed in (("fields", fields), ("headers", headers)):
        if not listed:
            raise ConfigError(f"{options.key(name)} is required by {options.class_name}: a non-empty list.")
    if len(fields) != len(headers):
        raise ConfigError(
            f"{options.key('fields')} and {options.key('headers')} must have the same number of elements."
        )
    operation = options.text("operation")
    if operation not in ("move", "copy"):
        raise ConfigError(
            f"Invalid value {operation!r} for {options.key('operation')}: expected move or copy."
        )
    return HeaderFrom(part, fields, headers, operation == "move", replace_null_with_default(options))


@dataclass(frozen=True)
class InsertHeader:
    """Adds one header with a fixed value to every record: ``value.literal`` as Connect's
    ``Values.parseString`` types it (``42`` an int8, ``[1,2]`` an array, ``abc`` a string)."""

    header: str
    value: Any
    schema: Any
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        value = copy.deepcopy(self.value) if isinstance(self.value, list | dict) else self.value
        return record.add_headers(((self.header, value),), (self.schema,))  # a record's value is its own


def insert_header(options: TransformOptions, clock: Clock) -> InsertHeader:
    """``InsertHeader`` from its options (an empty header name or literal is allowed, as in Connect)."""
    options.check_known(("header", "value.literal"))
    for name in ("header", "value.literal"):
        if not options.is_set(name):
            raise ConfigError(f"{options.key(name)} is required by {options.class_name}.")
    value, connect = parse_string(options.text("value.literal") or "")
    return InsertHeader(options.text("header") or "", value, header_schema(connect))


@dataclass(frozen=True)
class DropHeaders:
    """Removes every header with one of the listed names."""

    headers: frozenset[str]
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        return record.keep_headers(lambda name: name not in self.headers)


def drop_headers(options: TransformOptions, clock: Clock) -> DropHeaders:
    """``DropHeaders`` from its options."""
    options.check_known(("headers",))
    headers = options.items("headers")
    if not headers:
        raise ConfigError(f"{options.key('headers')} is required by {options.class_name}: a non-empty list.")
    return DropHeaders(frozenset(headers))


TRANSFORMS: dict[str, TransformFactory] = {
    **variants(PACKAGE + "HeaderFrom", header_from),
    PACKAGE + "InsertHeader": insert_header,
    PACKAGE + "DropHeaders": drop_headers,
}
"""The registrations of this module, merged into the catalog."""
