"""Java ``SimpleDateFormat`` in UTC, formatting and lenient parsing, for Connect's
``TimestampConverter`` and ``TimestampRouter``.

Its letters differ from ``DateTimeFormatter``'s (``S`` is milliseconds, ``u`` the day of the week),
so :mod:`lakesink.domain.layout.datetime_pattern` cannot compile them; its printers are reused
for formatting (:class:`SimpleDateFormat`). See docs/transforms.md, "Apache Kafka".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from lakesink.domain.layout.datetime_printers import Literal, Moment, Number, Sign, Text, TwoDigitYear

Printer = Callable[[Moment], str]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_DAY_MILLIS = 86_400_000
_LETTERS = frozenset("GyMLdHkKhmsSEuFDazZX")
_WEEK_LETTERS = frozenset("YwW")
_NUMERIC = frozenset("ydHkKhmsSuFD")
_NUMBER_FIELDS = {
    "d": "day_of_month",
    "H": "hour_of_day",
    "k": "clock_hour_of_day",
    "K": "hour_of_ampm",
    "h": "clock_hour_of_ampm",
    "m": "minute",
    "s": "second",
    "D": "day_of_year",
    "u": "day_of_week",
}
_MONTHS = "January February March April May June July August September October November December".split()
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_ZONE = re.compile(r"Z|(?:UTC|GMT|UT)?(?:([+-])(\d{1,2})(?::?(\d{2}))?)?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Letter:
    """A run of one pattern letter."""

    letter: str
    count: int

    @property
    def numeric(self) -> bool:
        return self.letter in _NUMERIC or (self.letter in "ML" and self.count < 3)


@dataclass(frozen=True, slots=True)
class _Millis:
    """``S``: the milliseconds as a number, zero-padded to the letter count."""

    count: int

    def __call__(self, moment: Moment) -> str:
        return str(moment.nanos // 1_000_000).rjust(self.count, "0")


@dataclass(frozen=True, slots=True)
class _WeekdayInMonth:
    """``F``: which occurrence of its weekday the day is in its month (days 1-7 are the first)."""

    count: int

    def __call__(self, moment: Moment) -> str:
        return str((moment.local.day - 1) // 7 + 1).rjust(self.count, "0")


@dataclass(frozen=True)
class SimpleDateFormat:
    """A compiled pattern; build it with :meth:`compile`.

    Parsing follows ``SimpleDateFormat.parse``'s default lenient mode: blanks before a field are
    skipped, a number takes every digit there is unless the next field is also a number (then it
    takes as many digits as its letters), out-of-range values roll over (month 13 is January next
    year), text after the last field is ignored, and a one- or two-letter year read as exactly two
    digits lands within 80 years before and 20 after the connector's start. Supported letters:
    G y M L d H k K h m s S E u F D a z Z X. The zone letters print UTC (``UTC``, ``+0000``, ``Z``)
    and parse ``UTC``/``GMT``/``Z`` and numeric offsets. ``Y``, ``w`` and ``W`` depend on the JVM
    locale's week rules and are refused rather than guessed.
    """

    pattern: str
    century_start: int
    _tokens: tuple[str | _Letter, ...] = field(repr=False)
    _printers: tuple[Printer, ...] = field(repr=False)

    @classmethod
    def compile(cls, pattern: str, now_ms: int) -> SimpleDateFormat:
        """Parse ``pattern``; ``now_ms`` anchors the century of two-digit years.

        Raises:
            ValueError: the pattern is invalid for Java, or uses a letter lakesink refuses.
        """
        tokens = _tokens(pattern)
        printers = tuple(map(_printer, tokens))
        start = (_EPOCH + timedelta(milliseconds=now_ms)).year - 80
        return cls(pattern, start, tokens, printers)

    def format(self, millis: int) -> str:
        """The text of the instant ``millis`` (epoch milliseconds) in UTC."""
        local = _EPOCH + timedelta(milliseconds=millis)
        moment = Moment(local, millis % 1000 * 1_000_000, 0)
        return "".join(printer(moment) for printer in self._printers)

    def parse(self, text: str) -> int:
        """The epoch milliseconds ``text`` stands for.

        Raises:
            ValueError: the text does not match the pattern.
        """
        values: dict[str, int] = {}
        pos = 0
        for index, token in enumerate(self._tokens):
            if isinstance(token, str):
                if not text.startswith(token, pos):
                    raise ValueError(f"expected {token!r} at position {pos}")
                pos += len(token)
                continue
            while pos < len(text) and text[pos] in " \t":
                pos += 1
            following = self._tokens[index + 1] if index + 1 < len(self._tokens) else None
            width = token.count if isinstance(following, _Letter) and following.numeric else None
            pos = _read(token, text, pos, width, values, self.century_start)
        return _resolve(values)


def _tokens(pattern: str) -> tuple[str | _Letter, ...]:
    out: list[str | _Letter] = []
    pos = 0
    while pos < len(pattern):
        char = pattern[pos]
        if char == "'":
            end = pos + 1
            literal = ""
            while True:
                quote = pattern.find("'", end)
                if quote < 0:
                    raise ValueError("Unterminated quote")
                literal += pattern[end:quote]
                if pattern[quote + 1 : quote + 2] != "'":
                    break
                literal += "'"
                end = quote + 2
            out.append(literal if pos + 1 != quote else "'")
            pos = quote + 1
        elif char.isascii() and char.isalpha():
            end = pos
            while end < len(pattern) and pattern[end] == char:
                end += 1
            out.append(_letter(char, end - pos))
            pos = end
        else:
            out.append(char)
            pos += 1
    return tuple(out)


def _letter(char: str, count: int) -> _Letter:
    if char in _WEEK_LETTERS:
        raise ValueError(
            f"pattern letter '{char}' is not supported by lakesink: it depends on the JVM locale"
        )
    if char not in _LETTERS:
        raise ValueError(f"Illegal pattern character '{char}'")
    if char == "X" and count > 3:
        raise ValueError("invalid ISO 8601 format: length=" + str(count))
    if count > 19 and char in _NUMERIC | {"M", "L"}:
        raise ValueError(f"pattern '{char * count}' is not supported by lakesink: too wide")
    return _Letter(char, count)


def _printer(token: str | _Letter) -> Printer:
    if isinstance(token, str):
        return Literal(token)
    letter, count = token.letter, token.count
    if letter == "y":
        return TwoDigitYear("year_of_era") if count == 2 else Number("year_of_era", count, 19, Sign.NORMAL)
    if letter in "ML":
        return (
            Text("month", 1 if count >= 4 else 0) if count >= 3 else Number("month", count, 19, Sign.NORMAL)
        )
    if letter in _NUMBER_FIELDS:
        return Number(_NUMBER_FIELDS[letter], count, 19, Sign.NORMAL)
    texts: dict[str, Printer] = {
        "G": Text("era", 0),
        "E": Text("day_of_week", 1 if count >= 4 else 0),
        "a": Text("ampm", 0),
        "S": _Millis(count),
        "F": _WeekdayInMonth(count),
        "z": Literal("Coordinated Universal Time" if count >= 4 else "UTC"),
        "Z": Literal("+0000"),
        "X": Literal("Z"),
    }
    return texts[letter]


def _read(
    token: _Letter, text: str, pos: int, width: int | None, values: dict[str, int], century: int
) -> int:
    """Read one field at ``pos`` into ``values``; the position after it."""
    letter = token.letter
    if token.numeric:
        end = pos
        limit = len(text) if width is None else min(len(text), pos + width)
        while end < limit and text[end].isdigit():
            end += 1
        if end == pos:
            raise ValueError(f"expected a number at position {pos}")
        number = int(text[pos:end])
        if letter == "y" and token.count <= 2 and end - pos == 2:
            number += century // 100 * 100
            if number < century:
                number += 100
        values["M" if letter == "L" else letter] = number
        return end
    if letter in "ML":
        return _read_text(text, pos, [*_MONTHS, *(name[:3] for name in _MONTHS)], "M", values, 1)
    if letter == "E":
        return _read_text(text, pos, [*_DAYS, *(name[:3] for name in _DAYS)], "E", values, 1)
    if letter == "a":
        return _read_text(text, pos, ["AM", "PM"], "a", values, 0)
    if letter == "G":
        return _read_text(text, pos, ["BC", "AD"], "G", values, 0)
    match = _ZONE.match(text, pos)
    if match is None or match.end() == pos:
        raise ValueError(f"expected a time zone at position {pos}")
    sign, hours, minutes = match.groups()
    offset = 0 if sign is None else int(hours) * 60 + int(minutes or 0)
    values["zone"] = -offset if sign == "-" else offset
    return match.end()


def _read_text(text: str, pos: int, names: list[str], key: str, values: dict[str, int], first: int) -> int:
    """Match the longest of ``names`` (full names, then short ones, case-insensitively) and store
    its position in the list of full names, counted from ``first``."""
    period = len(names) // 2 if len(names) > 2 else len(names)
    best = -1
    for index, name in enumerate(names):
        if text[pos : pos + len(name)].lower() == name.lower() and (best < 0 or len(name) > len(names[best])):
            best = index
    if best < 0:
        raise ValueError(f"expected one of {names[:period]} at position {pos}")
    values[key] = best % period + first
    return pos + len(names[best])


def _resolve(values: dict[str, int]) -> int:
    """Epoch millis from the fields read, rolling over out-of-range values as a lenient Calendar does."""
    year = values.get("y", 1970)
    if values.get("G", 1) == 0:
        year = 1 - year
    if "D" in values and "M" not in values and "d" not in values:
        ordinal = date(year, 1, 1).toordinal() + values["D"] - 1
    else:
        month = values.get("M", 1)
        year += (month - 1) // 12
        ordinal = date(year, (month - 1) % 12 + 1, 1).toordinal() + values.get("d", 1) - 1
    if "H" in values:
        hour = values["H"]
    elif "k" in values:
        hour = values["k"] % 24
    else:
        hour = values.get("h", values.get("K", 0)) % 12 + 12 * values.get("a", 0)
    millis = (ordinal - _EPOCH_ORDINAL) * _DAY_MILLIS
    millis += ((hour * 60 + values.get("m", 0)) * 60 + values.get("s", 0)) * 1000 + values.get("S", 0)
    return millis - values.get("zone", 0) * 60_000
