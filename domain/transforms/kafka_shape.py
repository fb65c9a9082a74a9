"""Connect's reshaping transforms: ``ValueToKey``, ``ExtractField``, ``HoistField`` and ``Flatten``.

They move data between the key and the value, pull one field out of a struct or map, wrap a
whole part into a one-field struct, or flatten nested structs into one level, with Kafka's
semantics; with a schema the part's schema is rebuilt so writers get the right file schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, time
from decimal import Decimal
from typing import Any

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.schema.model import Names, Schema, is_nullable, non_null, optional
from lakesink.domain.transforms.chain import TransformFactory
from lakesink.domain.transforms.kafka_data import (
    PACKAGE,
    REPLACE_NULL,
    StructSchema,
    connect_type,
    field_value,
    replace_null_with_default,
    require_map,
    require_struct,
    struct_schema,
    type_name,
)
from lakesink.domain.transforms.options import TransformOptions
from lakesink.domain.transforms.parts import Part, variants

_FLAT_TYPES = frozenset(
    {"INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES", "ARRAY"}
)


# --- ValueToKey -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ValueToKey:
    """Replaces the key by a struct (or map) of some fields of the value."""

    fields: tuple[str, ...]
    replace_null_with_default: bool
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        schema = Part.VALUE.schema(record)
        if schema is None:
            value = require_map(record.value, "copying fields from value to key")
            return Part.KEY.replace(record, {name: value.get(name) for name in self.fields}, None)
        struct = require_struct(record.value, "copying fields from value to key")
        shape = struct_schema(schema, "copying fields from value to key")
        key_fields = []
        for name in self.fields:
            field = shape.field(name)
            if field is None:
                raise RecordError(f"Field does not exist: {name}")
            key_fields.append({"name": name, "type": field["type"]})
        key = {
            name: field_value(struct, shape.field(name) or {}, self.replace_null_with_default)
            for name in self.fields
        }
        return Part.KEY.replace(record, key, {"type": "record", "fields": key_fields})


def value_to_key(options: TransformOptions, clock: Clock) -> ValueToKey:
    """``ValueToKey`` from its options."""
    options.check_known(("fields", REPLACE_NULL))
    fields = options.items("fields")
    if not fields:
        raise ConfigError(
            f"{options.key('fields')} is required by {options.class_name}: list the value's fields."
        )
    return ValueToKey(fields, replace_null_with_default(options))


# --- ExtractField ---------------------------------------------------------------------------


def field_path(text: str, version: str, key: str) -> tuple[str, ...]:
    """The steps of a field path: the whole text in syntax V1, dotted steps in V2 (KIP-821), where a
    step holding dots is written between backticks and a backtick inside one is escaped with ``\\``.

    Raises:
        ConfigError: a backtick pair is not closed (names the option ``key``).
    """
    if version == "V1":
        return (text,)
    steps: list[str] = []
    pos = 0
    while pos < len(text):
        if text[pos] != "`":
            dot = text.find(".", pos)
            steps.append(text[pos:] if dot < 0 else text[pos:dot])
            pos = len(text) if dot < 0 else dot + 1
            continue
        opened, pos, start, step = pos, pos + 1, pos + 1, ""
        while True:
            close = text.find("`", pos)
            if close < 0:
                raise _unclosed(text, opened, key)
            escaped = text[close - 1] == "\\"
            if close >= len(text) - 1:
                if escaped:
                    raise _unclosed(text, opened, key)
                steps.append(step + text[start:close])
                pos = close + 1
                break
            if text[close + 1] != ".":
                pos = close + 1
                continue
            if escaped:
                step += text[start : close - 1] + "`"
                pos = start = close + 1
                continue
            steps.append(step + text[start:close])
            pos = close + 2
            break
    if text.endswith("."):
        steps.append("")
    return tuple(steps)


def _unclosed(text: str, position: int, key: str) -> ConfigError:
    return ConfigError(
        f"Invalid value {text!r} for {key}: incomplete backtick pair in path, consider adding a backslash "
        f"before the backtick at position {position} to escape it."
    )


@dataclass(frozen=True)
class ExtractField:
    """Replaces the part by one of its fields (a nested one with ``field.syntax.version=V2``)."""

    part: Part
    path: tuple[str, ...]
    original: str
    replace_null_with_default: bool
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        data = self.part.data(record)
        schema = self.part.schema(record)
        if schema is None:
            current: Any = require_map(data, "field extraction") if data is not None else None
            for step in self.path[:-1]:
                if current is None:
                    break
                current = current.get(step)
                if current is not None:
                    current = require_map(current, "nested field access")
            return self.part.replace(record, None if current is None else current.get(self.path[-1]), None)
        if data is not None:
            require_struct(data, "field extraction")
        names = Names(schema)
        shape = struct_schema(schema, "field extraction", names)
        value: Any = data
        for step in self.path[:-1]:
            field = shape.field(step)
            if field is None:
                raise RecordError(f"Unknown field: {self.original}")
            shape = struct_schema(field["type"], "nested field access", names)
            value = (
                None
                if value is None
                else field_value(require_struct(value, "nested field access"), field, True)
            )
        field = shape.field(self.path[-1])
        if field is None:
            raise RecordError(f"Unknown field: {self.original}")
        extracted = None if value is None else field_value(value, field, self.replace_null_with_default)
        return self.part.replace(record, extracted, names.resolve(field["type"]))


def extract_field(options: TransformOptions, clock: Clock, part: Part) -> ExtractField:
    """``ExtractField$Key`` / ``ExtractField$Value`` from their options."""
    options.check_known(("field", "field.syntax.version", REPLACE_NULL))
    if not options.is_set("field"):
        raise ConfigError(f"{options.key('field')} is required by {options.class_name}.")
    original = options.text("field") or ""
    version = options.choice("field.syntax.version", ("V1", "V2"), "V1")
    path = field_path(original, version, options.key("field"))
    return ExtractField(part, path, original, replace_null_with_default(options))


# --- HoistField -----------------------------------------------------------------------------


@dataclass(frozen=True)
class HoistField:
    """Wraps the whole part into a struct (or map) with one field."""

    part: Part
    field: str
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        data = self.part.data(record)
        schema = self.part.schema(record)
        if schema is None:
            return self.part.replace(record, {self.field: data}, None)
        wrapped = {"type": "record", "fields": [{"name": self.field, "type": schema}]}
        return self.part.replace(record, {self.field: data}, wrapped)


def hoist_field(options: TransformOptions, clock: Clock, part: Part) -> HoistField:
    """``HoistField$Key`` / ``HoistField$Value`` from their options."""
    options.check_known(("field",))
    if not options.is_set("field"):
        raise ConfigError(f"{options.key('field')} is required by {options.class_name}.")
    return HoistField(part, options.text("field") or "")


# --- Flatten --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Flatten:
    """Lifts the fields of nested structs (maps) to the top level, naming them ``parent<delimiter>child``.

    Arrays are kept as they are; with a schema, maps are refused (as in Connect), and a field under
    an optional struct becomes optional, inheriting a default from its ancestors.
    """

    part: Part
    delimiter: str
    reads_wall_clock = False
    routes = False

    def name(self, prefix: str, field: str) -> str:
        """A flattened field name."""
        return f"{prefix}{self.delimiter}{field}" if prefix else field

    def apply(self, record: Record) -> Record:
        data = self.part.data(record)
        if data is None:
            return record
        schema = self.part.schema(record)
        if schema is None:
            out: dict[str, Any] = {}
            self._flatten_map(require_map(data, "flattening"), "", out)
            return self.part.replace(record, out, None)
        struct = require_struct(data, "flattening")
        shape = struct_schema(schema, "flattening")
        fields: list[dict[str, Any]] = []
        self._flatten_schema(shape, "", shape.optional, None, fields)
        values: dict[str, Any] = {}
        self._flatten_struct(struct, shape, "", values)
        flat = {field["name"]: values.get(field["name"], field.get("default")) for field in fields}
        return self.part.replace(record, flat, shape.rebuilt(fields))

    def _flatten_map(self, value: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, item in value.items():
            name = self.name(prefix, key)
            if isinstance(item, Mapping):
                self._flatten_map(require_map(item, "flattening"), name, out)
            elif item is None or isinstance(item, bool | int | float | str | bytes | list | tuple):
                out[name] = item
            elif isinstance(item, Decimal | date | time):
                raise RecordError(
                    f"Flatten transformation was passed a value of type {type_name(item)} which is not "
                    "supported by Connect's data API"
                )
            else:
                raise RecordError(
                    f"Flatten transformation does not support {type_name(item)} for record without schemas "
                    f"(for field {name})."
                )

    def _flatten_schema(
        self,
        shape: StructSchema,
        prefix: str,
        parent_optional: bool,
        parent_default: Mapping[str, Any] | None,
        out: list[dict[str, Any]],
    ) -> None:
        for field in shape.fields:
            name = self.name(prefix, field["name"])
            field_type = field["type"]
            is_optional = parent_optional or is_nullable(field_type)
            default = field.get("default")
            if default is None and parent_default is not None:
                default = parent_default.get(field["name"])
            connect = self._connect_type(field_type, shape, name)
            if connect == "STRUCT":
                nested = struct_schema(field_type, "flattening", shape.names)
                self._flatten_schema(nested, name, is_optional, default, out)
            else:
                out.append(_flat_field(name, field_type, is_optional, default))

    def _flatten_struct(
        self, struct: Mapping[str, Any], shape: StructSchema, prefix: str, out: dict[str, Any]
    ) -> None:
        for field in shape.fields:
            name = self.name(prefix, field["name"])
            value = field_value(struct, field, True)
            if self._connect_type(field["type"], shape, name) == "STRUCT":
                if value is not None:
                    nested = struct_schema(field["type"], "flattening", shape.names)
                    self._flatten_struct(require_struct(value, "flattening"), nested, name, out)
            else:
                out[name] = value

    @staticmethod
    def _connect_type(schema: Schema, shape: StructSchema, name: str) -> str:
        connect = connect_type(schema, shape.names)[0]
        if connect != "STRUCT" and connect not in _FLAT_TYPES:
            raise RecordError(
                f"Flatten transformation does not support {connect} for record with schemas (for field {name})."
            )
        return connect


def _flat_field(name: str, schema: Schema, is_optional: bool, default: Any) -> dict[str, Any]:
    """A flattened field: optional when it or an ancestor is; a non-null default goes with the first
    branch of the union, as Avro requires."""
    core = non_null(schema)
    if default is not None:
        return {"name": name, "type": [*core, "null"] if is_optional else schema, "default": default}
    if is_optional:
        return {"name": name, "type": optional(schema), "default": None}
    return {"name": name, "type": schema}


def flatten(options: TransformOptions, clock: Clock, part: Part) -> Flatten:
    """``Flatten$Key`` / ``Flatten$Value`` from their options."""
    options.check_known(("delimiter",))
    return Flatten(part, options.text("delimiter", ".") or "")


TRANSFORMS: dict[str, TransformFactory] = {
    PACKAGE + "ValueToKey": value_to_key,
    **variants(PACKAGE + "ExtractField", extract_field),
    **variants(PACKAGE + "HoistField", hoist_field),
    **variants(PACKAGE + "Flatten", flatten),
}
"""The registrations of this module, merged into the catalog."""
