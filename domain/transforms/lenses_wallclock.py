"""Lenses' wall-clock header SMTs: the time the transform runs, as a header.

Their output depends on when they run, so ``reads_wall_clock`` is True and the time comes from
the injected :class:`~lakesink.domain.ports.Clock`. See docs/transforms.md, "Wall-clock
transforms and exactly-once".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.layout.date_zone import Zone
from lakesink.domain.layout.datetime_pattern import DateTimePattern
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.transforms import lenses_options
from lakesink.domain.transforms.lenses_epoch import instant
from lakesink.domain.transforms.lenses_rolling import (
    ROLLING_WINDOW_SIZE,
    ROLLING_WINDOW_TYPE,
    RollingWindow,
    required_window,
)
from lakesink.domain.transforms.options import TransformOptions

WALLCLOCK_CLASS = "io.lenses.connect.smt.header.InsertWallclock"
ROLLING_WALLCLOCK_CLASS = "io.lenses.connect.smt.header.InsertRollingWallclock"
DATE_TIME_PART_CLASS = "io.lenses.connect.smt.header.InsertWallclockDateTimePart"

VALUE_TYPE = "value.type"
FORMAT = "format"
TIMEZONE = "timezone"
DATE_TIME_PART = "date.time.part"

_PARTS = ("year", "month", "day", "hour", "minute", "second")


class _Formatter(Protocol):
    def format_epoch_millis(self, millis: int) -> str: ...


@dataclass(frozen=True, slots=True)
class IsoLocalDateTime:
    """Java's ``DateTimeFormatter.ISO_LOCAL_DATE_TIME`` in a zone: seconds always, fraction trimmed."""

    base: DateTimePattern

    def format_epoch_millis(self, millis: int) -> str:
        """``uuuu-MM-dd'T'HH:mm:ss`` plus ``.`` and the milliseconds without trailing zeros, if any."""
        fraction = f"{millis % 1000:03d}".rstrip("0")
        return self.base.format_epoch_millis(millis) + (f".{fraction}" if fraction else "")


@dataclass(frozen=True, slots=True)
class InsertWallclock:
    """``InsertWallclock`` (``window`` None) and ``InsertRollingWallclock``.

    ``header.name``; ``value.type`` ``format`` (default) or ``epoch``, any case; ``format``: a Java
    pattern, default ``ISO_LOCAL_DATE_TIME`` (``2024-03-01T10:15:30.25``, the fraction without
    trailing zeros and absent on a whole second); ``timezone`` (``UTC``), which must be exactly
    ``UTC`` with ``epoch``. ``InsertRollingWallclock`` moves the time to the start of its
    ``rolling.window.type``/``rolling.window.size`` window (15 minutes by default). Every value is a
    string, the epoch too (``"1709288130250"``): Lenses adds them with ``addString``.
    """

    header: str
    clock: Clock = field(compare=False)
    formatter: _Formatter | None  # None: the epoch milliseconds
    window: RollingWindow | None = None
    reads_wall_clock: bool = field(default=True, init=False)
    routes: bool = field(default=False, init=False)

    @classmethod
    def from_options(cls, options: TransformOptions, clock: Clock) -> InsertWallclock:
        """``InsertWallclock`` from its options.

        Raises:
            ConfigError: no header name, an unknown value type, an invalid pattern or zone, or a
                zone other than UTC with ``epoch``.
        """
        options.check_known((lenses_options.HEADER_NAME, VALUE_TYPE, FORMAT, TIMEZONE))
        return cls(lenses_options.header_name(options), clock, _formatter(options))

    @classmethod
    def rolling_from_options(cls, options: TransformOptions, clock: Clock) -> InsertWallclock:
        """``InsertRollingWallclock`` from its options.

        Raises:
            ConfigError: as :meth:`from_options`, or a bad rolling window.
        """
        options.check_known(
            (
                lenses_options.HEADER_NAME,
                VALUE_TYPE,
                FORMAT,
                TIMEZONE,
                ROLLING_WINDOW_TYPE,
                ROLLING_WINDOW_SIZE,
            )
        )
        return cls(lenses_options.header_name(options), clock, _formatter(options), required_window(options))

    def apply(self, record: Record) -> Record:
        """``record`` with the (windowed) wall-clock time appended as a string header.

        Raises:
            RecordError: the clock is outside the years a pattern can print.
        """
        now = self.clock.now_ms()
        if self.window is not None:
            now = self.window.start_ms(now)
        if self.formatter is None:
            text = str(now)
        else:
            try:
                text = self.formatter.format_epoch_millis(now)
            except ValueError as error:
                raise RecordError(str(error)) from None
        return record.add_headers(((self.header, text),))


@dataclass(frozen=True, slots=True)
class InsertWallclockDateTimePart:
    """One part of the wall-clock date-time in a zone, as an unpadded number in a string.

    ``date.time.part`` (year, month, day, hour, minute, second, any case) of the time in
    ``timezone``, unpadded (``3``, not ``03``), as a string.
    """

    header: str
    clock: Clock = field(compare=False)
    part: str
    zone: Zone
    reads_wall_clock: bool = field(default=True, init=False)
    routes: bool = field(default=False, init=False)

    @classmethod
    def from_options(cls, options: TransformOptions, clock: Clock) -> InsertWallclockDateTimePart:
        """The transform from its options.

        Raises:
            ConfigError: no header name, no or an unknown date-time part, or an unknown zone.
        """
        options.check_known((lenses_options.HEADER_NAME, DATE_TIME_PART, TIMEZONE))
        header = lenses_options.header_name(options)
        part = options.choice(DATE_TIME_PART, _PARTS)
        return cls(header, clock, part, lenses_options.zone(options, TIMEZONE))

    def apply(self, record: Record) -> Record:
        """``record`` with the part appended as a string header."""
        local = instant(self.clock.now_ms()).astimezone(self.zone.tz)
        text = str(getattr(local, self.part))
        return record.add_headers(((self.header, text),))


def _formatter(options: TransformOptions) -> _Formatter | None:
    """The value printer: None for ``epoch``, else ``format`` (or ISO) in ``timezone``."""
    value_type = options.choice(VALUE_TYPE, ("epoch", "format"), "format")
    if value_type == "epoch":
        text = options.text(TIMEZONE, "UTC")
        if text != "UTC":
            raise ConfigError(
                f"{options.key(TIMEZONE)} must be UTC when {options.key(VALUE_TYPE)}=epoch, not {text!r}."
            )
        return None
    zone = lenses_options.zone(options, TIMEZONE)
    pattern_text = options.text(FORMAT)
    if pattern_text is None:
        return IsoLocalDateTime(DateTimePattern.compile("uuuu-MM-dd'T'HH:mm:ss", zone.id))
    return lenses_options.pattern(options, FORMAT, pattern_text, zone)
