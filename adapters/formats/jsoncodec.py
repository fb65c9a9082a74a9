"""Python values → compact JSON text, the way Kafka's JsonConverter renders Connect data.

``datetime`` → epoch millis, ``date`` → days since the epoch, ``time`` → millis since midnight, bytes
→ base64, ``Decimal`` → an exact number (``decimal.format=NUMERIC``, the default here) or, with
``decimals=BASE64``, the base64 of its unscaled bytes (JsonConverter's default); non-ASCII as UTF-8.
Without a Decimal it all runs in the C encoder; a NUMERIC Decimal takes a slower exact path.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from lakesink.domain.formats import DecimalFormat
from lakesink.domain.schema.connect import time_of_day_millis
from lakesink.domain.schema.decimal_bytes import unscaled_bytes

_EPOCH_DATE = date(1970, 1, 1)


class _NeedsExactDecimal(Exception):
    """Raised inside the C encoder's fallback to switch to the exact encoder."""


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return _millis(aware)
    if isinstance(value, date):
        return (value - _EPOCH_DATE).days
    if isinstance(value, time):
        return time_of_day_millis(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Decimal):
        raise _NeedsExactDecimal
    raise TypeError(f"cannot write a value of type {type(value).__name__} as JSON")


def _millis(value: datetime) -> int:
    delta = value - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _plain_base64(value: Any) -> Any:
    if isinstance(value, Decimal):
        return base64.b64encode(unscaled_bytes(value)).decode("ascii")
    return _plain(value)


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False, default=_plain)
_BASE64_ENCODER = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, check_circular=False, default=_plain_base64
)


def dumps(value: Any, *, decimals: DecimalFormat = DecimalFormat.NUMERIC) -> str:
    """Compact JSON of ``value``; each Decimal as ``decimals`` says.

    Raises:
        TypeError: the value holds a type JSON cannot carry.
        ValueError: a Decimal is NaN or infinite.
    """
    if decimals is DecimalFormat.BASE64:
        return _BASE64_ENCODER.encode(value)
    try:
        return _ENCODER.encode(value)
    except _NeedsExactDecimal:
        return _exact(value)


def _exact(value: Any) -> str:
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} is not a JSON number")
        return str(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_ENCODER.encode(str(k))}:{_exact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        return "[" + ",".join(_exact(item) for item in value) + "]"
    return _ENCODER.encode(value)

