"""Typed reads of one connector's properties, with defaults taken from the catalog.

Parsers ask for a key by its catalog name (``error.policy``); the reader adds the backend
prefix, falls back to the catalog default, and names the full key in every error. An empty
value means "not set", as Lenses' empty-string defaults do.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from enum import Enum
from typing import TypeVar

from lakesink.domain.config import values
from lakesink.domain.config.catalog import setting
from lakesink.domain.config.secret import Secret

E = TypeVar("E", bound=Enum)


class PropertyReader:
    """Reads settings of one config whose prefixed keys are already lower-cased.

    ``hidden`` names the keys whose values came from a config provider: their values never
    appear in an error message.
    """

    __slots__ = ("_props", "_prefix", "_hidden")

    def __init__(
        self, props: Mapping[str, str], prefix: str, *, hidden: Collection[str] = frozenset()
    ) -> None:
        self._props = props
        self._prefix = prefix
        self._hidden = frozenset(hidden)

    @property
    def prefix(self) -> str:
        """The backend prefix, e.g. ``connect.s3``."""
        return self._prefix

    def key(self, name: str, *, prefixed: bool = True) -> str:
        """The full key of a catalog setting, for messages."""
        return setting(name, prefixed=prefixed).full_key(self._prefix)

    def is_set(self, name: str, *, prefixed: bool = True) -> bool:
        """Whether the config gives a non-empty value (defaults do not count)."""
        raw = self._props.get(self.key(name, prefixed=prefixed))
        return raw is not None and raw.strip() != ""

    def _hides(self, name: str, prefixed: bool = True) -> bool:
        return self.key(name, prefixed=prefixed) in self._hidden

    def _raw(self, name: str, prefixed: bool) -> str | None:
        spec = setting(name, prefixed=prefixed)
        raw = self._props.get(spec.full_key(self._prefix))
        if raw is None or raw.strip() == "":
            return spec.default
        return raw

    def text(self, name: str, *, prefixed: bool = True) -> str | None:
        """A string with surrounding whitespace removed, or None when not set and no default."""
        raw = self._raw(name, prefixed)
        return None if raw is None else raw.strip()

    def secret(self, name: str) -> Secret | None:
        """A secret, kept byte for byte (no stripping); never appears in any message."""
        raw = self._props.get(self.key(name))
        return Secret(raw) if raw else None

    def integer(
        self, name: str, *, minimum: int | None = None, maximum: int | None = None, prefixed: bool = True
    ) -> int | None:
        """An integer, optionally bounded (inclusive)."""
        raw = self._raw(name, prefixed)
        if raw is None:
            return None
        return values.as_int(
            self.key(name, prefixed=prefixed),
            raw,
            minimum=minimum,
            maximum=maximum,
            secret=self._hides(name, prefixed),
        )

    def number(self, name: str, *, minimum: float | None = None) -> float | None:
        """A decimal number, optionally bounded below (inclusive)."""
        raw = self._raw(name, True)
        return (
            None
            if raw is None
            else values.as_float(self.key(name), raw, minimum=minimum, secret=self._hides(name))
        )

    def boolean(self, name: str) -> bool | None:
        """``true``/``false`` in any case."""
        raw = self._raw(name, True)
        return None if raw is None else values.as_bool(self.key(name), raw, secret=self._hides(name))

    def flag(self, name: str) -> bool:
        """A boolean that has a catalog default, so it is never None."""
        value = self.boolean(name)
        if value is None:
            raise KeyError(f"{name} has no default in the catalog")
        return value

    def choice(self, name: str, choices: Mapping[str, str]) -> str | None:
        """One of ``choices`` (lower-case spelling → canonical), case-insensitively."""
        raw = self._raw(name, True)
        return (
            None if raw is None else values.as_choice(self.key(name), raw, choices, secret=self._hides(name))
        )

    def enum(self, name: str, enum: type[E]) -> E:
        """An enum member by name or value, case-insensitively; the catalog default must exist."""
        raw = self._raw(name, True)
        if raw is None:
            raise KeyError(f"{name} has no default in the catalog")
        return values.as_enum(self.key(name), raw, enum, secret=self._hides(name))

    def items(self, name: str, *, prefixed: bool = True) -> tuple[str, ...]:
        """A comma-separated list, entries stripped, empty entries dropped."""
        raw = self._raw(name, prefixed)
        if raw is None:
            return ()
        return tuple(item.strip() for item in raw.split(",") if item.strip())
