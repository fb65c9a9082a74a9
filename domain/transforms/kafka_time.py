"""Connect's time transforms: ``TimestampConverter$Key``/``$Value`` and ``TimestampRouter``.

The converter turns a timestamp field (or the whole part) between a string (a
``SimpleDateFormat`` pattern, UTC), Unix time (``unix.precision``), and the Connect Date, Time and
Timestamp types, going through epoch milliseconds as Connect goes through ``java.util.Date``.
The router renames the topic from the record timestamp, formatted in UTC.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.schema.model import DATE as DATE_SCHEMA
from lakesink.domain.schema.model import TIME_MILLIS, TIMESTAMP_MILLIS, Names, Schema, is_nullable, optional
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
from lakesink.domain.transforms.kafka_date_format import SimpleDateFormat
from lakesink.domain.transforms.options import TransformOptions
from lakesink.domain.transforms.parts import Part, variants

STRING = "string"
UNIX = "unix"
_TARGETS = (STRING, UNIX, DATE, TIME, TIMESTAMP)
_SCHEMAS: dict[str, Schema] = {
    STRING: "string",
    UNIX: "long",
    DATE: DATE_SCHEMA,
    TIME: TIME_MILLIS,
    TIMESTAMP: TIMESTAMP_MILLIS,
}
_UNIT_NANOS = {"seconds": 10**9, "milliseconds": 10**6, "microseconds": 10**3, "nanoseconds": 1}
_MILLI_NANOS = 10**6
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PURPOSE = "converting timestamp formats"


def _truncated_division(numerator: int, denominator: int) -> int:
    """Java's integer division, rounding toward zero (``TimeUnit`` conversions)."""
    quotient = abs(numerator) // denominator
    return quotient if numerator >= 0 else -quotient


