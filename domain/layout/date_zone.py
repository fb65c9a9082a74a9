"""The zone ``_date`` partition values are formatted in (``partition.date.timezone``).

Java's ``ZoneId.of`` accepts region ids (``Europe/Paris``), ``Z`` and offsets (``+05:30``); the
zone's id and, where Java's text is known without CLDR data, its names are printed by the
``VV``, ``z`` and ``zzzz`` pattern letters, so they are resolved here once per pattern.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from lakesink.domain.errors import ConfigError

TIMEZONE_SETTING = "partition.date.timezone"

_UTC_ALIASES = frozenset(
    {"UTC", "Etc/UTC", "UCT", "Etc/UCT", "Universal", "Etc/Universal", "Zulu", "Etc/Zulu"}
)
_GMT_ALIASES = frozenset(
    {
        "GMT",
        "Etc/GMT",
        "Greenwich",
        "Etc/Greenwich",
        "GMT0",
        "Etc/GMT0",
        "GMT+0",
        "GMT-0",
        "Etc/GMT+0",
        "Etc/GMT-0",
    }
)


@dataclass(frozen=True, slots=True)
class Zone:
    """A resolved ``partition.date.timezone``: the tzinfo plus the texts Java prints for it.

    ``short_name``/``full_name`` (for ``z``/``zzzz``) are None for region zones, whose Java
    names come from CLDR data the tz database lacks.
    """

    id: str
    tz: tzinfo = field(compare=False, repr=False)
    short_name: str | None = field(default=None, compare=False, repr=False)
    full_name: str | None = field(default=None, compare=False, repr=False)


def is_utc(zone: Zone) -> bool:
    """Whether the zone is UTC at every instant: ``Z`` (any zero offset) or a UTC/GMT id. A region
    zone at UTC today (``Africa/Abidjan``, ``America/Danmarkshavn``) was not always."""
    return zone.id == "Z" or zone.id in _UTC_ALIASES or zone.id in _GMT_ALIASES


def resolve_zone(name: str) -> Zone:
    """The zone for an IANA name, ``Z`` or an offset ``±HH[:MM[:SS]]``, with Java's zone id.

    Raises:
        ConfigError: naming ``partition.date.timezone`` when the zone is unknown.
    """
    text = name.strip()
    if text == "Z" or text.startswith(("+", "-")):
        seconds = _offset_seconds(text, name)
        zone_id = "Z" if seconds == 0 else _offset_id(seconds)
        return Zone(zone_id, timezone(timedelta(seconds=seconds)), zone_id, zone_id)
    try:
        tz = ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"Invalid value {name!r} for {TIMEZONE_SETTING}: expected a zone id such as UTC, "
            "Europe/Paris or +05:30."
        ) from None
    if text in _UTC_ALIASES:
        return Zone(text, tz, "UTC", "Coordinated Universal Time")
    if text in _GMT_ALIASES:
        return Zone(text, tz, "GMT", "Greenwich Mean Time")
    return Zone(text, tz)


def _offset_seconds(text: str, original: str) -> int:
    if text == "Z":
        return 0
    parts = text[1:].split(":") if ":" in text else [text[i : i + 2] for i in range(1, len(text), 2)]
    numbers = [int(part) for part in parts if len(part) == 2 and part.isascii() and part.isdigit()]
    if len(numbers) != len(parts) or not 1 <= len(numbers) <= 3:
        raise ConfigError(
            f"Invalid value {original!r} for {TIMEZONE_SETTING}: expected an offset like +05:30."
        )
    hours, minutes, seconds = (numbers + [0, 0])[:3]
    if hours > 18 or minutes > 59 or seconds > 59 or hours * 3600 + minutes * 60 + seconds > 18 * 3600:
        raise ConfigError(
            f"Invalid value {original!r} for {TIMEZONE_SETTING}: offsets range from -18:00 to +18:00."
        )
    total = hours * 3600 + minutes * 60 + seconds
    return -total if text[0] == "-" else total


def _offset_id(seconds: int) -> str:
    """Java's ``ZoneOffset.getId()``: ``+05:30``, or ``+05:30:15`` with seconds."""
    magnitude = abs(seconds)
    text = f"{'-' if seconds < 0 else '+'}{magnitude // 3600:02d}:{magnitude // 60 % 60:02d}"
    return text + (f":{magnitude % 60:02d}" if magnitude % 60 else "")
