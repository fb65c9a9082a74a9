"""Reading Confluent storage-sink settings the way Kafka's ``ConfigDef`` parses them.

The Confluent partitioners and key layout take their settings from a connector properties map
(all strings). Kafka parses each value by its declared type before the connector sees it, and
those rules decide what a key looks like, so they are reproduced here:

* STRING values are trimmed with Java's ``String.trim`` (every character up to U+0020 is
  whitespace, nothing above it is);
* LONG/INT values are trimmed and read as optionally signed ASCII decimals in the type's range;
* LIST values are trimmed, an empty text is the empty list, otherwise the text is split on
  commas with the whitespace around each comma dropped (empty items are kept).

Every error is a ConfigError naming the key at fault.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.key_segments import has_control_character

Settings = Mapping[str, str]

DIRECTORY_DELIM = "directory.delim"
DIRECTORY_DELIM_DEFAULT = "/"

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


def directory_delim(settings: Settings) -> str:
    """``directory.delim`` (default ``/``).

    Raises:
        ConfigError: the delimiter contains a control character (it is written into object keys).
    """
    delim = string_setting(settings, DIRECTORY_DELIM, DIRECTORY_DELIM_DEFAULT)
    reject_control_characters(DIRECTORY_DELIM, delim)
    return delim


def reject_control_characters(key: str, value: str) -> None:
    """Refuse a setting that ends up in object keys when it holds a control character.

    Raises:
        ConfigError: naming ``key``.
    """
    if has_control_character(value):
        raise ConfigError(
            f"Invalid value {value!r} for configuration {key}: "
            "control characters are not allowed in object keys."
        )


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
