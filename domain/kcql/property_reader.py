"""Typed, position-aware reading of a statement's PROPERTIES entries.

Lenses silently ignores unknown keys and falls back to defaults on bad values; lakesink rejects
both, and every error points at the entry at fault inside the statement.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from lakesink.domain.errors import ConfigError, KcqlError
from lakesink.domain.kcql.cursor import Cursor

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PropertyEntry:
    """One ``name=value`` entry: lower-cased name, unquoted value, and where each was written."""

    key: str
    value: str
    key_position: int
    value_position: int


class PropertyReader:
    """Looks up entries by key and converts them, turning conversion errors into KcqlErrors."""

    def __init__(self, cursor: Cursor, entries: Sequence[PropertyEntry]) -> None:
        self._cursor = cursor
        self._entries = {entry.key: entry for entry in entries}

    def has(self, key: str) -> bool:
        """True when the statement gives ``key``."""
        return key in self._entries

    def keys(self) -> list[str]:
        """The given keys in the order written."""
        return list(self._entries)

    def read(self, key: str, convert: Callable[[str, str], T]) -> T | None:
        """``convert(key, value)`` for a given key, None when absent.

        ``convert`` is one of the typed parsers of ``lakesink.domain.config.values`` (or any
        callable that raises ConfigError naming the key and value).
        """
        entry = self._entries.get(key)
        if entry is None:
            return None
        try:
            return convert(key, entry.value)
        except ConfigError as error:
            raise self._cursor.error_at(str(error), entry.value_position) from None

    def error(self, key: str, message: str) -> KcqlError:
        """A KcqlError pointing at the entry for ``key`` (or at no position if it is absent)."""
        entry = self._entries.get(key)
        return self._cursor.error_at(message, entry.key_position if entry else None)

    def reject_unknown(self, known: Iterable[str], *, clause_owner: str) -> None:
        """Fail on the first key not in ``known``, suggesting the closest valid key."""
        valid = sorted(known)
        for key in self._entries:
            if key in valid:
                continue
            close = difflib.get_close_matches(key, valid, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise self.error(
                key,
                f"unknown property '{key}' for the {clause_owner}.{hint} "
                f"Valid properties: {', '.join(valid)}.",
            )
