"""Connect's ``Cast$Key`` / ``Cast$Value``: fields (or the whole part) converted to another primitive type.

Casts follow Java: numbers narrow by keeping the low bits, strings parse strictly as integers and
leniently as floats, ``boolean`` from text is ``"true"`` in any case (everything else is false),
binary casts only to a base64 string, and logical types cast as their encoded number (epoch
millis, days, millis of the day) or, to a string, as Connect's ISO-8601 text. The schema follows:
a cast field keeps its optionality and its default, cast too.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.schema.model import Names, Schema, is_nullable, optional
from lakesink.domain.transforms.chain import TransformFactory
from lakesink.domain.transforms.kafka_data import (
    DATE,
    REPLACE_NULL,
    TIME,
    TIMESTAMP,
    connect_type,
    epoch_millis,
    field_value,
    replace_null_with_default,
    require_map,
    require_struct,
    struct_schema,
    type_name,
)
from lakesink.domain.transforms.kafka_numbers import (
    BITS,
    float32,
    java_double_text,
    narrow,
    parse_java_float,
    parse_java_int,
)
from lakesink.domain.transforms.options import TransformOptions
from lakesink.domain.transforms.parts import Part, variants

_INPUTS = ("INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES")
_OUTPUTS = _INPUTS[:-1]
_CONNECT_TYPES = (*_INPUTS, "ARRAY", "MAP", "STRUCT")
_AVRO: dict[str, Schema] = {
    "INT8": {"type": "int", "connect.type": "int8"},
    "INT16": {"type": "int", "connect.type": "int16"},
    "INT32": "int",
    "INT64": "long",
    "FLOAT32": "float",
    "FLOAT64": "double",
    "BOOLEAN": "boolean",
    "STRING": "string",
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DAY_MILLIS = 86_400_000


def _schemaless_type(value: Any) -> str:
    """The Connect type of schemaless data (JSON numbers are ``Long``/``Double``)."""
    for python, connect in ((bool, "BOOLEAN"), (int, "INT64"), (float, "FLOAT64"), (str, "STRING")):
        if isinstance(value, python):
            return connect
    if isinstance(value, bytes | bytearray):
        return "BYTES"
    if isinstance(value, list | tuple):
        return "ARRAY"
    if isinstance(value, Mapping):
        return "MAP"
    raise RecordError(
        f"Cast transformation was passed a value of type {type_name(value)} which is not supported by "
        "Connect's data API"
    )


def _encoded(value: Any, logical: str | None) -> Any:
    """A logical value as the number Connect stores it as (days, millis of the day, epoch millis)."""
    if logical == DATE and isinstance(value, date):
        return epoch_millis(value) // _DAY_MILLIS
    if logical in (TIME, TIMESTAMP) and isinstance(value, date | time):
        return epoch_millis(value)
    return value


def _date_text(value: date | time) -> str:
    """Connect's ``Values.dateFormatFor``: a time before the first day passes for a Time, a whole day for a Date."""
    millis = epoch_millis(value)
    moment = _EPOCH + timedelta(milliseconds=millis)
    clock = f"{moment:%H:%M:%S}.{moment.microsecond // 1000:03d}Z"
    if millis < _DAY_MILLIS:
        return clock
    day = f"{moment.year:04d}-{moment:%m-%d}"
    return day if millis % _DAY_MILLIS == 0 else f"{day}T{clock}"


