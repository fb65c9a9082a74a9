"""Java ``DateTimeFormatter.ofPattern`` patterns for ``PARTITIONBY _date.<pattern>``, in pure Python.

The printed text is part of object keys, so it must match Java's character for character
(checked against OpenJDK 17 on thousands of random patterns, zones and instants); letters whose
output depends on the JVM's locale, version or CLDR data are refused, not approximated. The zone
is UTC unless ``partition.date.timezone`` says otherwise. See docs/naming.md, "``_date`` uses UTC".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import NoReturn

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.date_zone import Zone, resolve_zone
from lakesink.domain.layout.datetime_printers import (
    Fraction,
    Literal,
    LocalizedOffset,
    Moment,
    Number,
    OffsetId,
    Sign,
    Text,
    TwoDigitYear,
)

Printer = Callable[[Moment], str]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_RESERVED = "{}#"
_UNSUPPORTED = {
    "Y": "week-based-year depends on the JVM locale's week rules",
    "w": "week-of-week-based-year depends on the JVM locale's week rules",
    "W": "week-of-month depends on the JVM locale's week rules",
    "e": "localized day-of-week depends on the JVM locale's week rules",
    "c": "localized day-of-week depends on the JVM locale's week rules",
    "F": "its meaning changed between JDK versions",
    "B": "day periods need CLDR data",
    "v": "generic zone names need CLDR data",
    "p": "Java's own formatter fails on a padded number followed by another number",
}
_TWO_DIGIT_FIELDS = {
    "d": "day_of_month",
    "h": "clock_hour_of_ampm",
    "H": "hour_of_day",
    "k": "clock_hour_of_day",
    "K": "hour_of_ampm",
    "m": "minute",
    "s": "second",
}
_NUMBER_OR_TEXT_FIELDS = {"M": "month", "L": "month", "Q": "quarter", "q": "quarter"}
_WIDE_NUMBER_FIELDS = {
    "g": ("modified_julian_day", Sign.NORMAL),
    "A": ("milli_of_day", Sign.NOT_NEGATIVE),
    "n": ("nano_of_second", Sign.NOT_NEGATIVE),
    "N": ("nano_of_day", Sign.NOT_NEGATIVE),
}
#: X/x letter count -> (minutes, seconds, colon): Java's +HHmm, +HHMM, +HH:MM, +HHMMss, +HH:MM:ss.
_OFFSET_STYLES = {
    1: ("if_non_zero", "never", False),
    2: ("always", "never", False),
    3: ("always", "never", True),
    4: ("always", "if_non_zero", False),
    5: ("always", "if_non_zero", True),
}


@dataclass(frozen=True, slots=True)
class DateTimePattern:
    """A compiled pattern bound to a zone; build it with :meth:`compile`."""

    pattern: str
    zone: Zone
    _printers: tuple[Printer, ...] = field(compare=False, repr=False)
    letters: tuple[tuple[str, int], ...] = field(default=(), compare=False, repr=False)
    """The pattern's letter runs in order, as (letter, count): ``uuuu-MM'T'`` is (u, 4), (M, 2)."""

    @classmethod
    def compile(cls, pattern: str, zone: str = "UTC") -> DateTimePattern:
        """Parse ``pattern`` once.

        Raises:
            ConfigError: the pattern is invalid for Java (same reason text as Java's
                IllegalArgumentException), uses an unsupported letter, or ``zone`` is unknown.
        """
        resolved = resolve_zone(zone)
        try:
            printers, letters = _parse(pattern, resolved)
        except PatternError as error:
            raise ConfigError(f"Invalid date pattern {pattern!r}: {error}") from None
        return cls(pattern, resolved, printers, letters)

    def format_epoch_millis(self, millis: int) -> str:
        """The text Java prints for the instant ``millis`` (epoch milliseconds) in this zone.

        Raises:
            ValueError: the instant is outside years 1-9999.
        """
        try:
            local = (_EPOCH + timedelta(milliseconds=millis)).astimezone(self.zone.tz)
        except OverflowError:
            raise ValueError(f"timestamp {millis} is outside the supported range (years 1-9999)") from None
        offset = local.utcoffset() or timedelta(0)
        moment = Moment(local, (millis % 1000) * 1_000_000, int(offset.total_seconds()))
        return "".join(printer(moment) for printer in self._printers)


class PatternError(ValueError):
    """Why a Java date pattern is invalid; callers wrap it into a ConfigError naming the setting."""


def _parse(pattern: str, zone: Zone) -> tuple[tuple[Printer, ...], tuple[tuple[str, int], ...]]:
    printers: list[Printer] = []
    letters: list[tuple[str, int]] = []
    optional_depth = 0
    pos = 0
    while pos < len(pattern):
        char = pattern[pos]
        if char.isascii() and char.isalpha():
            end = _run_end(pattern, pos)
            printers.append(_letter_printer(char, end - pos, zone))
            letters.append((char, end - pos))
            pos = end
        elif char == "'":
            text, pos = quoted_literal(pattern, pos)
            printers.append(Literal(text))
        elif char == "[":
            optional_depth += 1
            pos += 1
        elif char == "]":
            if optional_depth == 0:
                raise PatternError("Pattern invalid as it contains ] without previous [")
            optional_depth -= 1
            pos += 1
        elif char in _RESERVED:
            raise PatternError(f"Pattern includes reserved character: '{char}'")
        else:
            printers.append(Literal(char))
            pos += 1
    return tuple(printers), tuple(letters)


