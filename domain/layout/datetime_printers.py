"""The pieces a compiled date-time pattern is made of, one per Java formatter printer.

Each prints one field of a :class:`Moment` by Java's rules (padding, signs, two-digit years,
fractions, offsets, English CLDR texts), so ``_date`` values are what a Lenses sink on an English
JVM produces. Frozen dataclasses, not closures, so a compiled pattern can be compared, hashed and
pickled to Spark executors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum


@dataclass(frozen=True, slots=True)
class Moment:
    """One instant seen in one zone: what the printers read."""

    local: datetime
    nanos: int
    offset_seconds: int


class Sign(Enum):
    """Java ``SignStyle`` values the pattern letters use."""

    NORMAL = "NORMAL"  # '-' for negative values only
    NOT_NEGATIVE = "NOT_NEGATIVE"  # negative values cannot be printed
    EXCEEDS_PAD = "EXCEEDS_PAD"  # '+' when the value has more digits than the minimum width


_MJD_EPOCH_ORDINAL = date(1858, 11, 17).toordinal()


def _seconds_of_day(m: Moment) -> int:
    return m.local.hour * 3600 + m.local.minute * 60 + m.local.second


#: ChronoField-like readers, by the name used in :mod:`lakesink.domain.layout.datetime_pattern`.
FIELDS: dict[str, Callable[[Moment], int]] = {
    "era": lambda m: 1 if m.local.year > 0 else 0,
    "year": lambda m: m.local.year,
    "year_of_era": lambda m: m.local.year if m.local.year > 0 else 1 - m.local.year,
    "quarter": lambda m: (m.local.month - 1) // 3 + 1,
    "month": lambda m: m.local.month,
    "day_of_year": lambda m: m.local.timetuple().tm_yday,
    "day_of_month": lambda m: m.local.day,
    "day_of_week": lambda m: m.local.isoweekday(),
    "ampm": lambda m: 0 if m.local.hour < 12 else 1,
    "clock_hour_of_ampm": lambda m: m.local.hour % 12 or 12,
    "hour_of_ampm": lambda m: m.local.hour % 12,
    "clock_hour_of_day": lambda m: m.local.hour or 24,
    "hour_of_day": lambda m: m.local.hour,
    "minute": lambda m: m.local.minute,
    "second": lambda m: m.local.second,
    "nano_of_second": lambda m: m.nanos,
    "milli_of_day": lambda m: _seconds_of_day(m) * 1000 + m.nanos // 1_000_000,
    "nano_of_day": lambda m: _seconds_of_day(m) * 1_000_000_000 + m.nanos,
    "modified_julian_day": lambda m: m.local.toordinal() - _MJD_EPOCH_ORDINAL,
}

_MONTHS = "January February March April May June July August September October November December".split()
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()

#: English texts by field and style (short, full, narrow); index = field value - first value.
#: AM/PM only has the short style: Java accepts a single ``a`` only.
TEXTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "era": (("BC", "AD"), ("Before Christ", "Anno Domini"), ("B", "A")),
    "month": (
        tuple(name[:3] for name in _MONTHS),
        tuple(_MONTHS),
        tuple(name[0] for name in _MONTHS),
    ),
    "quarter": (
        ("Q1", "Q2", "Q3", "Q4"),
        ("1st quarter", "2nd quarter", "3rd quarter", "4th quarter"),
        ("1", "2", "3", "4"),
    ),
    "day_of_week": (tuple(name[:3] for name in _DAYS), tuple(_DAYS), tuple(name[0] for name in _DAYS)),
    "ampm": (("AM", "PM"),),
}
_FIRST_VALUE = {"era": 0, "ampm": 0}


@dataclass(frozen=True, slots=True)
class Literal:
    """Fixed text (a non-letter character or a quoted literal)."""

    text: str

    def __call__(self, moment: Moment) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Number:
    """A field printed in decimal, zero-padded to ``min_width`` (Java ``appendValue``)."""

    field: str
    min_width: int
    max_width: int
    sign: Sign

    def __call__(self, moment: Moment) -> str:
        value = FIELDS[self.field](moment)
        digits = str(abs(value))
        if len(digits) > self.max_width:
            raise ValueError(
                f"Field {self.field} cannot be printed as the value {value} exceeds the maximum print "
                f"width of {self.max_width}"
            )
        padded = digits.rjust(self.min_width, "0")
        if value < 0:
            if self.sign is Sign.NOT_NEGATIVE:
                raise ValueError(f"Field {self.field} cannot be printed as the value {value} is negative")
            return "-" + padded
        if self.sign is Sign.EXCEEDS_PAD and self.min_width < 19 and value >= 10**self.min_width:
            return "+" + padded
        return padded


@dataclass(frozen=True, slots=True)
class TwoDigitYear:
    """``yy``/``uu``: the last two digits of the year (Java reduced value, base 2000)."""

    field: str

    def __call__(self, moment: Moment) -> str:
        return f"{abs(FIELDS[self.field](moment)) % 100:02d}"


@dataclass(frozen=True, slots=True)
class Text:
    """A field printed as English text; ``style`` 0 = short, 1 = full, 2 = narrow."""

    field: str
    style: int

    def __call__(self, moment: Moment) -> str:
        index = FIELDS[self.field](moment) - _FIRST_VALUE.get(self.field, 1)
        return TEXTS[self.field][self.style][index]


@dataclass(frozen=True, slots=True)
class Fraction:
    """``S…S``: the first ``digits`` digits of the nano-of-second (truncated, never rounded)."""

    digits: int

    def __call__(self, moment: Moment) -> str:
        return f"{moment.nanos:09d}"[: self.digits]


@dataclass(frozen=True, slots=True)
class OffsetId:
    """An ISO offset in one of Java's ``+HH…`` styles; ``no_offset`` is printed for zero.

    ``minutes``/``seconds``: "always" prints the part, "if_non_zero" prints it only when it
    is not zero (lower-case ``mm``/``ss`` in Java's pattern names), "never" omits it.
    """

    minutes: str
    seconds: str
    colon: bool
    no_offset: str

    def __call__(self, moment: Moment) -> str:
        total = moment.offset_seconds
        hours, minutes, seconds = abs(total) // 3600 % 100, abs(total) // 60 % 60, abs(total) % 60
        print_seconds = self.seconds == "always" or (self.seconds == "if_non_zero" and seconds > 0)
        print_minutes = (
            self.minutes == "always" or print_seconds or (self.minutes == "if_non_zero" and minutes > 0)
        )
        separator = ":" if self.colon else ""
        text = f"{hours:02d}"
        printed = hours
        if print_minutes:
            text += f"{separator}{minutes:02d}"
            printed += minutes
            if print_seconds:
                text += f"{separator}{seconds:02d}"
                printed += seconds
        if printed == 0:
            return self.no_offset
        return ("-" if total < 0 else "+") + text


@dataclass(frozen=True, slots=True)
class LocalizedOffset:
    """``O``/``OOOO``/``ZZZZ``: ``GMT`` plus the offset, short (``GMT+5:30``) or full (``GMT+05:30``)."""

    full: bool

    def __call__(self, moment: Moment) -> str:
        total = moment.offset_seconds
        if total == 0:
            return "GMT"
        hours, minutes, seconds = abs(total) // 3600 % 100, abs(total) // 60 % 60, abs(total) % 60
        text = "GMT" + ("-" if total < 0 else "+")
        if self.full:
            text += f"{hours:02d}:{minutes:02d}"
        else:
            text += str(hours)
            if minutes or seconds:
                text += f":{minutes:02d}"
        if seconds:
            text += f":{seconds:02d}"
        return text
