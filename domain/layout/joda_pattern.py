"""Joda-Time ``DateTimeFormat`` patterns, the language of Confluent's ``path.format``.

The text is part of every object key, so it must match Joda 2.13's output character for
character; what cannot be matched is refused with a ConfigError, never approximated
(:meth:`JodaPattern.compile`). See docs/dialects.md, "Converting a Confluent config".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.datetime_printers import Fraction, Literal, Moment, Text
from lakesink.domain.layout.joda_zone import JodaZone

PATH_FORMAT_SETTING = "path.format"
LOCALE_SETTING = "locale"

Printer = Callable[[Moment], str]

_EPOCH = datetime(1970, 1, 1)
_MAX_FRACTION_DIGITS = 9

#: Joda numeric fields read from a Moment (local date-time in the zone; ISO chronology).
_FIELDS: dict[str, Callable[[Moment], int]] = {
    "year": lambda m: m.local.year,
    "year_of_era": lambda m: m.local.year,  # Python years are 1-9999: always the era's own year
    "century_of_era": lambda m: m.local.year // 100,
    "weekyear": lambda m: m.local.isocalendar()[0],
    "week_of_weekyear": lambda m: m.local.isocalendar()[1],
    "month": lambda m: m.local.month,
    "day_of_month": lambda m: m.local.day,
    "day_of_year": lambda m: m.local.timetuple().tm_yday,
    "day_of_week": lambda m: m.local.isoweekday(),
    "hour_of_day": lambda m: m.local.hour,
    "clock_hour_of_day": lambda m: m.local.hour or 24,
    "hour_of_halfday": lambda m: m.local.hour % 12,
    "clock_hour_of_halfday": lambda m: m.local.hour % 12 or 12,
    "minute": lambda m: m.local.minute,
    "second": lambda m: m.local.second,
}
_NUMBER_LETTERS = {
    "C": "century_of_era",
    "d": "day_of_month",
    "h": "clock_hour_of_halfday",
    "H": "hour_of_day",
    "k": "clock_hour_of_day",
    "K": "hour_of_halfday",
    "m": "minute",
    "s": "second",
    "e": "day_of_week",
    "D": "day_of_year",
    "w": "week_of_weekyear",
}
_YEAR_LETTERS = {"y": "year", "Y": "year_of_era", "x": "weekyear"}
_TWO_DIGIT_YEAR_FIELDS = {"y": "year", "Y": "year", "x": "weekyear"}  # Joda's 'YY' reads the year


@dataclass(frozen=True, slots=True)
class JodaNumber:
    """A field in decimal, zero-padded to ``width`` digits (Joda prints wider values whole)."""

    field: str
    width: int

    def __call__(self, moment: Moment) -> str:
        return str(_FIELDS[self.field](moment)).rjust(self.width, "0")


@dataclass(frozen=True, slots=True)
class JodaTwoDigitYear:
    """``yy``/``YY``/``xx``: the year's last two digits."""

    field: str

    def __call__(self, moment: Moment) -> str:
        return f"{_FIELDS[self.field](moment) % 100:02d}"


@dataclass(frozen=True, slots=True)
class JodaOffset:
    """``Z`` (``+hhmm``) or ``ZZ`` (``+hh:mm``); seconds of an offset are not printed."""

    colon: bool

    def __call__(self, moment: Moment) -> str:
        total = moment.offset_seconds
        magnitude = abs(total)
        separator = ":" if self.colon else ""
        return f"{'-' if total < 0 else '+'}{magnitude // 3600:02d}{separator}{magnitude // 60 % 60:02d}"


