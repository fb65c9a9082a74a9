"""Epoch arithmetic the way Lenses' Java code does it, shared by its timestamp SMTs.

Java's ``TimeUnit`` conversions truncate towards zero (Python's ``//`` floors), ``Long.parseLong``
accepts a sign and nothing else, and a Connect ``Date``/``Time``/``Timestamp`` is one
``java.util.Date`` (milliseconds since the epoch) whatever its logical type: these helpers keep
those rules in one place so every SMT reads epoch numbers and date-time values alike.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

#: ``unix.precision`` values -> milliseconds per unit, as (multiplier, divisor).
PRECISIONS = {
    "seconds": (1000, 1),
    "milliseconds": (1, 1),
    "microseconds": (1, 1000),
    "nanoseconds": (1, 1_000_000),
}
DEFAULT_PRECISION = "milliseconds"

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_DAY = date(1970, 1, 1)
_JAVA_LONG = re.compile(r"[+-]?[0-9]+")
_LONG_MAX = 2**63 - 1


def to_millis(number: int, precision: str) -> int:
    """An epoch number in ``precision`` units as milliseconds (sub-millisecond digits dropped)."""
    multiplier, divisor = PRECISIONS[precision]
    return java_div(number * multiplier, divisor)


def from_millis(millis: int, precision: str) -> int:
    """Epoch milliseconds as a number in ``precision`` units (seconds truncate towards zero)."""
    multiplier, divisor = PRECISIONS[precision]
    return java_div(millis * divisor, multiplier)


def java_div(dividend: int, divisor: int) -> int:
    """Java's ``long`` division, which truncates towards zero."""
    quotient = abs(dividend) // divisor
    return quotient if dividend >= 0 else -quotient


def java_long(text: str) -> int | None:
    """``Long.parseLong(text)``, None where Java would throw."""
    if not _JAVA_LONG.fullmatch(text):
        return None
    number = int(text)
    return number if -_LONG_MAX - 1 <= number <= _LONG_MAX else None


def is_long(value: Any) -> bool:
    """Whether ``value`` is an integer as Connect holds a ``Long`` (a bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def temporal_millis(value: Any) -> int | None:
    """Epoch milliseconds of a ``datetime`` (naive = UTC), ``date`` (its UTC midnight) or ``time``
    (on 1970-01-01 UTC), as the ``java.util.Date`` Connect holds for them; None for other types."""
    if isinstance(value, datetime):
        return utc_millis(value if value.tzinfo is not None else value.replace(tzinfo=UTC))
    if isinstance(value, date):
        return (value - _EPOCH_DAY).days * 86_400_000
    if isinstance(value, time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    return None


def utc_millis(moment: datetime) -> int:
    """Epoch milliseconds of an aware ``datetime``, floored like ``Instant.toEpochMilli``."""
    return (moment - EPOCH) // timedelta(milliseconds=1)


def instant(millis: int) -> datetime:
    """The aware UTC ``datetime`` of epoch milliseconds.

    Raises:
        OverflowError: outside years 1-9999.
    """
    return EPOCH + timedelta(milliseconds=millis)
