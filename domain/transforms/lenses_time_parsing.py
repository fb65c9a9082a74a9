"""Parsing ``format.from.pattern`` strings the way Lenses does: ``LocalDateTime.parse`` per pattern.

Lenses tries each comma-separated pattern in turn and places the local date-time in a zone (UTC
for ``TimestampConverter``); what Java's parser implies is reproduced, not improved
(:meth:`LocalDateTimePattern.compile`). See docs/transforms.md, "Lenses".
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import Enum

from lakesink.domain.layout.datetime_pattern import PatternError, quoted_literal

_MONTHS = "January February March April May June July August September October November December".split()
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_RESERVED = "{}#[]"
_ZONE_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9/_+\-]*")
_OFFSET = re.compile(r"Z|[+-][0-9]{2}(?::?[0-9]{2}){0,2}")
_NUMERIC_OFFSET = re.compile(r"[+-][0-9]{2}(?::?[0-9]{2}){0,2}")
_LOCALIZED_OFFSET = re.compile(r"GMT(?:[+-][0-9]{1,2}(?::[0-9]{2}){0,2})?")
#: Letters printed as a plain number (one letter) or exactly two digits (two letters).
_TWO_DIGIT = {
    "d": "day",
    "H": "hour",
    "k": "clock_hour",
    "h": "clock_hour_ampm",
    "K": "hour_ampm",
    "m": "minute",
    "s": "second",
}


class _Sign(Enum):
    NORMAL = "normal"
    NOT_NEGATIVE = "not_negative"
    EXCEEDS_PAD = "exceeds_pad"


@dataclass(slots=True)
class _Number:
    name: str
    min_width: int
    max_width: int
    sign: _Sign
    reserve: int = 0  # digits left to the fixed-width numbers that directly follow

    @property
    def fixed(self) -> bool:
        return self.min_width == self.max_width and self.sign is _Sign.NOT_NEGATIVE


@dataclass(frozen=True, slots=True)
class _TwoDigitYear:
    name: str


@dataclass(frozen=True, slots=True)
class _Fraction:
    digits: int


@dataclass(frozen=True, slots=True)
class _Text:
    name: str
    texts: tuple[str, ...]
    first: int


@dataclass(frozen=True, slots=True)
class _Skip:
    shape: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class _Literal:
    text: str


_Element = _Number | _TwoDigitYear | _Fraction | _Text | _Skip | _Literal


@dataclass(frozen=True, slots=True)
class LocalDateTimePattern:
    """One compiled pattern; :meth:`parse` gives the local date-time or None when it does not match."""

    pattern: str
    elements: tuple[_Element, ...] = field(repr=False, compare=False)

    @classmethod
    def compile(cls, pattern: str) -> LocalDateTimePattern:
        """Parse ``pattern`` once.

        Lenses' ``LocalDateTime.parse`` implies, and this reproduces: a pattern must yield a date *and* a
        time (``yyyy-MM-dd`` alone never parses, so it is refused here); a missing minute defaults to 0,
        but seconds without minutes do not resolve; zone and offset text (``z``, ``VV``, ``X``, ``x``,
        ``Z``, ``O``) is consumed and then ignored (``10:00 +02:00`` is 10:00 in the target zone); Java's
        SMART resolver moves a day past the month's end to its last day (``2023-02-30`` is 28 February),
        reads ``24:00`` as the next midnight and checks a day-of-week name against the date; numbers
        follow Java's strict widths (``MM`` is exactly two digits, ``yyyy`` four unless signed), and a
        variable-width number directly followed by fixed-width ones leaves them their digits
        (``yyyyMMddHHmm``); text is English and case-sensitive. Letters supported: u y M L d D H k h K a
        m s S E and the zone letters above, quoted literals and plain characters; other letters and
        optional sections are refused.

        Raises:
            PatternError: Java refuses the pattern, lakesink cannot parse a letter, or the
                pattern cannot give both a date and a time.
        """
        elements = _elements(pattern)
        _check_resolvable({_name(element) for element in elements} - {""})
        return cls(pattern, elements)

    def parse(self, text: str) -> datetime | None:
        """The naive local date-time (millisecond precision) ``text`` holds, None when it does not match."""
        values: dict[str, int] = {}
        pos = 0
        for element in self.elements:
            parsed = _parse_element(element, text, pos)
            if parsed is None:
                return None
            pos, value = parsed
            name = _name(element)
            if name:
                if values.setdefault(name, value) != value:
                    return None
        if pos != len(text):
            return None
        return _resolve(values)


def _name(element: _Element) -> str:
    if isinstance(element, _Number | _TwoDigitYear | _Text):
        return element.name
    if isinstance(element, _Fraction):
        return "nano"
    return ""


def _elements(pattern: str) -> tuple[_Element, ...]:
    elements: list[_Element] = []
    base: _Number | None = None  # the variable-width number fixed-width ones may follow
    pos = 0
    while pos < len(pattern):
        char = pattern[pos]
        if char.isascii() and char.isalpha():
            end = pos
            while end < len(pattern) and pattern[end] == char:
                end += 1
            element = _letter(char, end - pos)
            pos = end
            if _fixed_width(element) and base is not None:
                base.reserve += _width(element)
            elif isinstance(element, _Number):
                base = element
            else:
                base = None
            elements.append(element)
            continue
        base = None
        if char == "'":
            literal, pos = quoted_literal(pattern, pos)
            elements.append(_Literal(literal))
        elif char in _RESERVED:
            raise PatternError(f"'{char}' is not supported in a parsing pattern")
        else:
            elements.append(_Literal(char))
            pos += 1
    return tuple(elements)


def _fixed_width(element: _Element) -> bool:
    return (isinstance(element, _Number) and element.fixed) or isinstance(element, _TwoDigitYear | _Fraction)


def _width(element: _Element) -> int:
    if isinstance(element, _Number):
        return element.min_width
    return element.digits if isinstance(element, _Fraction) else 2


def _letter(letter: str, count: int) -> _Element:
    if letter in "uy":
        name = "year" if letter == "u" else "year_of_era"
        if count == 2:
            return _TwoDigitYear(name)
        return _Number(name, count, 19, _Sign.NORMAL if count < 4 else _Sign.EXCEEDS_PAD)
    if letter in "ML":
        if count > 4:
            raise PatternError(f"pattern letter '{letter * count}' is not supported for parsing")
        if count >= 3:
            return _Text("month", tuple(_MONTHS) if count == 4 else tuple(m[:3] for m in _MONTHS), 1)
        return _number("month", count)
    if letter in _TWO_DIGIT:
        if count > 2:
            raise PatternError(f"Too many pattern letters: {letter}")
        return _number(_TWO_DIGIT[letter], count)
    if letter == "D":
        if count > 3:
            raise PatternError(f"Too many pattern letters: {letter}")
        if count == 2:
            return _Number("day_of_year", 2, 3, _Sign.NOT_NEGATIVE)
        return _number("day_of_year", count)
    if letter == "S":
        if count > 9:
            raise PatternError(f"Minimum width must be from 0 to 9 inclusive but was {count}")
        return _Fraction(count)
    if letter == "a" and count == 1:
        return _Text("ampm", ("AM", "PM"), 0)
    if letter == "E" and count <= 4:
        return _Text("day_of_week", tuple(_DAYS) if count == 4 else tuple(d[:3] for d in _DAYS), 1)
    return _Skip(_zone_shape(letter, count))


def _number(name: str, count: int) -> _Number:
    return (
        _Number(name, 1, 19, _Sign.NORMAL) if count == 1 else _Number(name, count, count, _Sign.NOT_NEGATIVE)
    )


def _zone_shape(letter: str, count: int) -> re.Pattern[str]:
    if (letter == "z" and count <= 4) or (letter == "V" and count == 2):
        return _ZONE_TEXT
    if letter == "X" and count <= 5:
        return _OFFSET
    if letter == "x" and count <= 5:
        return _NUMERIC_OFFSET
    if letter == "Z" and count <= 5:
        return _NUMERIC_OFFSET if count < 4 else (_LOCALIZED_OFFSET if count == 4 else _OFFSET)
    if letter == "O" and count in (1, 4):
        return _LOCALIZED_OFFSET
    raise PatternError(f"pattern letter '{letter * count}' is not supported for parsing")


def _check_resolvable(names: set[str]) -> None:
    has_year = bool(names & {"year", "year_of_era"})
    has_day = {"month", "day"} <= names or "day_of_year" in names
    if not (has_year and has_day):
        raise PatternError("it has no complete date (year with month and day, or day of year)")
    if not names & {"hour", "clock_hour", "clock_hour_ampm", "hour_ampm"}:
        raise PatternError("it has no hour, so Java cannot build a LocalDateTime from it")
    if names & {"clock_hour_ampm", "hour_ampm"} and "ampm" not in names:
        raise PatternError("h and K need the AM/PM marker a")
    if ("second" in names and "minute" not in names) or ("nano" in names and "second" not in names):
        raise PatternError("seconds need minutes, and fractions need seconds, for Java to resolve a time")


def _parse_element(element: _Element, text: str, pos: int) -> tuple[int, int] | None:
    if isinstance(element, _Literal):
        end = pos + len(element.text)
        return (end, 0) if text[pos:end] == element.text else None
    if isinstance(element, _Skip):
        match = element.shape.match(text, pos)
        return (match.end(), 0) if match else None
    if isinstance(element, _Text):
        for index, candidate in sorted(enumerate(element.texts), key=lambda item: -len(item[1])):
            if text.startswith(candidate, pos):
                return pos + len(candidate), index + element.first
        return None
    if isinstance(element, _TwoDigitYear):
        digits = text[pos : pos + 2]
        return (
            (pos + 2, 2000 + int(digits))
            if len(digits) == 2 and digits.isascii() and digits.isdigit()
            else None
        )
    if isinstance(element, _Fraction):
        digits = text[pos : pos + element.digits]
        if len(digits) != element.digits or not (digits.isascii() and digits.isdigit()):
            return None
        return pos + element.digits, int(digits.ljust(9, "0")) if digits else 0
    return _parse_number(element, text, pos)


def _parse_number(number: _Number, text: str, pos: int) -> tuple[int, int] | None:
    """Java's strict ``NumberPrinterParser.parse``, adjacent-value reservation included."""
    sign = text[pos : pos + 1]
    signed = sign in ("+", "-")
    if signed and (
        number.sign is _Sign.NOT_NEGATIVE or (sign == "+" and number.sign is not _Sign.EXCEEDS_PAD)
    ):
        return None
    start = pos + 1 if signed else pos
    limit = number.max_width + number.reserve
    available = 0
    while available < limit and start + available < len(text) and text[start + available] in "0123456789":
        available += 1
    taken = max(number.min_width, available - number.reserve) if number.reserve else available
    if available < number.min_width or taken > available:
        return None
    if number.sign is _Sign.EXCEEDS_PAD and sign != "-":
        # Strict Java: more digits than the pad need a '+', and a '+' needs more digits.
        if (sign == "+") != (taken > number.min_width):
            return None
    value = int(text[start : start + taken])
    return start + taken, -value if sign == "-" else value


