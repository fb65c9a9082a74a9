"""Connect's field transforms: ``InsertField``, ``ReplaceField`` and ``MaskField`` (each ``$Key``/``$Value``).

They add, drop, rename or blank fields of a struct (data with a schema) or a map (schemaless),
exactly as Kafka's classes of the same names do, so a pipeline moved from a Connect worker to
lakesink writes the same rows. With a schema, the part's schema is rebuilt to match.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum
from typing import Any

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.schema.model import TIMESTAMP_MILLIS, Schema, is_nullable, optional
from lakesink.domain.transforms.chain import TransformFactory
from lakesink.domain.transforms.kafka_data import (
    PACKAGE,
    REPLACE_NULL,
    connect_type,
    field_value,
    replace_null_with_default,
    require_map,
    require_struct,
    struct_schema,
    type_name,
)
from lakesink.domain.transforms.kafka_numbers import BITS, float32, narrow, parse_number
from lakesink.domain.transforms.options import TransformOptions
from lakesink.domain.transforms.parts import Part, variants

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _unique(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``fields`` when their names are distinct (Connect's ``SchemaBuilder`` refuses duplicates).

    Raises:
        RecordError: two fields share a name.
    """
    seen: set[str] = set()
    for field in fields:
        if field["name"] in seen:
            raise RecordError(f"Cannot create field because of field name duplication {field['name']}")
        seen.add(field["name"])
    return fields


# --- InsertField ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Insertion:
    """A field to insert: ``name!`` makes it required in the schema, ``name?`` (the default) optional."""

    name: str
    optional: bool

    @classmethod
    def parse(cls, spec: str | None) -> _Insertion | None:
        if spec is None:
            return None
        if spec.endswith("?"):
            return cls(spec[:-1], True)
        if spec.endswith("!"):
            return cls(spec[:-1], False)
        return cls(spec, True)

    def schema_field(self, schema: Schema) -> dict[str, Any]:
        if self.optional:
            return {"name": self.name, "type": optional(schema), "default": None}
        return {"name": self.name, "type": schema}


class Source(Enum):
    """What an inserted field holds."""

    TOPIC = "topic"
    PARTITION = "partition"
    OFFSET = "offset"
    TIMESTAMP = "timestamp"
    STATIC = "static"