@dataclass(frozen=True, slots=True)
class JodaPattern:
    """A compiled ``path.format`` bound to a zone; build it with :meth:`compile`.

    Immutable and picklable (its printers are dataclasses), so it can be shipped to executors.
    """

    pattern: str
    zone: JodaZone
    _printers: tuple[Printer, ...] = field(compare=False, repr=False)

    @classmethod
    def compile(cls, pattern: str, zone: JodaZone, locale: str = "en") -> JodaPattern:
        """Parse ``pattern`` once.

        Joda's letters are not java.time's: ``YYYY`` is the year of era (java.time: week-based year),
        ``yyyy`` the year, ``xxxx`` the ISO week-based year and ``ww`` its week; two letters of
        ``y``/``Y``/``x`` give the last two digits; ``M``/``MM`` the month number, ``MMM``/``MMMM`` its
        short/full name; ``E``..``EEE`` and ``EEEE``+ the short/full day name; ``a`` AM/PM (any count);
        ``G`` the era (BC/AD, any count); ``d H h k K m s D e C`` are numbers zero-padded to the letter
        count (``ddd`` is ``008``); ``S``..``S`` the first digits of the fraction of the second; ``Z`` is
        ``+hhmm``, ``ZZ`` ``+hh:mm`` (``+0000``/``+00:00`` at UTC), ``ZZZ`` the zone id; a run of other
        characters is literal text, ``'...'`` quotes letters, ``''`` is a quote and an unclosed quote
        runs to the end of the pattern (Joda does not reject it).

        Refused instead of approximated: zone names (``z``, which Joda takes from the JVM's locale
        data), ``ZZZ`` with a tz-database zone (Joda prints the canonical id of an alias, which the tz
        database Python reads does not say), more than nine ``S``, and text letters (``MMM``, ``E``,
        ``a``, ``G``) unless ``locale`` is ``en``: Confluent builds the locale with ``new Locale(text)``,
        which makes ``en_US`` a locale whose *language* is the unknown ``en_us``, so only ``en`` is
        known to print English. Numbers do not depend on the locale in Joda (ASCII digits, ISO
        chronology), so numeric patterns accept any non-blank locale. An unknown letter is Joda's own
        error, ``Illegal pattern component``.

        Args:
            pattern: the Joda pattern, as Confluent passes it (after its trailing-delimiter strip).
            zone: from :func:`~lakesink.domain.layout.joda_zone.resolve_joda_zone`.
            locale: the ``locale`` setting as written.

        Raises:
            ConfigError: naming ``path.format`` for an illegal or unsupported letter, or
                ``locale`` when text letters are used with a locale other than ``en``.
        """
        printers = tuple(_printer(token, pattern, zone) for token in tokens(pattern))
        if any(isinstance(printer, Text) for printer in printers) and locale.lower() != "en":
            raise ConfigError(
                f"Invalid value {locale!r} for configuration {LOCALE_SETTING}: {PATH_FORMAT_SETTING} "
                f"{pattern!r} prints month, day, AM/PM or era names, which lakesink reproduces only "
                "for locale 'en' (Java reads a locale such as en_US as an unknown language 'en_us' "
                "whose names depend on the JVM)."
            )
        return cls(pattern, zone, printers)

    def format_epoch_millis(self, millis: int) -> str:
        """The text Joda prints for the instant ``millis`` (epoch milliseconds) in the zone.

        Raises:
            ValueError: the instant is outside years 1-9999.
        """
        offset_ms = self.zone.offset_ms(millis)
        local_ms = millis + offset_ms
        try:
            local = _EPOCH + timedelta(milliseconds=local_ms)
        except OverflowError:
            raise ValueError(f"timestamp {millis} is outside the supported range (years 1-9999)") from None
        moment = Moment(local, (local_ms % 1000) * 1_000_000, offset_ms // 1000)
        return "".join(printer(moment) for printer in self._printers)


def tokens(pattern: str) -> Iterator[tuple[str, int] | str]:
    """Joda's tokens: ``(letter, count)`` for a run of one ASCII letter, ``str`` for literal text."""
    pos, length = 0, len(pattern)
    while pos < length:
        char = pattern[pos]
        if _is_letter(char):
            end = pos
            while end + 1 < length and pattern[end + 1] == char:
                end += 1
            yield char, end - pos + 1
            pos = end + 1
            continue
        text: list[str] = []
        quoted = False
        while pos < length:
            char = pattern[pos]
            if char == "'":
                if pattern[pos + 1 : pos + 2] == "'":
                    text.append("'")
                    pos += 2
                    continue
                quoted = not quoted
            elif not quoted and _is_letter(char):
                break
            else:
                text.append(char)
            pos += 1
        yield "".join(text)


def _is_letter(char: str) -> bool:
    return "A" <= char <= "Z" or "a" <= char <= "z"


def _printer(token: tuple[str, int] | str, pattern: str, zone: JodaZone) -> Printer:
    if isinstance(token, str):
        return Literal(token)
    letter, count = token
    if letter in _YEAR_LETTERS:
        return (
            JodaTwoDigitYear(_TWO_DIGIT_YEAR_FIELDS[letter])
            if count == 2
            else JodaNumber(_YEAR_LETTERS[letter], count)
        )
    if letter in _NUMBER_LETTERS:
        return JodaNumber(_NUMBER_LETTERS[letter], count)
    if letter == "M":
        return JodaNumber("month", count) if count <= 2 else Text("month", 1 if count >= 4 else 0)
    if letter == "E":
        return Text("day_of_week", 1 if count >= 4 else 0)
    if letter == "a":
        return Text("ampm", 0)
    if letter == "G":
        return Text("era", 0)
    if letter == "S":
        if count > _MAX_FRACTION_DIGITS:
            raise _unsupported(pattern, letter * count, f"at most {_MAX_FRACTION_DIGITS} fraction digits")
        return Fraction(count)
    if letter == "Z":
        if count <= 2:
            return JodaOffset(colon=count == 2)
        if zone.fixed_offset_ms is None:
            raise _unsupported(
                pattern,
                letter * count,
                f"Joda prints the canonical id of {zone.id!r}, which lakesink cannot tell; "
                "use Z or ZZ, or an offset timezone",
            )
        return Literal(zone.id)
    if letter == "z":
        raise _unsupported(pattern, letter * count, "zone names come from the JVM's locale data; use Z or ZZ")
    raise ConfigError(
        f"Invalid value {pattern} for configuration {PATH_FORMAT_SETTING}: "
        f"Illegal pattern component: {letter * count}"
    )


def _unsupported(pattern: str, component: str, reason: str) -> ConfigError:
    return ConfigError(
        f"Invalid value {pattern} for configuration {PATH_FORMAT_SETTING}: "
        f"'{component}' is not supported by lakesink ({reason})."
    )
