"""Connect's header transforms: ``HeaderFrom$Key``/``$Value``, ``InsertHeader`` and ``DropHeaders``.

Headers are ``(name, value)`` pairs in Connect's order; a header added goes last, and a name may
repeat (adding never replaces). Values are Python data, as the sink's header converter gives them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.transforms.chain import TransformFactory
from lakesink.domain.transforms.kafka_data import field_value, require_map, require_struct, struct_schema
from lakesink.domain.transforms.options import TransformOptions
from lakesink.domain.transforms.parts import Part, variants

_PACKAGE = "org.apache.kafka.connect.transforms."


def literal_header_value(text: str) -> Any:
    """The header value of ``InsertHeader``'s ``value.literal``.

    PLACEHOLDER, to be swapped: Connect parses the literal with ``Values.parseString`` (numbers,
    booleans, arrays, maps…); until lakesink's port of it lands, the literal stays a string.
    """
    return text


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
            return dataclasses.replace(
                self.part.replace(record, updated, None), headers=record.headers + added
            )
        struct = require_struct(data, purpose)
        shape = struct_schema(schema, purpose)
        pairs = []
        for name, header in zip(self.fields, self.headers, strict=True):
            field = shape.field(name)
            if field is None:
                raise RecordError(
                    f"field {name!r} is not in the schema of the record's {self.part.value.lower()}"
                )
            pairs.append((header, field_value(struct, field, self.replace_null_with_default)))
        moved = self.part.hint(record)
        updated_value: Any = struct
        if self.move:
            kept = [field for field in shape.fields if field["name"] not in self.fields]
            moved = shape.rebuilt(kept)
            updated_value = {
                field["name"]: field_value(struct, field, self.replace_null_with_default) for field in kept
            }
        out = self.part.replace(record, updated_value, moved)
        return dataclasses.replace(out, headers=record.headers + tuple(pairs))


def header_from(options: TransformOptions, clock: Clock, part: Part) -> HeaderFrom:
    """``HeaderFrom$Key`` / ``HeaderFrom$Value`` from their options."""
    options.check_known(("fields", "headers", "operation", "replace.null.with.default"))
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
    return HeaderFrom(
        part, fields, headers, operation == "move", options.boolean("replace.null.with.default", True)
    )


@dataclass(frozen=True)
class InsertHeader:
    """Adds one header with a fixed value to every record."""

    header: str
    value: Any
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        return dataclasses.replace(record, headers=(*record.headers, (self.header, self.value)))


def insert_header(options: TransformOptions, clock: Clock) -> InsertHeader:
    """``InsertHeader`` from its options (an empty header name or literal is allowed, as in Connect)."""
    options.check_known(("header", "value.literal"))
    for name in ("header", "value.literal"):
        if not options.is_set(name):
            raise ConfigError(f"{options.key(name)} is required by {options.class_name}.")
    return InsertHeader(
        options.text("header") or "", literal_header_value(options.text("value.literal") or "")
    )


@dataclass(frozen=True)
class DropHeaders:
    """Removes every header with one of the listed names."""

    headers: frozenset[str]
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        kept = tuple(pair for pair in record.headers if pair[0] not in self.headers)
        return dataclasses.replace(record, headers=kept)


def drop_headers(options: TransformOptions, clock: Clock) -> DropHeaders:
    """``DropHeaders`` from its options."""
    options.check_known(("headers",))
    headers = options.items("headers")
    if not headers:
        raise ConfigError(f"{options.key('headers')} is required by {options.class_name}: a non-empty list.")
    return DropHeaders(frozenset(headers))


TRANSFORMS: dict[str, TransformFactory] = {
    **variants(_PACKAGE + "HeaderFrom", header_from),
    _PACKAGE + "InsertHeader": insert_header,
    _PACKAGE + "DropHeaders": drop_headers,
}
"""The registrations of this module, merged into the catalog."""