@dataclass(frozen=True)
class InsertField:
    """Adds the record's topic, partition, offset, timestamp and/or a static string to the part."""

    part: Part
    topic: _Insertion | None
    partition: _Insertion | None
    offset: _Insertion | None
    timestamp: _Insertion | None
    static: _Insertion | None
    static_value: str | None
    replace_null_with_default: bool
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        data = self.part.data(record)
        if data is None:
            return record
        schema = self.part.schema(record)
        if schema is None:
            updated = {**require_map(data, "field insertion"), **self._insertions(record, schemaless=True)}
            return self.part.replace(record, updated, None)
        struct = require_struct(data, "field insertion")
        shape = struct_schema(schema, "field insertion")
        added = [
            spec.schema_field(field_schema)
            for spec, field_schema in (
                (self.topic, "string"),
                (self.partition, "int"),
                (self.offset, "long"),
                (self.timestamp, TIMESTAMP_MILLIS),
                (self.static, "string"),
            )
            if spec is not None
        ]
        fields = _unique([*shape.fields, *added])
        updated = {
            field["name"]: field_value(struct, field, self.replace_null_with_default)
            for field in shape.fields
        }
        for field in added:
            updated[field["name"]] = None
        updated.update(self._insertions(record, schemaless=False))
        for field in added:
            if updated[field["name"]] is None and not is_nullable(field["type"]):
                raise RecordError(f'Invalid value: null used for required field: "{field["name"]}"')
        return self.part.replace(record, updated, shape.rebuilt(fields))

    def inserted(self) -> tuple[tuple[str, Source], ...]:
        """The fields to insert, in the order Connect puts them: (name, what the value is)."""
        specs = (
            (self.topic, Source.TOPIC),
            (self.partition, Source.PARTITION),
            (self.offset, Source.OFFSET),
            (self.timestamp, Source.TIMESTAMP),
            (self.static if self.static_value is not None else None, Source.STATIC),
        )
        return tuple((spec.name, source) for spec, source in specs if spec is not None)

    def _insertions(self, record: Record, *, schemaless: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, source in self.inserted():
            if source is Source.TOPIC:
                out[name] = record.topic
            elif source is Source.PARTITION:
                out[name] = record.partition
            elif source is Source.OFFSET:
                out[name] = record.offset
            elif source is Source.STATIC:
                out[name] = self.static_value
            elif record.timestamp is not None:
                stamp = record.timestamp
                out[name] = stamp if schemaless else _EPOCH + timedelta(milliseconds=stamp)
        return out


def insert_field(options: TransformOptions, clock: Clock, part: Part) -> InsertField:
    """``InsertField$Key`` / ``InsertField$Value`` from their options."""
    names = ("topic.field", "partition.field", "offset.field", "timestamp.field", "static.field")
    options.check_known((*names, "static.value", REPLACE_NULL))
    topic, partition, offset, timestamp, static = (_Insertion.parse(options.text(name)) for name in names)
    if all(spec is None for spec in (topic, partition, offset, timestamp, static)):
        raise ConfigError(
            f"No field insertion configured for {options.prefix.rstrip('.')}: set one of "
            f"{', '.join(options.key(name) for name in names)}."
        )
    static_value = options.text("static.value")
    if static is not None and static_value is None:
        raise ConfigError(
            f"{options.key('static.value')}: no value specified for static field {static.name!r}."
        )
    return InsertField(
        part, topic, partition, offset, timestamp, static, static_value, replace_null_with_default(options)
    )


# --- ReplaceField ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplaceField:
    """Keeps (``include``), drops (``exclude``, which wins) and renames (``renames``) fields."""

    part: Part
    exclude: frozenset[str]
    include: frozenset[str]
    renames: Mapping[str, str]
    replace_null_with_default: bool
    reads_wall_clock = False
    routes = False

    def kept(self, name: str) -> bool:
        """Whether a field survives the include/exclude filter."""
        return name not in self.exclude and (not self.include or name in self.include)

    def output_names(self, names: Iterable[str]) -> dict[str, str]:
        """Each field name of the result → the input field it comes from, in the result's order
        (two fields renamed alike: the place of the first, the value of the last, as a map put)."""
        return {self.renames.get(name, name): name for name in names if self.kept(name)}

    def apply(self, record: Record) -> Record:
        data = self.part.data(record)
        if data is None:
            return record
        schema = self.part.schema(record)
        if schema is None:
            value = require_map(data, "field replacement")
            updated = {new: value[old] for new, old in self.output_names(value).items()}
            return self.part.replace(record, updated, None)
        struct = require_struct(data, "field replacement")
        shape = struct_schema(schema, "field replacement")
        kept = [field for field in shape.fields if self.kept(field["name"])]
        fields = _unique(
            [{**field, "name": self.renames.get(field["name"], field["name"])} for field in kept]
        )
        updated = {
            new["name"]: field_value(struct, old, self.replace_null_with_default)
            for old, new in zip(kept, fields, strict=True)
        }
        return self.part.replace(record, updated, shape.rebuilt(fields))


def _renames(options: TransformOptions) -> dict[str, str]:
    """``renames=a:b,c:d`` as a dict; an entry that is not exactly two names is an error (a trailing
    empty name does not count, as Java's ``split`` drops it)."""
    out = {}
    for mapping in options.items("renames"):
        parts = mapping.split(":")
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        if len(parts) != 2:
            raise ConfigError(
                f"Invalid rename mapping {mapping!r} in {options.key('renames')}: expected old:new."
            )
        out[parts[0]] = parts[1]
    return out


def _listed(options: TransformOptions, name: str, deprecated: str) -> frozenset[str]:
    """A field list, read from its deprecated name when only that is set (Connect 2.x–3.x aliases)."""
    source = name if options.is_set(name) or not options.is_set(deprecated) else deprecated
    return frozenset(options.items(source))


def replace_field(options: TransformOptions, clock: Clock, part: Part) -> ReplaceField:
    """``ReplaceField$Key`` / ``ReplaceField$Value`` from their options."""
    options.check_known(("exclude", "include", "renames", "blacklist", "whitelist", REPLACE_NULL))
    return ReplaceField(
        part,
        _listed(options, "exclude", "blacklist"),
        _listed(options, "include", "whitelist"),
        _renames(options),
        replace_null_with_default(options),
    )


# --- MaskField ------------------------------------------------------------------------------


def _blank(value: Any) -> Any:
    """Connect's "null value" of a value's type: 0, false, "", epoch, empty list or map."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 0.0
    if isinstance(value, Decimal):
        return Decimal(0)
    if isinstance(value, str):
        return ""
    if isinstance(value, datetime):
        return _EPOCH if value.tzinfo is not None else _EPOCH.replace(tzinfo=None)
    if isinstance(value, date):
        return date(1970, 1, 1)
    if isinstance(value, time):
        return time(0)
    if isinstance(value, list | tuple):
        return []
    if isinstance(value, Mapping):
        return {}
    raise RecordError(f"Cannot mask value of type: {type_name(value)}")


def _replacement(value: Any, text: str, connect: str | None) -> Any:
    """The ``replacement`` text converted to the value's type (numbers and strings only)."""
    if isinstance(value, str):
        return text
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise RecordError(f"Cannot mask value of type {type_name(value)} with custom replacement.")
    try:
        number = parse_number(text)
    except ValueError:
        raise RecordError(f"Unable to convert {text} (String) to number") from None
    if isinstance(value, Decimal):
        return number
    if isinstance(value, float):
        return float32(float(number)) if connect == "FLOAT32" else float(number)
    return narrow(number, BITS.get(connect or "INT64", 64))


@dataclass(frozen=True)
class MaskField:
    """Replaces the listed fields by their type's null value, or by ``replacement`` converted to it."""

    part: Part
    fields: frozenset[str]
    replacement: str | None
    replace_null_with_default: bool
    reads_wall_clock = False
    routes = False

    def masked(self, value: Any, connect: str | None) -> Any:
        """The mask of one field value (null stays null)."""
        if value is None:
            return None
        if connect == "STRUCT":  # a struct is a Mapping here, but Connect's Struct has no mask
            raise RecordError("Cannot mask value of type: Struct")
        return _blank(value) if self.replacement is None else _replacement(value, self.replacement, connect)

    def apply(self, record: Record) -> Record:
        data = self.part.data(record)
        schema = self.part.schema(record)
        if schema is None:
            value = require_map(data, "mask fields")
            updated = {**value, **{name: self.masked(value.get(name), None) for name in sorted(self.fields)}}
            return self.part.replace(record, updated, None)
        struct = require_struct(data, "mask fields")
        shape = struct_schema(schema, "mask fields")
        updated = {}
        for field in shape.fields:
            original = field_value(struct, field, self.replace_null_with_default)
            if field["name"] in self.fields:
                updated[field["name"]] = self.masked(original, connect_type(field["type"], shape.names)[0])
            else:
                updated[field["name"]] = original
        return self.part.replace(record, updated, self.part.hint(record))


def mask_field(options: TransformOptions, clock: Clock, part: Part) -> MaskField:
    """``MaskField$Key`` / ``MaskField$Value`` from their options."""
    options.check_known(("fields", "replacement", REPLACE_NULL))
    fields = options.items("fields")
    if not fields:
        raise ConfigError(
            f"{options.key('fields')} is required by {options.class_name}: list the fields to mask."
        )
    replacement = options.text("replacement")
    if replacement == "":
        raise ConfigError(f"Invalid value for {options.key('replacement')}: String must be non-empty.")
    return MaskField(part, frozenset(fields), replacement, replace_null_with_default(options))


TRANSFORMS: dict[str, TransformFactory] = {
    **variants(PACKAGE + "InsertField", insert_field),
    **variants(PACKAGE + "ReplaceField", replace_field),
    **variants(PACKAGE + "MaskField", mask_field),
}
"""The registrations of this module, merged into the catalog."""