def _to_string(value: Any, source: str) -> str:
    if isinstance(value, date | time):
        return _date_text(value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_text(value, single=source == "FLOAT32")
    return str(value)


def cast_value(value: Any, source: str, logical: str | None, target: str) -> Any:
    """``value`` (of Connect type ``source``) cast to ``target``.

    Raises:
        RecordError: the source type cannot be cast, or the text does not parse.
    """
    if value is None:
        return None
    if source not in _INPUTS:
        raise RecordError(
            f"Cast transformation does not support casting from {source}; supported types are {list(_INPUTS)}"
        )
    if target == "STRING":
        return _to_string(value, source)
    value = _encoded(value, logical)
    if isinstance(value, bool):
        number: int | float | Decimal = int(value)
    elif isinstance(value, int | float | Decimal):
        number = value
    elif isinstance(value, str):
        return _parse(value, target)
    else:
        raise RecordError(f"Unexpected type in Cast transformation: {type_name(value)}")
    if target in BITS:
        return narrow(number, BITS[target])
    if target == "BOOLEAN":
        return narrow(number, 64) != 0
    return float32(float(number)) if target == "FLOAT32" else float(number)


def _parse(text: str, target: str) -> Any:
    if target == "BOOLEAN":
        return text.lower() == "true"
    try:
        if target in BITS:
            return parse_java_int(text, BITS[target])
        parsed = parse_java_float(text)
    except ValueError:
        raise RecordError(f"Value ({text}) was out of range for requested data type") from None
    return float32(parsed) if target == "FLOAT32" else parsed


@dataclass(frozen=True)
class Cast:
    """Casts the fields of ``casts``, or the whole part when ``whole`` is set."""

    part: Part
    casts: Mapping[str, str]
    whole: str | None
    replace_null_with_default: bool
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        data = self.part.data(record)
        if data is None:
            return record
        schema = self.part.schema(record)
        if schema is None:
            if self.whole is not None:
                return self.part.replace(
                    record, cast_value(data, _schemaless_type(data), None, self.whole), None
                )
            value = require_map(data, "cast types")
            cast = {name: _cast_schemaless(value.get(name), target) for name, target in self.casts.items()}
            return self.part.replace(record, {**value, **cast}, None)
        names = Names(schema)
        if self.whole is not None:
            source, logical = connect_type(schema, names)
            new_schema = _target_schema(self.whole, is_nullable(schema))
            return self.part.replace(record, cast_value(data, source, logical, self.whole), new_schema)
        struct = require_struct(data, "cast types")
        shape = struct_schema(schema, "cast types", names)
        fields, updated = [], {}
        for field in shape.fields:
            original = field_value(struct, field, self.replace_null_with_default)
            target = self.casts.get(field["name"])
            if target is None:
                fields.append(field)
                updated[field["name"]] = original
                continue
            source, logical = connect_type(field["type"], names)
            fields.append(_cast_field(field, source, logical, target))
            updated[field["name"]] = cast_value(original, source, logical, target)
        return self.part.replace(record, updated, shape.rebuilt(fields))


def _cast_schemaless(value: Any, target: str) -> Any:
    return None if value is None else cast_value(value, _schemaless_type(value), None, target)


def _target_schema(target: str, nullable: bool) -> Schema:
    schema = _AVRO[target]
    return optional(schema) if nullable else schema


def _cast_field(field: Mapping[str, Any], source: str, logical: str | None, target: str) -> dict[str, Any]:
    out = {**field, "type": _target_schema(target, is_nullable(field["type"]))}
    if field.get("default") is not None:
        out["default"] = cast_value(field["default"], source, logical, target)
    return out


def _spec(options: TransformOptions) -> tuple[dict[str, str], str | None]:
    """``spec`` as {field: type} and the whole-part type (``f1:int32,f2:string`` or ``int64``)."""
    entries = options.items("spec")
    key = options.key("spec")
    if not entries:
        raise ConfigError(
            f"{key} is required by {options.class_name}: must specify at least one field to cast."
        )
    casts: dict[str, str] = {}
    whole = None
    for entry in entries:
        parts = entry.split(":")
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        if len(parts) > 2:
            raise ConfigError(f"Invalid cast {entry!r} in {key}: expected field:type.")
        target = parts[-1].strip().upper()
        if target not in _CONNECT_TYPES:
            raise ConfigError(f"Invalid type found in casting spec {key}: {parts[-1].strip()}")
        if target not in _OUTPUTS:
            raise ConfigError(
                f"Invalid value for {key}: Cast transformation does not support casting to {target}; "
                f"supported types are {list(_OUTPUTS)}"
            )
        if len(parts) == 1:
            whole = target
        else:
            casts[parts[0].strip()] = target
    if whole is not None and len(entries) > 1:
        raise ConfigError(
            f"Invalid value for {key}: a cast of the entire value to one type may be the only cast of the spec."
        )
    return casts, whole


def cast(options: TransformOptions, clock: Clock, part: Part) -> Cast:
    """``Cast$Key`` / ``Cast$Value`` from their options."""
    options.check_known(("spec", REPLACE_NULL))
    casts, whole = _spec(options)
    return Cast(part, casts, whole, replace_null_with_default(options))


TRANSFORMS: dict[str, TransformFactory] = variants("org.apache.kafka.connect.transforms.Cast", cast)
"""The registrations of this module, merged into the catalog."""
