"""The shape of one catalog entry: what a connector-level key means and how lakesink treats it.

Keeping kind, type, default, scope and doc in one record lets the parser, the unknown-key
check and the generated reference (docs/configuration.md) all read the same facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fnmatch import fnmatchcase


class Kind(Enum):
    """How lakesink treats a key."""

    SETTING = "setting"  # parsed into a typed field
    PASSTHROUGH = "pass-through"  # a family handed on as a map (converters, Kafka client)
    IGNORED = "ignored"  # accepted for Kafka Connect compatibility, has no effect
    NOT_YET = "default only"  # not implemented yet: accepted at its default value, any other value is an error
    DEPRECATED = "deprecated"  # an old Lenses name: an error naming its replacement
    PROVIDER = "config provider"  # declares a config provider; read before the settings are parsed


class ValueType(Enum):
    """The value syntax a key accepts."""

    STRING = "string"
    INT = "int"
    LONG = "long"
    DOUBLE = "double"
    BOOLEAN = "boolean"
    PASSWORD = "password"
    LIST = "list"  # comma-separated
    CLASS = "class"  # a Java class name, kept as text
    ANY = "any"


class Scope(Enum):
    """Which role a key applies to: the sink (Kafka → storage), the source (restore), or both."""

    SINK = "sink"
    SOURCE = "source"
    BOTH = "both"

    def allows(self, role: str) -> bool:
        """True if a key of this scope may appear in a config for ``role`` (``sink``/``source``)."""
        return self is Scope.BOTH or self.value == role


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One key (or key family) lakesink knows.

    Attributes:
        name: the key; for ``prefixed`` keys the part after the backend prefix
            (``error.policy`` → ``connect.s3.error.policy``). A trailing ``*`` makes it a family
            (``key.converter.*``, ``transforms*``).
        type: value syntax.
        default: the default as it would be written in a config file, or None for "not set".
        doc: one line for the reference.
        scope: the role(s) the key applies to.
        prefixed: whether the key lives under ``connect.<backend>.``.
        secret: whether values are wrapped in :class:`Secret` and masked everywhere.
        kind: how lakesink treats it.
        backends: backend names the key exists for (None = every backend).
        replacement: for deprecated keys, the key to use instead (same prefixing as ``name``).
    """

    name: str
    type: ValueType
    default: str | None
    doc: str
    scope: Scope = Scope.BOTH
    prefixed: bool = True
    secret: bool = False
    kind: Kind = Kind.SETTING
    backends: frozenset[str] | None = None
    replacement: str | None = None

    @property
    def is_family(self) -> bool:
        """A family entry matches many keys (``consumer.*``)."""
        return self.name.endswith("*")

    def matches(self, name: str) -> bool:
        """Whether ``name`` (without the backend prefix when ``prefixed``) is this key."""
        return fnmatchcase(name, self.name) if self.is_family else name == self.name

    def applies_to(self, backend: str) -> bool:
        """Whether the key exists for ``backend``."""
        return self.backends is None or backend in self.backends

    def full_key(self, prefix: str) -> str:
        """The key as written in a config, e.g. ``connect.s3.error.policy``."""
        return f"{prefix}.{self.name}" if self.prefixed else self.name
