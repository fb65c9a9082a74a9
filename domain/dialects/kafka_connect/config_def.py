"""A connector's properties read the way Kafka's ``ConfigDef`` parses them, before the connector sees them.

Those rules decide what a setting means, so they are reproduced once for every dialect: Java's
``String.trim``, signed decimals in the type's range, comma lists, ``ValidString`` in Kafka's own
words. Every error is a ConfigError naming the key at fault.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lakesink.domain.errors import ConfigError

Settings = Mapping[str, str]

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1

_INTEGER = re.compile(r"[+-]?[0-9]+")
_LIST_SEPARATOR = re.compile(r"[ \t\n\x0b\f\r]*,[ \t\n\x0b\f\r]*")


def java_trim(text: str) -> str:
    """``String.trim()``: drop leading and trailing characters up to U+0020."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def string_setting(settings: Settings, key: str, default: str) -> str:
    """A STRING setting, trimmed; ``default`` when absent."""
    value = settings.get(key)
    return default if value is None else java_trim(str(value))


def long_setting(settings: Settings, key: str, default: int) -> int:
    """A LONG setting; ``default`` when absent.

    Raises:
        ConfigError: naming ``key`` when the value is not a 64-bit integer.
    """
    return _integer(settings, key, default, "LONG", LONG_MIN, LONG_MAX)


def int_setting(settings: Settings, key: str, default: int) -> int:
    """An INT setting; ``default`` when absent.

    Raises:
        ConfigError: naming ``key`` when the value is not a 32-bit integer.
    """
    return _integer(settings, key, default, "INT", INT_MIN, INT_MAX)


def list_setting(settings: Settings, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A LIST setting as its items; ``default`` when absent."""
    value = settings.get(key)
    if value is None:
        return default
    text = java_trim(str(value))
    return tuple(_LIST_SEPARATOR.split(text)) if text else ()


def required(settings: Settings, key: str) -> str:
    """A STRING setting without a default (``ConfigDef.NO_DEFAULT_VALUE``), trimmed.

    Raises:
        ConfigError: in Kafka's words when it is absent or empty.
    """
    value = string_setting(settings, key, "")
    if not value:
        raise ConfigError(f'Missing required configuration "{key}" which has no default value.')
    return value


def one_of(settings: Settings, key: str, allowed: tuple[str, ...], default: str, *, lower: bool = False) -> str:
    """A STRING setting checked by a ``ValidString``; ``lower`` compares it lower-cased (a
    ``CaseInsensitiveValidString``, the value returned lower-cased).

    Raises:
        ConfigError: in Kafka's words when the value is not one of ``allowed``.
    """
    value = string_setting(settings, key, default)
    if lower:
        value = value.lower()
    if value not in allowed:
        raise ConfigError(
            f"Invalid value {value} for configuration {key}: String must be one of: {', '.join(allowed)}"
        )
    return value


def subscription(settings: Settings) -> tuple[tuple[str, ...], str | None]:
    """A sink connector's ``topics`` (a list) or ``topics.regex``: exactly one, as Kafka Connect requires.

    Raises:
        ConfigError: both or neither set.
    """
    topics = tuple(t for t in (part.strip() for part in settings.get("topics", "").split(",")) if t)
    regex = string_setting(settings, "topics.regex", "") or None
    if bool(topics) == bool(regex):
        raise ConfigError("Set exactly one of topics and topics.regex (Kafka Connect requires one).")
    return topics, regex


def _integer(settings: Settings, key: str, default: int, type_name: str, low: int, high: int) -> int:
    value = settings.get(key)
    if value is None:
        return default
    text = java_trim(str(value))
    number = int(text) if _INTEGER.fullmatch(text) else None
    if number is None or not low <= number <= high:
        raise ConfigError(
            f"Invalid value {value!r} for configuration {key}: Not a number of type {type_name}"
        )
    return number
