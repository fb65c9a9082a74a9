"""``timestamp.extractor``: which instant a Confluent time-based partitioner buckets a record by.

A string timestamp of at most 19 ASCII digits (optional ``-``) is epoch millis; any other is
read as ISO-8601 in the common forms of Joda's grammar only (:func:`parse_iso_instant`), so a
key never depends on the Connect worker's zone. See docs/dialects.md, "Keys".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from enum import Enum
from typing import Any

from lakesink.domain.dialects.confluent.fields import (
    MAP,
    STRUCT,
    FieldLookupError,
    SchemaMemo,
    map_value,
    struct_value,
)
from lakesink.domain.dialects.kafka_connect.config_def import LONG_MAX, LONG_MIN, Settings, string_setting
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record

TIMESTAMP_EXTRACTOR = "timestamp.extractor"
TIMESTAMP_FIELD = "timestamp.field"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLI = timedelta(milliseconds=1)
_PACKAGE = "io.confluent.connect.storage.partitioner.TimeBasedPartitioner$"
_NUMERIC = re.compile(r"-?[0-9]{1,19}")
_ISO = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]{1,9}))?)?"
    r"(?:[Zz]|([+-])([0-9]{2})(?:(:?)([0-9]{2})(?:\10([0-9]{2}))?)?)"
)
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class ExtractorKind(Enum):
    """The three built-in ``timestamp.extractor`` values."""

    WALLCLOCK = "Wallclock"
    RECORD = "Record"
    RECORD_FIELD = "RecordField"


_BY_NAME = {
    **{kind.value: kind for kind in ExtractorKind},
    **{f"{_PACKAGE}{kind.value}TimestampExtractor": kind for kind in ExtractorKind},
}


@dataclass(frozen=True, slots=True)
class TimestampExtractor:
    """A configured ``timestamp.extractor``; build it with :meth:`from_settings`."""

    kind: ExtractorKind
    field_name: str = ""
    _memo: SchemaMemo = field(default_factory=SchemaMemo, compare=False, repr=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> TimestampExtractor:
        """Read ``timestamp.extractor`` (default Wallclock) and ``timestamp.field`` (default timestamp).

        A blank ``timestamp.field`` or one with an empty segment (``a..b``) is a ConfigError here;
        Confluent accepts it and fails on every record.

        Raises:
            ConfigError: an unknown or custom extractor class (lakesink cannot run Java
                classes), or an unusable ``timestamp.field`` for RecordField.
        """
        name = string_setting(settings, TIMESTAMP_EXTRACTOR, ExtractorKind.WALLCLOCK.value)
        kind = _BY_NAME.get(name)
        if kind is None:
            raise ConfigError(
                f"Invalid timestamp extractor: {name} ({TIMESTAMP_EXTRACTOR} must be Wallclock, "
                "Record or RecordField; custom extractor classes cannot run in lakesink)"
            )
        if kind is not ExtractorKind.RECORD_FIELD:
            return cls(kind)
        field_name = string_setting(settings, TIMESTAMP_FIELD, "timestamp")
        if not field_name or "" in field_name.split("."):
            raise ConfigError(
                f"Invalid value {field_name!r} for configuration {TIMESTAMP_FIELD}: "
                "a field name with no empty parts is required."
            )
        return cls(kind, field_name)

    def extract(self, record: Record, now_ms: int) -> int:
        """The record's instant in epoch milliseconds.

        ``Wallclock`` (the default): the batch time ``now_ms`` (Confluent hands one ``now`` to every
        record of a ``write()``); ``Record``: the Kafka record timestamp, a record without one (or with a
        negative one, which Kafka Connect rejects) cannot be partitioned; ``RecordField``: the field
        named by ``timestamp.field`` (dotted names walk nested values), in a Struct a Connect Timestamp,
        an INT32/INT64 (epoch millis) or a STRING, in a Map any number (Java ``Number.longValue``:
        fractions truncated), a string or a date-time.

        Raises:
            RecordError: no usable timestamp (Confluent's PartitionException or DataException).
        """
        if self.kind is ExtractorKind.WALLCLOCK:
            return now_ms
        if self.kind is ExtractorKind.RECORD:
            if record.timestamp is None or record.timestamp < 0:
                raise RecordError(
                    f"{record.describe()}: Unable to determine timestamp using timestamp.extractor "
                    f"Record: the record has no timestamp ({record.timestamp})."
                )
            return record.timestamp
        try:
            return self._field_timestamp(record)
        except RecordError:
            raise
        except FieldLookupError as error:
            raise RecordError(
                f"{record.describe()}: The field '{self.field_name}' does not exist or cannot be read: {error}"
            ) from None
        except ValueError as error:
            raise RecordError(
                f"{record.describe()}: Error extracting timestamp from record field: {self.field_name} ({error})"
            ) from None

    def _field_timestamp(self, record: Record) -> int:
        path = self.field_name.split(".")
        shape = self._memo.value_shape(record)
        if shape.kind == STRUCT:
            value = struct_value(record.value, path)
            if value is None:
                raise FieldLookupError("it is missing or null")
            field_type = self._memo.struct_field_type(shape, path)
            if field_type is None:
                raise FieldLookupError("it is not in the value schema")
            if field_type.logical == "Timestamp":
                return _epoch_millis(value)
            if field_type.logical is None and field_type.type in ("INT32", "INT64"):
                return _long(value)
            if field_type.logical is None and field_type.type == "STRING" and isinstance(value, str):
                return timestamp_from_string(value)
            raise ValueError(f"a field of type {field_type.type} ({field_type.logical}) is not a timestamp")
        if shape.kind == MAP:
            return _map_timestamp(map_value(record.value, path))
        raise RecordError(
            f"{record.describe()}: Error encoding partition. (the value is not a Struct or a Map)"
        )


def timestamp_from_string(text: str) -> int:
    """Epoch millis for a timestamp string: digits as millis, else a supported ISO-8601 form.

    Raises:
        ValueError: not a number in the long range and not an ISO form lakesink reads exactly.
    """
    if _NUMERIC.fullmatch(text) and LONG_MIN <= (number := int(text)) <= LONG_MAX:
        return number
    return parse_iso_instant(text)


def parse_iso_instant(text: str) -> int:
    """Epoch millis of ``yyyy-MM-ddTHH:mm[:ss[.f]]`` with ``Z`` or an offset, as Joda parses it.

    Joda's ``ISODateTimeFormat.dateTimeParser()`` grammar, its common forms only: the fraction is
    truncated to milliseconds, ``T`` and ``Z`` may be lower case, ``,`` may replace ``.``, offsets are
    ``±hh``, ``±hh:mm`` or ``±hhmm`` with optional seconds. Every other form is a RecordError, notably
    a date-time **without an offset**, which Joda reads in the JVM's default zone (so the key would
    depend on the Connect worker's host), and Joda's rarer forms (week and ordinal dates, fractional
    hours, one-digit fields, signed years).

    Raises:
        ValueError: another form, or a field out of range (month 13, 24:00, February 30...).
    """
    match = _ISO.fullmatch(text)
    if match is None:
        raise ValueError(
            f"Invalid format: {text!r} is not a timestamp lakesink reads exactly (epoch millis, or "
            "ISO-8601 yyyy-MM-ddTHH:mm[:ss[.SSS]] with Z or an offset)"
        )
    year, month, day, hour, minute, second = (int(part or 0) for part in match.group(1, 2, 3, 4, 5, 6))
    fraction = (match.group(7) or "").ljust(3, "0")[:3]
    sign, offset_hours, _, offset_minutes, offset_seconds = match.group(8, 9, 10, 11, 12)
    oh, om, os_ = int(offset_hours or 0), int(offset_minutes or 0), int(offset_seconds or 0)
    if not 1 <= month <= 12 or not 1 <= day <= _days_in_month(year, month):
        raise ValueError(f"Invalid format: {text!r} has no such date")
    if hour > 23 or minute > 59 or second > 59 or oh > 23 or om > 59 or os_ > 59:
        raise ValueError(f"Invalid format: {text!r} has a time or offset field out of range")
    offset_ms = ((oh * 60 + om) * 60 + os_) * 1000 * (-1 if sign == "-" else 1)
    local_ms = (((_days_from_civil(year, month, day) * 24 + hour) * 60 + minute) * 60 + second) * 1000 + int(
        fraction
    )
    return local_ms - offset_ms


def _map_timestamp(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a timestamp")
    if isinstance(value, int):
        return _long(value)
    if isinstance(value, float):
        return _double_to_long(value)
    if isinstance(value, Decimal):
        if not value.is_finite() or not LONG_MIN <= value <= LONG_MAX:
            raise ValueError(f"the number {value} is not in the range of a Java long")
        return int(value)
    if isinstance(value, str):
        return timestamp_from_string(value)
    if isinstance(value, datetime):
        return _epoch_millis(value)
    if isinstance(value, Mapping):
        raise ValueError("a map is not a timestamp")
    raise ValueError(f"a {type(value).__name__} is not a timestamp")


def _epoch_millis(value: Any) -> int:
    if isinstance(value, datetime) and value.tzinfo is not None:
        return (value - _EPOCH) // _MILLI
    if isinstance(value, int) and not isinstance(value, bool):
        return _long(value)  # the encoded form of a Timestamp: epoch millis
    raise ValueError(f"a Timestamp field holds a {type(value).__name__}, not an aware datetime")


def _long(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"an integer field holds a {type(value).__name__}")
    if not LONG_MIN <= value <= LONG_MAX:
        raise ValueError(f"the number {value} is not in the range of a Java long")
    return value


def _double_to_long(value: float) -> int:
    """Java's ``(long) double``: NaN is 0, out-of-range saturates, fractions are truncated."""
    if math.isnan(value):
        return 0
    if value >= 2.0**63:
        return LONG_MAX
    if value <= -(2.0**63):
        return LONG_MIN
    return int(value)


def _days_in_month(year: int, month: int) -> int:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if month == 2 and leap else _DAYS_IN_MONTH[month - 1]


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (year 0 included)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468