def _run_end(pattern: str, start: int) -> int:
    end = start
    while end < len(pattern) and pattern[end] == pattern[start]:
        end += 1
    return end


def quoted_literal(pattern: str, start: int) -> tuple[str, int]:
    """The literal starting at the quote at ``start`` and the position after its closing quote."""
    pos = start + 1
    while pos < len(pattern):
        if pattern[pos] == "'":
            if pattern[pos + 1 : pos + 2] == "'":
                pos += 2
                continue
            break
        pos += 1
    if pos >= len(pattern):
        raise PatternError("Pattern ends with an incomplete string literal")
    body = pattern[start + 1 : pos]
    return ("'" if body == "" else body.replace("''", "'")), pos + 1


def _letter_printer(letter: str, count: int, zone: Zone) -> Printer:
    if letter in _UNSUPPORTED:
        raise PatternError(f"pattern letter '{letter}' is not supported by lakesink: {_UNSUPPORTED[letter]}")
    if letter in "uy":
        return _year(letter, count)
    if letter in _NUMBER_OR_TEXT_FIELDS:
        name = _NUMBER_OR_TEXT_FIELDS[letter]
        if count <= 2:
            return _number(
                name, count, 19 if count == 1 else 2, Sign.NORMAL if count == 1 else Sign.NOT_NEGATIVE
            )
        return Text(name, _text_style(letter, count))
    if letter == "E":
        return Text("day_of_week", 0 if count <= 3 else _text_style(letter, count))
    if letter == "G":
        return Text("era", 0 if count <= 3 else _text_style(letter, count))
    if letter == "a":
        return Text("ampm", 0) if count == 1 else _too_many(letter)
    if letter in _TWO_DIGIT_FIELDS:
        if count > 2:
            _too_many(letter)
        return _number(_TWO_DIGIT_FIELDS[letter], count, 19 if count == 1 else 2, _sign_for(count))
    if letter == "D":
        if count > 3:
            _too_many(letter)
        return _number("day_of_year", count, 19 if count == 1 else 3, _sign_for(count))
    if letter in _WIDE_NUMBER_FIELDS:
        name, sign = _WIDE_NUMBER_FIELDS[letter]
        return _number(name, count, 19, sign)
    if letter == "S":
        if count > 9:
            raise PatternError(f"Minimum width must be from 0 to 9 inclusive but was {count}")
        return Fraction(count)
    return _zone_printer(letter, count, zone)


def _zone_printer(letter: str, count: int, zone: Zone) -> Printer:
    if letter == "V":
        if count != 2:
            raise PatternError(f"Pattern letter count must be 2: {letter}")
        return Literal(zone.id)
    if letter == "z":
        if count > 4:
            _too_many(letter)
        name = zone.full_name if count == 4 else zone.short_name
        if name is None:
            raise PatternError(
                f"pattern letter 'z' is not supported by lakesink for zone {zone.id!r}: Java prints CLDR "
                "zone names Python does not have; use VV, O or XXX"
            )
        return Literal(name)
    if letter == "O":
        if count not in (1, 4):
            raise PatternError(f"Pattern letter count must be 1 or 4: {letter}")
        return LocalizedOffset(full=count == 4)
    if letter == "Z":
        if count < 4:
            return OffsetId("always", "never", False, "+0000")
        if count == 4:
            return LocalizedOffset(full=True)
        if count == 5:
            return OffsetId("always", "if_non_zero", True, "Z")
        _too_many(letter)
    if letter in "Xx":
        if count > 5:
            _too_many(letter)
        zero = "Z" if letter == "X" else ("+00" if count == 1 else "+0000" if count % 2 == 0 else "+00:00")
        return OffsetId(*_OFFSET_STYLES[count], zero)
    raise PatternError(f"Unknown pattern letter: {letter}")


def _year(letter: str, count: int) -> Printer:
    name = "year" if letter == "u" else "year_of_era"
    if count == 2:
        return TwoDigitYear(name)
    if count > 10:
        raise PatternError(
            f"pattern '{letter * count}' is not supported by lakesink: Java fails to print it"
        )
    return _number(name, count, 19, Sign.NORMAL if count < 4 else Sign.EXCEEDS_PAD)


def _number(name: str, min_width: int, max_width: int, sign: Sign) -> Number:
    if min_width > 19:
        raise PatternError(f"The minimum width must be from 1 to 19 inclusive but was {min_width}")
    return Number(name, min_width, max_width, sign)


def _sign_for(count: int) -> Sign:
    return Sign.NORMAL if count == 1 else Sign.NOT_NEGATIVE


def _text_style(letter: str, count: int) -> int:
    if count > 5:
        _too_many(letter)
    return count - 3


def _too_many(letter: str) -> NoReturn:
    raise PatternError(f"Too many pattern letters: {letter}")