def _resolve(values: dict[str, int]) -> datetime | None:
    """Java SMART resolution of the parsed fields into a local date-time (None when invalid)."""
    year = values.get("year", values.get("year_of_era"))
    if year is None or ("year_of_era" in values and values["year_of_era"] < 1) or not 1 <= year <= 9999:
        return None
    if "day_of_year" in values:
        day_of_year = values["day_of_year"]
        if not 1 <= day_of_year <= (366 if calendar.isleap(year) else 365):
            return None
        day = date(year, 1, 1) + timedelta(days=day_of_year - 1)
    else:
        month, day_of_month = values["month"], values["day"]
        if not (1 <= month <= 12 and 1 <= day_of_month <= 31):
            return None
        day = date(year, month, min(day_of_month, calendar.monthrange(year, month)[1]))
    if "day_of_week" in values and day.isoweekday() != values["day_of_week"]:
        return None
    return _with_time(day, values)


def _with_time(day: date, values: dict[str, int]) -> datetime | None:
    hour = _hour(values)
    minute, second, nano = values.get("minute", 0), values.get("second", 0), values.get("nano", 0)
    if hour is None or not (0 <= minute <= 59 and 0 <= second <= 59):
        return None
    extra_day = 0
    if hour == 24:
        if minute or second or nano:
            return None
        hour, extra_day = 0, 1
    try:
        local = datetime(day.year, day.month, day.day, hour, minute, second, nano // 1_000_000 * 1000)
        return local + timedelta(days=extra_day)
    except OverflowError:
        return None


def _hour(values: dict[str, int]) -> int | None:
    """The hour of day from H, k, or h/K with a; 24 only from H (Java's end-of-day midnight)."""
    if "hour" in values:
        return values["hour"] if 0 <= values["hour"] <= 24 else None
    if "clock_hour" in values:
        return values["clock_hour"] % 24 if 1 <= values["clock_hour"] <= 24 else None
    ampm = values["ampm"]
    if "clock_hour_ampm" in values:
        clock = values["clock_hour_ampm"]
        return ampm * 12 + clock % 12 if 1 <= clock <= 12 else None
    hour_of_ampm = values["hour_ampm"]
    return ampm * 12 + hour_of_ampm if 0 <= hour_of_ampm <= 11 else None
