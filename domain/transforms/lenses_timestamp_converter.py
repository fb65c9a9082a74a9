"""Lenses' ``io.lenses.connect.smt.header.TimestampConverter``: a timestamp field, converted, as a header.

Lenses adapted Kafka's ``TimestampConverter`` to leave the record alone and put the converted
value in the header ``header.name``, so that ``PARTITIONBY _header.<name>`` can partition by a
formatted date without rewriting the payload. See docs/transforms.md, "Lenses".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.layout.date_zone import Zone
from lakesink.domain.layout.datetime_pattern import DateTimePattern
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.schema.model import Schema, kind, logical, non_null
from lakesink.domain.transforms import lenses_options
from lakesink.domain.transforms.lenses_epoch import (
    DEFAULT_PRECISION,
    PRECISIONS,
    from_millis,
    instant,
    is_long,
    java_long,
    temporal_millis,
    to_millis,
    utc_millis,
)
from lakesink.domain.transforms.lenses_fields import FIELD, FieldPath, Reading, field_path, read
from lakesink.domain.transforms.lenses_rolling import (
    ROLLING_WINDOW_SIZE,
    ROLLING_WINDOW_TYPE,
    RollingWindow,
    window_of,
)
from lakesink.domain.transforms.lenses_time_parsing import LocalDateTimePattern
from lakesink.domain.transforms.options import TransformOptions

CLASS_NAME = "io.lenses.connect.smt.header.TimestampConverter"

TARGET_TYPE = "target.type"
FORMAT_FROM = "format.from.pattern"
FORMAT_TO = "format.to.pattern"
UNIX_PRECISION = "unix.precision"
TARGET_TIMEZONE = "target.timezone"
_OPTIONS = (
    FIELD,
    lenses_options.HEADER_NAME,
    TARGET_TYPE,
    FORMAT_FROM,
    FORMAT_TO,
    UNIX_PRECISION,
    ROLLING_WINDOW_TYPE,
    ROLLING_WINDOW_SIZE,
    TARGET_TIMEZONE,
)

STRING, UNIX, DATE, TIME, TIMESTAMP = "string", "unix", "Date", "Time", "Timestamp"
_TARGET_TYPES = (STRING, UNIX, DATE, TIME, TIMESTAMP)


@dataclass(frozen=True, slots=True)
class TimestampConverter:
    """A configured converter; build it with :meth:`from_options`."""

    header: str
    path: FieldPath
    target: str
    zone: Zone
    precision: str
    to_pattern: DateTimePattern | None = None
    from_patterns: tuple[LocalDateTimePattern, ...] | None = None
    window: RollingWindow | None = None
    reads_wall_clock: bool = field(default=False, init=False)
    routes: bool = field(default=False, init=False)

    @classmethod
    def from_options(cls, options: TransformOptions, clock: Clock) -> TimestampConverter:
        """The converter ``options`` describe (the clock is not used: the output depends on the record only).

        Options: ``field`` (:mod:`lakesink.domain.transforms.lenses_fields`; a bare ``timestamp`` is
        the *value's* field, ``_timestamp`` the record timestamp); ``target.type`` (required, exact
        case); ``format.to.pattern`` (required for ``string``); ``format.from.pattern`` (Java patterns
        tried in order, read as UTC local date-times,
        :mod:`lakesink.domain.transforms.lenses_time_parsing`); ``unix.precision`` (``milliseconds``);
        ``rolling.window.type`` (``none``) / ``rolling.window.size``
        (:mod:`lakesink.domain.transforms.lenses_rolling`); ``target.timezone`` (``UTC``).

        Raises:
            ConfigError: a missing header name or target type, ``string`` output without
                ``format.to.pattern``, an invalid pattern, value or zone, or a rolling window type
                without a size.
        """
        options.check_known(_OPTIONS)
        header = lenses_options.header_name(options)
        target = lenses_options.exact_choice(options, TARGET_TYPE, _TARGET_TYPES, None)
        zone = lenses_options.zone(options, TARGET_TIMEZONE)
        to_text = options.text(FORMAT_TO)
        if target == STRING and not to_text:
            raise ConfigError(f"{options.key(FORMAT_TO)} is required when {options.key(TARGET_TYPE)}=string.")
        to_pattern = lenses_options.pattern(options, FORMAT_TO, to_text, zone) if to_text else None
        return cls(
            header=header,
            path=field_path(options),
            target=target,
            zone=zone,
            precision=lenses_options.exact_choice(
                options, UNIX_PRECISION, tuple(PRECISIONS), DEFAULT_PRECISION
            ),
            to_pattern=to_pattern,
            from_patterns=lenses_options.parse_patterns(options, FORMAT_FROM),
            window=_window(options),
        )

    def apply(self, record: Record) -> Record:
        """``record`` with the converted timestamp appended as header ``header``.

        What the input is comes from the field's schema when the part has one (int64 = epoch number,
        string = text to parse, the Connect logical types as themselves; any other schema is an error)
        and from the Python type otherwise (a numeric string counts as an epoch number). A null input
        gives a null header. Header values are what Connect would hold: ``str`` (string), ``int``
        (unix), ``date`` (Date), ``time`` (Time) and an aware UTC ``datetime`` (Timestamp).

        Surprising but kept: ``unix.precision`` also applies to the record timestamp (``_timestamp``
        with ``seconds`` reads the record's milliseconds as seconds), and with a schema a field the
        schema lacks, or a null struct on the path, leaves the record without the header.

        Raises:
            RecordError: the input has a type or schema that is no timestamp, or a string matching
                no ``format.from.pattern``.
        """
        reading = read(record, self.path)
        if reading is None:
            return record
        value = None if reading.value is None else self._convert(reading)
        return record.add_headers(((self.header, value),))

    def _convert(self, reading: Reading) -> Any:
        source = TIMESTAMP if reading.from_timestamp else _kind_of(reading)
        millis = self._millis(reading.value, source)
        if self.window is not None:
            millis = self.window.start_ms(millis)
        return self._output(millis)

    def _millis(self, value: Any, source: str) -> int:
        """Epoch milliseconds of the input read as ``source`` (Lenses' ``toRaw``)."""
        if source == STRING:
            return self._parse(value)
        if source == UNIX:
            if isinstance(value, str):
                number = java_long(value)
                if number is None:
                    raise RecordError(f"expected the Unix timestamp {value!r} to be an epoch number")
                value = number
            if not is_long(value):
                raise RecordError(f"expected the Unix timestamp to be a long, found {_type_name(value)}")
            return to_millis(value, self.precision)
        if source == TIMESTAMP and is_long(value):
            return to_millis(value, self.precision)
        millis = temporal_millis(value)
        if millis is None:
            raise RecordError(f"expected the {source} to be a date/time value, found {_type_name(value)}")
        return millis

    def _parse(self, value: Any) -> int:
        if not isinstance(value, str):
            raise RecordError(f"expected the string timestamp to be a string, found {_type_name(value)}")
        if self.from_patterns is None:
            raise RecordError(f"the input is the string {value!r} and {FORMAT_FROM} is not set to parse it")
        for candidate in self.from_patterns:
            local = candidate.parse(value)
            if local is not None:
                return utc_millis(local.replace(tzinfo=UTC))
        shown = ", ".join(candidate.pattern for candidate in self.from_patterns)
        raise RecordError(f"could not parse timestamp {value!r}: it matches none of the patterns ({shown})")

    def _output(self, millis: int) -> Any:
        """The header value for the instant (Lenses' ``toType``)."""
        if self.target == STRING:
            assert self.to_pattern is not None  # from_options requires it for string output
            try:
                return self.to_pattern.format_epoch_millis(millis)
            except ValueError as error:
                raise RecordError(str(error)) from None
        if self.target == UNIX:
            return from_millis(millis, self.precision)
        try:
            moment = instant(millis)
        except OverflowError:
            raise RecordError(f"timestamp {millis} is outside the supported range (years 1-9999)") from None
        if self.target == TIMESTAMP:
            return moment
        local = moment.astimezone(self.zone.tz)
        return local.date() if self.target == DATE else local.time()


def _window(options: TransformOptions) -> RollingWindow | None:
    """The optional window: ``none`` (the default) ignores ``rolling.window.size``."""
    unit = lenses_options.exact_choice(
        options, ROLLING_WINDOW_TYPE, ("none", "hours", "minutes", "seconds"), "none"
    )
    if unit == "none":
        return None
    if not options.text(ROLLING_WINDOW_SIZE):
        raise ConfigError(
            f"{options.key(ROLLING_WINDOW_SIZE)} is required when {options.key(ROLLING_WINDOW_TYPE)}={unit}."
        )
    return window_of(options, unit, options.integer(ROLLING_WINDOW_SIZE, 0))


def _kind_of(reading: Reading) -> str:
    """What the input is: from its schema when it has one, from its Python type otherwise."""
    if reading.schema is not None:
        return _kind_of_schema(reading.schema)
    value = reading.value
    if isinstance(value, datetime | date | time):
        return TIMESTAMP
    if is_long(value):
        return UNIX
    if isinstance(value, str):
        return UNIX if java_long(value) is not None else STRING
    raise RecordError(f"TimestampConverter does not support {_type_name(value)} values as timestamps")


def _kind_of_schema(schema: Schema) -> str:
    branches = non_null(schema)
    if len(branches) == 1:
        leaf = branches[0]
        logical_type = logical(leaf)
        if logical_type in ("timestamp-millis", "timestamp-micros"):
            return TIMESTAMP
        if logical_type == "date":
            return DATE
        if logical_type in ("time-millis", "time-micros"):
            return TIME
        if kind(leaf) == "string":
            return STRING
        if kind(leaf) == "long":
            return UNIX
    raise RecordError(
        f"the field's schema {schema!r} is not a timestamp type (int64, string, Timestamp, Date or Time)"
    )


def _type_name(value: Any) -> str:
    return type(value).__name__
