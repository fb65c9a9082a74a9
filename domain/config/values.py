"""Typed reading of string-valued settings; every error names the key at fault.

Connector configs arrive as strings (a ``.properties`` file, Kafka Connect JSON, KCQL
PROPERTIES). These helpers turn them into typed values and reject anything else, unlike Lenses,
which silently falls back to defaults on unparsable values.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import TypeVar

from lakesink.domain.config.secret import MASK
from lakesink.domain.errors import ConfigError

E = TypeVar("E", bound=Enum)

_TRUE = {"true"}
_FALSE = {"false"}


def _shown(value: object, secret: bool) -> str:
    """A value as an error message shows it: quoted, or the mask when it came from a config provider."""
    if secret:
        return MASK
    return repr(value) if isinstance(value, str) else str(value)


def as_bool(key: str, raw: str, *, secret: bool = False) -> bool:
    """``true``/``false`` in any case; ``secret`` keeps ``raw`` out of the error message."""
    text = raw.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"Invalid value {_shown(raw, secret)} for {key}: expected true or false.")


def as_int(
    key: str, raw: str, *, minimum: int | None = None, maximum: int | None = None, secret: bool = False
) -> int:
    """A base-10 integer, optionally bounded (inclusive)."""
    try:
        value = int(raw.strip().replace("_", ""))
    except ValueError:
        raise ConfigError(f"Invalid value {_shown(raw, secret)} for {key}: expected an integer.") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"Invalid value {_shown(value, secret)} for {key}: must be at least {minimum}.")
    if maximum is not None and value > maximum:
        raise ConfigError(f"Invalid value {_shown(value, secret)} for {key}: must be at most {maximum}.")
    return value


def as_float(key: str, raw: str, *, minimum: float | None = None, secret: bool = False) -> float:
    """A decimal number, optionally bounded below (inclusive)."""
    try:
        value = float(raw.strip())
    except ValueError:
        raise ConfigError(f"Invalid value {_shown(raw, secret)} for {key}: expected a number.") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"Invalid value {_shown(value, secret)} for {key}: must be at least {minimum}.")
    return value


def as_char(key: str, raw: str) -> str:
    """Exactly one character."""
    if len(raw) != 1:
        raise ConfigError(f"Invalid value {raw!r} for {key}: expected exactly one character.")
    return raw


def as_enum(key: str, raw: str, enum: type[E], *, secret: bool = False) -> E:
    """An enum member by name or value, case-insensitively."""
    wanted = raw.strip().lower()
    for member in enum:
        if member.name.lower() == wanted or str(member.value).lower() == wanted:
            return member
    allowed = ", ".join(str(m.value) for m in enum)
    raise ConfigError(f"Invalid value {_shown(raw, secret)} for {key}: expected one of {allowed}.")


def as_choice(key: str, raw: str, choices: Mapping[str, str], *, secret: bool = False) -> str:
    """One of ``choices`` (matched case-insensitively), returned in canonical spelling."""
    canonical = choices.get(raw.strip().lower())
    if canonical is None:
        allowed = ", ".join(sorted(set(choices.values())))
        raise ConfigError(f"Invalid value {_shown(raw, secret)} for {key}: expected one of {allowed}.")
    return canonical
