"""A value that must never be printed: passwords, keys, connection strings."""

from __future__ import annotations

from typing import Final

#: What a secret shows instead of its value.
MASK: Final = "******"


class Secret:
    """Wraps a secret string; ``str``, ``repr`` and ``format`` all show a mask.

    Call :meth:`reveal` at the single place that hands the value to a client library.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The real value; only for passing to an SDK, never for logging."""
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return f"Secret({MASK!r})"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return MASK

    def __reduce__(self) -> tuple[type[Secret], tuple[str]]:
        # Spark pickles settings to ship them to executors; the value must survive that.
        return (Secret, (self._value,))
