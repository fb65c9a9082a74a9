"""The ``timezone`` of Confluent's time-based partitioners, as Joda-Time reads and applies it.

Resolved as Joda's ``DateTimeZone.forID`` does (:func:`resolve_joda_zone`); the bucket arithmetic
goes through :meth:`JodaZone.utc_to_local` and :meth:`JodaZone.local_to_utc`, Joda's
``convertUTCToLocal`` and lenient ``convertLocalToUTC`` (see the latter for the one approximation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from lakesink.domain.errors import ConfigError

TIMEZONE_SETTING = "timezone"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLI = timedelta(milliseconds=1)
_NOT_IN_JODA = frozenset({"Factory", "localtime"})
_UTC_WORDS = frozenset({"UT", "GMT", "Z"})
_OFFSET = re.compile(r"([+-])([0-9]{2})(?:(:?)([0-9]{2})(?:\3([0-9]{2}))?)?")


@dataclass(frozen=True, slots=True)
class JodaZone:
    """A resolved ``timezone``: Joda's id and the offset rules.

    ``fixed_offset_ms`` is None for tz-database zones. ``id`` is what Joda's ``getID()``
    returns for UTC and fixed offsets; for tz-database zones it is the configured id (Joda may
    report the canonical id of an alias instead, so pattern letters that print the id refuse
    those zones).
    """

    id: str
    fixed_offset_ms: int | None
    tz: tzinfo = field(compare=False, repr=False)

    def offset_ms(self, instant_ms: int) -> int:
        """The zone's offset from UTC at ``instant_ms``, in milliseconds (Joda ``getOffset``).

        Raises:
            ValueError: the instant is outside years 1-9999.
        """
        if self.fixed_offset_ms is not None:
            return self.fixed_offset_ms
        try:
            moment = (_EPOCH + timedelta(milliseconds=instant_ms)).astimezone(self.tz)
        except OverflowError:
            raise ValueError(
                f"timestamp {instant_ms} is outside the supported range (years 1-9999)"
            ) from None
        return (moment.utcoffset() or timedelta(0)) // _MILLI

    def utc_to_local(self, instant_ms: int) -> int:
        """Joda ``convertUTCToLocal``: the instant shifted by the offset in force at it."""
        return instant_ms + self.offset_ms(instant_ms)

    def local_to_utc(self, local_ms: int) -> int:
        """Joda ``convertLocalToUTC(local, false)``: the instant whose local time is ``local_ms``.

        In an overlap (clocks set back) this picks what Joda picks; in a gap (clocks set
        forward) it returns an instant just after the gap, like Joda: for zones west of
        Greenwich by keeping the offset from before the change, for zones east of it by using
        the offset after it. Joda detects the gap by comparing its next transitions after two
        candidate instants; this compares the offsets at them, which differs only if a zone
        changed its offset twice, or only its name, within a few hours of such a change.
        """
        offset_local = self.offset_ms(local_ms)
        offset = self.offset_ms(local_ms - offset_local)
        if offset != offset_local and offset_local < 0 and self.offset_ms(local_ms - offset) != offset:
            offset = offset_local
        return local_ms - offset


UTC_ZONE = JodaZone("UTC", 0, UTC)


def resolve_joda_zone(text: str) -> JodaZone:
    """The zone Joda's ``DateTimeZone.forID`` returns for ``text`` (already trimmed).

    ``DateTimeZone.forID`` (Joda 2.13) tries, in order: the exact text ``UTC``; a tz-database id
    (``America/Los_Angeles``, ``Etc/GMT+2``, the ``backward`` aliases); ``UT``, ``GMT`` and ``Z``; an
    offset, optionally after a ``UTC``/``GMT`` (or ``UT``) prefix, written ``±hh``, ``±hh:mm``,
    ``±hhmm``, ``±hh:mm:ss`` or ``±hhmmss`` with hours up to 23. A zero offset is UTC; any other is a
    fixed zone whose id is the offset as ``±hh:mm[:ss]``. Offsets with fractions of a second (which
    Joda also accepts) are refused, and so are ``Factory`` and ``localtime`` (tz ids Joda lacks).
    Offsets can only differ from Joda's where the two tz-database releases disagree.

    Raises:
        ConfigError: naming ``timezone`` when Joda would not recognise the id, or it is an
            offset with fractions of a second.
    """
    if text == "UTC":
        return UTC_ZONE
    if text in _tz_database_ids():
        return JodaZone(text, None, ZoneInfo(text))
    if text in _UTC_WORDS:
        return UTC_ZONE
    offset_text = text
    if text.startswith(("UTC+", "UTC-", "GMT+", "GMT-")):
        offset_text = text[3:]
    elif text.startswith(("UT+", "UT-")):
        offset_text = text[2:]
    offset = _offset_ms(offset_text)
    if offset is None:
        raise ConfigError(
            f"Invalid value {text!r} for configuration {TIMEZONE_SETTING}: The datetime zone id "
            f"'{text}' is not recognised (expected a zone id such as UTC, America/Los_Angeles or +02:00)."
        )
    if offset == 0:
        return UTC_ZONE
    return JodaZone(_offset_id(offset), offset, timezone(timedelta(milliseconds=offset)))


@cache
def _tz_database_ids() -> frozenset[str]:
    return frozenset(available_timezones()) - _NOT_IN_JODA


def _offset_ms(text: str) -> int | None:
    match = _OFFSET.fullmatch(text)
    if match is None:
        return None
    sign, hours, _, minutes, seconds = match.groups()
    h, m, s = int(hours), int(minutes or 0), int(seconds or 0)
    if h > 23 or m > 59 or s > 59:
        return None
    total = ((h * 60 + m) * 60 + s) * 1000
    return -total if sign == "-" else total


def _offset_id(offset_ms: int) -> str:
    """Joda's id of a fixed offset: ``±hh:mm``, with ``:ss`` when there are seconds."""
    magnitude = abs(offset_ms) // 1000
    text = f"{'-' if offset_ms < 0 else '+'}{magnitude // 3600:02d}:{magnitude // 60 % 60:02d}"
    return text + (f":{magnitude % 60:02d}" if magnitude % 60 else "")
