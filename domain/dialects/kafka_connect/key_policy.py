"""How lakesink treats each key of a Kafka Connect connector's config: one table per connector.

Kafka Connect ignores keys a connector does not define, so a typo quietly falls back to a
default; lakesink puts every key in exactly one class (:class:`KeyPolicy`). One class serves both
connectors: their tables differ in keys, not in rules. See docs/dialects.md, "Keys".
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from lakesink.domain.config.framework_keys import framework_no_effect
from lakesink.domain.config.key_check import did_you_mean
from lakesink.domain.config.providers import is_provider_key
from lakesink.domain.config.secret import MASK
from lakesink.domain.dialects.kafka_connect.config_def import string_setting
from lakesink.domain.errors import ConfigError

USED = "used"
HELD = "held"
NO_EFFECT = "no effect"
DEFAULT_ONLY = "default only"
REJECTED = "rejected"

#: Key families every Kafka Connect sink reads: converter settings, transforms and predicates, and
#: the Kafka client's settings.
CONNECT_PREFIXES = (
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "transforms.",
    "predicates.",
    "consumer.",
    "sasl.",
    "ssl.",
)


@dataclass(frozen=True, slots=True)
class Bound:
    """A range the connector's ``ConfigDef`` puts on a key that has no effect here, so that a config the
    connector refuses is refused: ``read`` is the key's ConfigDef type (INT or LONG)."""

    read: Callable[[Mapping[str, str], str, int], int]
    default: int
    low: int
    high: int | None = None
    below: str | None = None
    """The connector's own words for a value under ``low`` (Kafka's ``ConfigDef.Range`` words otherwise)."""
    above: str | None = None


@dataclass(frozen=True, slots=True)
class KeyPolicy:
    """The key table of one connector: every key in exactly one class.

    **used**: parsed into the dialect's typed config (a deprecated spelling counts as its key);
    **held**: validated and kept for the run (Kafka Connect's ``errors.*`` handling); **no
    effect**: accepted because it only tunes how the connector's Java code does its work; **default
    only**: a feature lakesink's stores do not have yet, accepted at the connector's default;
    **rejected**: a key that would not do what users expect, refused with what to do instead;
    anything else is an error naming the key, with a "did you mean" hint.
    """

    connector: str
    """How the unknown-key error names the connector: ``Unknown <connector> setting k``."""
    used: frozenset[str]
    used_prefixes: tuple[str, ...]
    no_effect: Mapping[str, str]
    """Key → why it has no effect here."""
    default_only: Mapping[str, tuple[str, str]]
    """Key → (the connector's default, why only that is accepted)."""
    secret_keys: frozenset[str]
    legacy: Mapping[str, str] = field(default_factory=dict)
    """A deprecated spelling → the key it stands for."""
    held: frozenset[str] = frozenset()
    held_prefixes: tuple[str, ...] = ("errors.",)
    no_effect_prefixes: tuple[str, ...] = ()
    """Key families without effect (a ``default_only`` key among them keeps its own class)."""
    rejected: Mapping[str, str] = field(default_factory=dict)
    """Key → what to do instead."""
    rejected_prefixes: Mapping[str, str] = field(default_factory=dict)
    default_aliases: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Other spellings of a default-only key's default."""
    defaults_ignore_case: bool = False
    """Whether a default-only value is compared with its default ignoring case (Confluent's ConfigDef)."""
    empty_means_default: bool = False
    """Whether an empty default-only value counts as unset (Aiven's ConfigDef)."""
    bounds: Mapping[str, Bound] = field(default_factory=dict)

    @property
    def known_keys(self) -> list[str]:
        """The exact key names a "did you mean" hint suggests (never a deprecated spelling)."""
        return sorted({*self.used, *self.held, *self.no_effect, *self.default_only})

    def key_class(self, key: str) -> str | None:
        """:data:`USED`, :data:`HELD`, :data:`NO_EFFECT`, :data:`DEFAULT_ONLY`, :data:`REJECTED`, or None
        for a key the connector does not define."""
        if framework_no_effect(key) is not None:
            return NO_EFFECT
        if key in self.used or key in self.legacy or key.startswith(self.used_prefixes) or is_provider_key(key):
            return USED
        if key in self.held or key.startswith(self.held_prefixes):
            return HELD
        if key in self.no_effect:
            return NO_EFFECT
        if key in self.default_only:
            return DEFAULT_ONLY
        if key.startswith(self.no_effect_prefixes):
            return NO_EFFECT
        if key in self.rejected or key.startswith(tuple(self.rejected_prefixes)):
            return REJECTED
        return None

    def note(self, key: str) -> str | None:
        """Why ``key`` has no effect, or which default alone is accepted; None for any other key."""
        kind = self.key_class(key)
        if kind == NO_EFFECT:
            return f"no effect in lakesink: {self.no_effect.get(key, 'a tuning key of the connector the config was written for')}"
        if kind == DEFAULT_ONLY:
            default, why = self.default_only[key]
            return f"only its default {default!r} is accepted: {why}"
        return None

    def check_keys(self, props: Mapping[str, str], provided: Collection[str]) -> None:
        """Refuse the first key (in name order) that is unknown, rejected or away from its only accepted default.

        Raises:
            ConfigError: naming the key; a secret's or provided value is masked.
        """
        for key in sorted(props):
            kind = self.key_class(key)
            if kind is None:
                raise ConfigError(f"Unknown {self.connector} setting {key}{did_you_mean(key, self.known_keys, cutoff=0.7)}.")
            if kind == REJECTED:
                why = self.rejected.get(key) or next(v for p, v in self.rejected_prefixes.items() if key.startswith(p))
                raise ConfigError(f"{key} is not supported: {why}.")
            if kind != DEFAULT_ONLY:
                continue
            default, why = self.default_only[key]
            value = string_setting(props, key, default)
            if not self._at_default(key, value):
                shown = MASK if key in self.secret_keys or key in provided else repr(value)
                accepted = f"its default {default!r}" if default else "no value"
                raise ConfigError(f"{key}={shown} is not supported yet: {why}; only {accepted} is accepted.")

    def _at_default(self, key: str, value: str) -> bool:
        default = self.default_only[key][0]
        if self.empty_means_default and not value:
            return True
        if self.defaults_ignore_case:
            return value.lower() == default.lower()
        return value == default or value in self.default_aliases.get(key, ())

    def check_bounds(self, props: Mapping[str, str]) -> None:
        """The connector's ranges on keys that have no effect (or only their default) here.

        Raises:
            ConfigError: naming the key, in Kafka's ``ConfigDef.Range`` words (or the connector's).
        """
        for key, bound in self.bounds.items():
            value = bound.read(props, key, bound.default)
            if value < bound.low:
                raise ConfigError(f"Invalid value {value} for configuration {key}: "
                                  f"{bound.below or f'Value must be at least {bound.low}'}")
            if bound.high is not None and value > bound.high:
                raise ConfigError(f"Invalid value {value} for configuration {key}: "
                                  f"{bound.above or f'Value must be no more than {bound.high}'}")