@dataclass(frozen=True)
class TimestampConverter:
    """Converts ``field`` (or the whole part when empty) to ``target``."""

    part: Part
    field: str
    target: str
    format: SimpleDateFormat | None
    unix_precision: str
    replace_null_with_default: bool
    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> Record:
        data = self.part.data(record)
        schema = self.part.schema(record)
        if schema is None:
            if data is None or not self.field:
                return self.part.replace(record, self.convert(data, None), None)
            value = require_map(data, _PURPOSE)
            return self.part.replace(
                record, {**value, self.field: self.convert(value.get(self.field), None)}, None
            )
        names = Names(schema)
        if not self.field:
            updated = _target_schema(self.target, is_nullable(schema))
            return self.part.replace(record, self.convert(data, _source_type(schema, names)), updated)
        shape = struct_schema(schema, _PURPOSE, names)
        fields = [
            {**field, "type": _target_schema(self.target, is_nullable(field["type"]))}
            if field["name"] == self.field
            else field
            for field in shape.fields
        ]
        if data is None:
            return self.part.replace(record, None, shape.rebuilt(fields))
        struct = require_struct(data, _PURPOSE)
        updated_value = {}
        for field in shape.fields:
            item = field_value(struct, field, self.replace_null_with_default)
            if field["name"] == self.field:
                item = self.convert(item, _source_type(field["type"], names))
            updated_value[field["name"]] = item
        return self.part.replace(record, updated_value, shape.rebuilt(fields))

    def convert(self, value: Any, source: str | None) -> Any:
        """``value`` (of type ``source``, inferred from the value when None) as the target type."""
        if value is None:
            return None
        return self._from_millis(self._to_millis(value, source or _inferred_type(value)))

    def _to_millis(self, value: Any, source: str) -> int:
        if source == STRING:
            if not isinstance(value, str):
                raise RecordError(f"Expected string timestamp to be a String, but found {type_name(value)}")
            if self.format is None:
                raise RecordError("a string timestamp needs the format option to be parsed")
            try:
                return self.format.parse(value)
            except ValueError:
                raise RecordError(
                    f"Could not parse timestamp: value ({value}) does not match pattern ({self.format.pattern})"
                ) from None
        if source == UNIX:
            if isinstance(value, bool) or not isinstance(value, int):
                raise RecordError(f"Expected Unix timestamp to be a Long, but found {type_name(value)}")
            unit = _UNIT_NANOS[self.unix_precision]
            if unit >= _MILLI_NANOS:
                return value * (unit // _MILLI_NANOS)
            return _truncated_division(value, _MILLI_NANOS // unit)
        if not isinstance(value, date | time):
            raise RecordError(f"Expected {source} to be a java.util.Date, but found {type_name(value)}")
        return epoch_millis(value)

    def _from_millis(self, millis: int) -> Any:
        if self.target == UNIX:
            unit = _UNIT_NANOS[self.unix_precision]
            if unit >= _MILLI_NANOS:
                return _truncated_division(millis, unit // _MILLI_NANOS)
            return millis * (_MILLI_NANOS // unit)
        try:
            moment = _EPOCH + timedelta(milliseconds=millis)
        except OverflowError:
            raise RecordError(f"timestamp {millis} is outside the supported range (years 1-9999)") from None
        if self.target == STRING:
            assert self.format is not None  # checked by the factory
            return self.format.format(millis)
        if self.target == DATE:
            return moment.date()
        if self.target == TIME:
            return moment.time()
        return moment


def _inferred_type(value: Any) -> str:
    """Connect's guess for schemaless data: a date-time is a Timestamp, an integer Unix time, text a string."""
    if isinstance(value, date | time):
        return TIMESTAMP
    if isinstance(value, int) and not isinstance(value, bool):
        return UNIX
    if isinstance(value, str):
        return STRING
    raise RecordError(f"TimestampConverter does not support {type_name(value)} objects as timestamps")


def _source_type(schema: Schema, names: Names) -> str:
    connect, logical = connect_type(schema, names)
    if logical in (TIMESTAMP, DATE, TIME):
        return logical
    if connect == "STRING":
        return STRING
    if connect == "INT64":
        return UNIX
    raise RecordError(f"Schema {schema!r} does not correspond to a known timestamp type format")


def _target_schema(target: str, nullable: bool) -> Schema:
    schema = _SCHEMAS[target]
    return optional(schema) if nullable else schema


def _exact_choice(options: TransformOptions, name: str, choices: tuple[str, ...], default: str | None) -> str:
    """One of ``choices``, case-sensitive as Connect's ``ValidString``."""
    value = options.text(name, default)
    if value is None:
        raise ConfigError(
            f"{options.key(name)} is required by {options.class_name}: one of {', '.join(choices)}."
        )
    if value not in choices:
        raise ConfigError(
            f"Invalid value {value!r} for {options.key(name)}: expected one of {', '.join(choices)}."
        )
    return value


def _compiled(options: TransformOptions, name: str, pattern: str, clock: Clock) -> SimpleDateFormat:
    try:
        return SimpleDateFormat.compile(pattern, clock.now_ms())
    except ValueError as error:
        raise ConfigError(
            f"Invalid value {pattern!r} for {options.key(name)}: not a SimpleDateFormat pattern ({error})."
        ) from None


def timestamp_converter(options: TransformOptions, clock: Clock, part: Part) -> TimestampConverter:
    """``TimestampConverter$Key`` / ``TimestampConverter$Value`` from their options."""
    options.check_known(("field", "target.type", "format", "unix.precision", REPLACE_NULL))
    target = _exact_choice(options, "target.type", _TARGETS, None)
    pattern = options.text("format") or ""
    if target == STRING and not pattern:
        raise ConfigError(
            f"{options.key('format')} is required by {options.class_name} when {options.key('target.type')}=string."
        )
    return TimestampConverter(
        part,
        options.text("field") or "",
        target,
        _compiled(options, "format", pattern, clock) if pattern else None,
        _exact_choice(options, "unix.precision", tuple(_UNIT_NANOS), "milliseconds"),
        replace_null_with_default(options),
    )


@dataclass(frozen=True)
class TimestampRouter:
    """Renames the topic from ``topic.format``, where ``${topic}`` is the topic and ``${timestamp}`` the
    record timestamp formatted with ``timestamp.format`` in UTC."""

    topic_format: str
    timestamp_format: SimpleDateFormat
    reads_wall_clock = False
    routes = True

    def apply(self, record: Record) -> Record:
        if record.timestamp is None:
            raise RecordError("Timestamp missing on record")
        try:
            stamp = self.timestamp_format.format(record.timestamp)
        except (OverflowError, ValueError) as error:
            raise RecordError(f"cannot format timestamp {record.timestamp}: {error}") from None
        topic = self.topic_format.replace("${topic}", record.topic).replace("${timestamp}", stamp)
        return dataclasses.replace(record, topic=topic)


def timestamp_router(options: TransformOptions, clock: Clock) -> TimestampRouter:
    """``TimestampRouter`` from its options."""
    options.check_known(("topic.format", "timestamp.format"))
    topic_format = options.text("topic.format", "${topic}-${timestamp}") or ""
    pattern = options.text("timestamp.format", "yyyyMMdd") or ""
    return TimestampRouter(topic_format, _compiled(options, "timestamp.format", pattern, clock))


TRANSFORMS: dict[str, TransformFactory] = {
    **variants("org.apache.kafka.connect.transforms.TimestampConverter", timestamp_converter),
    "org.apache.kafka.connect.transforms.TimestampRouter": timestamp_router,
}
"""The registrations of this module, merged into the catalog."""
