"""Lenses' date-part header SMTs: year, month, day, hour, minute, second and date of one instant.

Six classes (``InsertRecordTimestampHeaders``, ``InsertWallclockHeaders``,
``InsertFieldTimestampHeaders`` and their ``InsertRolling…`` forms) differ only in where the
instant comes from and whether it is moved to the start of its rolling window
(:mod:`lakesink.domain.transforms.lenses_rolling`). See docs/transforms.md, "Lenses".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lakesink.domain.errors import RecordError
from lakesink.domain.layout.date_zone import Zone
from lakesink.domain.layout.datetime_pattern import DateTimePattern
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.transforms import lenses_options
from lakesink.domain.transforms.chain import TransformFactory
from lakesink.domain.transforms.lenses_epoch import (
    DEFAULT_PRECISION,
    PRECISIONS,
    is_long,
    java_long,
    temporal_millis,
    to_millis,
    utc_millis,
)
from lakesink.domain.transforms.lenses_fields import FIELD, FieldPath, Source, field_path, read
from lakesink.domain.transforms.lenses_rolling import (
    ROLLING_WINDOW_SIZE,
    ROLLING_WINDOW_TYPE,
    RollingWindow,
    required_window,
)
from lakesink.domain.transforms.lenses_time_parsing import LocalDateTimePattern
from lakesink.domain.transforms.options import TransformOptions
from lakesink.domain.transforms.parts import Part

PREFIX = "io.lenses.connect.smt.header."
HEADER_PREFIX_NAME = "header.prefix.name"
TIMEZONE = "timezone"
LOCALE = "locale"
FORMAT_FROM = "format.from.pattern"
UNIX_PRECISION = "unix.precision"

#: Header suffix -> (format option, its default), in the order Lenses adds the headers.
_PARTS = (
    ("year", "year.format", "yyyy"),
    ("month", "month.format", "MM"),
    ("day", "day.format", "dd"),
    ("hour", "hour.format", "HH"),
    ("minute", "minute.format", "mm"),
    ("second", "second.format", "ss"),
    ("date", "date.format", "yyyy-MM-dd"),
)
_BASE_OPTIONS = (HEADER_PREFIX_NAME, TIMEZONE, LOCALE, *(option for _, option, _ in _PARTS))
_ROLLING_OPTIONS = (ROLLING_WINDOW_TYPE, ROLLING_WINDOW_SIZE)
_FIELD_OPTIONS = (FIELD, FORMAT_FROM, UNIX_PRECISION)

RECORD, WALLCLOCK, FIELD_SOURCE = "record", "wallclock", "field"


@dataclass(frozen=True, slots=True)
class FieldTimestamp:
    """Where the field classes read their instant (Lenses' ``RecordFieldTimestamp``)."""

    path: FieldPath
    precision: str
    patterns: tuple[LocalDateTimePattern, ...] | None
    zone: Zone

    def millis(self, record: Record, clock: Clock) -> int:
        """The field's instant; the wall clock when the field is missing or null.

        Lenses' rules, kept: only a null key/value as a whole is an error; epoch numbers are read with
        ``unix.precision``, but a numeric *string* as milliseconds whatever the precision, and other
        strings are parsed with ``format.from.pattern`` in ``timezone`` (not UTC, unlike
        ``TimestampConverter``).

        Raises:
            RecordError: the key/value is null, not a struct/map along the path, or the field
                holds no epoch, date-time or parsable string.
        """
        if self.path.source is Source.TIMESTAMP:
            return clock.now_ms() if record.timestamp is None else record.timestamp
        part = Part.KEY if self.path.source is Source.KEY else Part.VALUE
        if part.data(record) is None:
            raise RecordError(f"the {part.value.lower()} is null, so {self.path.describe()} has no timestamp")
        reading = read(record, self.path)
        value = None if reading is None else reading.value
        if value is None:
            return clock.now_ms()
        if is_long(value):
            return to_millis(value, self.precision)
        if isinstance(value, str):
            return self._parse(value)
        millis = temporal_millis(value)
        if millis is None:
            raise RecordError(f"expected an epoch, a date or a date string, found {type(value).__name__}")
        return millis

    def _parse(self, text: str) -> int:
        if self.patterns is None:
            number = java_long(text)
            if number is None:
                raise RecordError(
                    f"expected an epoch in milliseconds, found {text!r} (and {FORMAT_FROM} is not set)"
                )
            return number
        for candidate in self.patterns:
            local = candidate.parse(text)
            if local is not None:
                return utc_millis(local.replace(tzinfo=self.zone.tz))
        shown = ", ".join(candidate.pattern for candidate in self.patterns)
        raise RecordError(f"could not parse the string timestamp {text!r} with the patterns ({shown})")


@dataclass(frozen=True, slots=True)
class InsertTimestampHeaders:
    """One of the six classes; ``source`` is ``record``, ``wallclock`` or ``field``."""

    source: str
    headers: tuple[tuple[str, DateTimePattern], ...]
    clock: Clock = field(compare=False)
    window: RollingWindow | None = None
    field_timestamp: FieldTimestamp | None = None
    routes: bool = field(default=False, init=False)

    @property
    def reads_wall_clock(self) -> bool:
        """True for the wall-clock classes (the others fall back to it only for missing timestamps)."""
        return self.source == WALLCLOCK

    def apply(self, record: Record) -> Record:
        """``record`` with the seven date-part headers appended.

        The seven string headers are ``<header.prefix.name>year`` … ``second`` and ``date``, printed with
        ``year.format`` (``yyyy``), ``month.format`` (``MM``), ``day.format`` (``dd``), ``hour.format``
        (``HH``), ``minute.format`` (``mm``), ``second.format`` (``ss``) and ``date.format``
        (``yyyy-MM-dd``) in ``timezone`` (UTC), ``locale`` ``en``; the rolling classes move the instant
        to the start of its window (15 minutes unless ``rolling.window.type``/``rolling.window.size`` say
        otherwise). Lenses' fallback, kept: a record without a timestamp uses the wall clock.

        Raises:
            RecordError: the instant cannot be read, or is outside the years a pattern prints.
        """
        millis = self._millis(record)
        if self.window is not None:
            millis = self.window.start_ms(millis)
        try:
            added = tuple((name, printer.format_epoch_millis(millis)) for name, printer in self.headers)
        except ValueError as error:
            raise RecordError(str(error)) from None
        return record.add_headers(added)

    def _millis(self, record: Record) -> int:
        if self.field_timestamp is not None:
            return self.field_timestamp.millis(record, self.clock)
        if self.source == RECORD and record.timestamp is not None:
            return record.timestamp
        return self.clock.now_ms()


def factories() -> dict[str, TransformFactory]:
    """The six classes by their Connect class names."""
    names = {
        RECORD: "InsertRecordTimestampHeaders",
        WALLCLOCK: "InsertWallclockHeaders",
        FIELD_SOURCE: "InsertFieldTimestampHeaders",
    }
    table: dict[str, TransformFactory] = {}
    for source, name in names.items():
        table[PREFIX + name] = _factory(source, rolling=False)
        table[PREFIX + name.replace("Insert", "InsertRolling", 1)] = _factory(source, rolling=True)
    return table


def _factory(source: str, *, rolling: bool) -> TransformFactory:
    def build(options: TransformOptions, clock: Clock) -> InsertTimestampHeaders:
        return _configured(options, clock, source, rolling=rolling)

    return build


def _configured(
    options: TransformOptions, clock: Clock, source: str, *, rolling: bool
) -> InsertTimestampHeaders:
    """The transform ``options`` describe.

    Raises:
        ConfigError: an unknown option, zone or locale, an invalid pattern, unix precision or
            rolling window.
    """
    known = (
        _BASE_OPTIONS
        + (_ROLLING_OPTIONS if rolling else ())
        + (_FIELD_OPTIONS if source == FIELD_SOURCE else ())
    )
    options.check_known(known)
    zone = lenses_options.zone(options, TIMEZONE)
    lenses_options.english_locale(options, LOCALE)
    prefix = options.text(HEADER_PREFIX_NAME, "") or ""
    headers = tuple(
        (prefix + suffix, lenses_options.pattern(options, option, options.text(option) or default, zone))
        for suffix, option, default in _PARTS
    )
    return InsertTimestampHeaders(
        source,
        headers,
        clock,
        required_window(options) if rolling else None,
        _field_timestamp(options, zone) if source == FIELD_SOURCE else None,
    )


def _field_timestamp(options: TransformOptions, zone: Zone) -> FieldTimestamp:
    precision = lenses_options.exact_choice(options, UNIX_PRECISION, tuple(PRECISIONS), DEFAULT_PRECISION)
    return FieldTimestamp(
        field_path(options), precision, lenses_options.parse_patterns(options, FORMAT_FROM), zone
    )
