"""The settings of one transform or predicate alias, read with errors that name the full key.

``transforms.<alias>.`` (or ``predicates.<alias>.``) is stripped; every read names the key the
user wrote, and :meth:`TransformOptions.check_known` turns a misspelt option into a one-line
error instead of an option silently ignored (Kafka Connect ignores unknown SMT options).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from lakesink.domain.config import values
from lakesink.domain.errors import ConfigError


@dataclass(frozen=True)
class TransformOptions:
    """The options of one alias; ``prefix`` is e.g. ``transforms.insertTs.``."""

    prefix: str
    class_name: str
    settings: Mapping[str, str] = field(default_factory=dict)

    def key(self, name: str) -> str:
        """The full key of option ``name``, for messages."""
        return self.prefix + name

    def is_set(self, name: str) -> bool:
        """Whether the option is given (an empty value counts as given, as in Connect)."""
        return name in self.settings

    def text(self, name: str, default: str | None = None) -> str | None:
        """The option's text, surrounding blanks removed; ``default`` when absent."""
        raw = self.settings.get(name)
        return default if raw is None else raw.strip()

    def raw(self, name: str, default: str | None = None) -> str | None:
        """The option's text exactly as written (patterns and replacements keep their blanks)."""
        return self.settings.get(name, default)

    def required(self, name: str) -> str:
        """A non-empty option.

        Raises:
            ConfigError: the option is missing or empty.
        """
        text = self.text(name)
        if not text:
            raise ConfigError(f"{self.key(name)} is required by {self.class_name}.")
        return text

    def integer(self, name: str, default: int, *, minimum: int | None = None) -> int:
        """An integer option."""
        raw = self.text(name)
        if raw is None or raw == "":
            return default
        return values.as_int(self.key(name), raw, minimum=minimum)

    def boolean(self, name: str, default: bool) -> bool:
        """A ``true``/``false`` option."""
        raw = self.text(name)
        if raw is None or raw == "":
            return default
        return values.as_bool(self.key(name), raw)

    def items(self, name: str) -> tuple[str, ...]:
        """A comma-separated list, entries stripped, empty entries dropped."""
        raw = self.text(name)
        if raw is None:
            return ()
        return tuple(item.strip() for item in raw.split(",") if item.strip())

    def choice(self, name: str, choices: Collection[str], default: str | None = None) -> str:
        """One of ``choices``, compared case-insensitively; returned as spelled in ``choices``.

        Raises:
            ConfigError: the value is none of them, or it is missing and there is no default.
        """
        raw = self.text(name)
        if raw is None or raw == "":
            if default is None:
                raise ConfigError(
                    f"{self.key(name)} is required by {self.class_name}: one of {', '.join(choices)}."
                )
            return default
        for choice in choices:
            if choice.lower() == raw.lower():
                return choice
        raise ConfigError(
            f"Invalid value {raw!r} for {self.key(name)}: expected one of {', '.join(choices)}."
        )

    def check_known(self, names: Collection[str]) -> None:
        """Refuse options the transform does not have (``type``, ``predicate``, ``negate`` are the chain's).

        Raises:
            ConfigError: names the first unknown option and the ones the transform has.
        """
        allowed = set(names) | {"type", "predicate", "negate"}
        unknown = sorted(name for name in self.settings if name not in allowed)
        if unknown:
            known = ", ".join(sorted(names)) or "none"
            raise ConfigError(
                f"Unknown option {self.key(unknown[0])} for {self.class_name} (its options: {known})."
            )
