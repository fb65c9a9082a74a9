"""Padding of the offset and partition numbers that appear in object keys.

Padded keys sort lexicographically in offset order, so a restore reads a listed prefix in order;
the rules follow the Lenses sink exactly, since the numbers are part of every key it wrote
(:func:`resolve_padding`). See docs/naming.md, "Padding".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from lakesink.domain.errors import ConfigError

DEFAULT_LENGTH = 12
DEFAULT_CHAR = "0"

LEGACY_STRATEGY_SETTING = "connect.<prefix>.padding.strategy"

#: The fields whose padding the key layout uses; any other ``padding.length.<field>`` is a typo.
PADDED_FIELDS = ("offset", "partition")

BOTH_PADDING_CONFIGS_MESSAGE = (
    "Unable to process both padding Kafka Connect config properties and KCQL properties.  "
    "Please use one or the other.  We recommend KCQL properties for additional configuration ability."
)


class PaddingType(Enum):
    """The ``padding.type`` / ``padding.strategy`` names (matched case-insensitively)."""

    LEFT_PAD = "LeftPad"
    RIGHT_PAD = "RightPad"
    NO_OP = "NoOp"

    @classmethod
    def parse(cls, setting: str, raw: str) -> PaddingType:
        """The type called ``raw``; ConfigError naming ``setting`` when there is none."""
        for member in cls:
            if member.value.lower() == raw.strip().lower():
                return member
        allowed = ", ".join(member.value for member in cls)
        raise ConfigError(f"Invalid value {raw!r} for {setting}: expected one of {allowed}.")


@dataclass(frozen=True, slots=True)
class PaddingStrategy:
    """Pads a string to ``length`` with ``char`` on one side; never truncates.

    Never truncating matters: an offset longer than the pad length must still appear whole in
    the key, or two different offsets would share one key.
    """

    type: PaddingType
    length: int = 0
    char: str = DEFAULT_CHAR

    def __post_init__(self) -> None:
        if len(self.char) != 1:
            raise ConfigError(f"Padding character must be exactly one character, got {self.char!r}.")
        if self.length < 0:
            raise ConfigError(f"Padding length must not be negative, got {self.length}.")

    def pad(self, value: str) -> str:
        """``value`` padded to at least ``length`` characters."""
        if self.type is PaddingType.LEFT_PAD:
            return value.rjust(self.length, self.char)
        if self.type is PaddingType.RIGHT_PAD:
            return value.ljust(self.length, self.char)
        return value


NO_PADDING = PaddingStrategy(PaddingType.NO_OP)


class PaddingSettings:
    """Which padding each key field gets; a field that is not listed is not padded.

    Immutable, hashable and picklable (it travels to Spark executors inside the key layout).
    """

    __slots__ = ("_strategies",)

    def __init__(self, strategies: Mapping[str, PaddingStrategy] | None = None) -> None:
        if strategies is None:
            strategies = {"offset": PaddingStrategy(PaddingType.LEFT_PAD, DEFAULT_LENGTH)}
        self._strategies: tuple[tuple[str, PaddingStrategy], ...] = tuple(sorted(strategies.items()))

    @property
    def strategies(self) -> dict[str, PaddingStrategy]:
        """A copy of the field -> strategy table."""
        return dict(self._strategies)

    def strategy_for(self, field_name: str) -> PaddingStrategy:
        """The strategy for ``field_name`` (``offset`` or ``partition``); NoOp when unlisted."""
        for name, strategy in self._strategies:
            if name == field_name:
                return strategy
        return NO_PADDING

    def pad(self, field_name: str, value: str) -> str:
        """``value`` padded as configured for ``field_name``."""
        return self.strategy_for(field_name).pad(value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PaddingSettings):
            return NotImplemented
        return self._strategies == other._strategies

    def __hash__(self) -> int:
        return hash(self._strategies)

    def __repr__(self) -> str:
        return f"PaddingSettings({self.strategies!r})"

    def __getstate__(self) -> tuple[tuple[str, PaddingStrategy], ...]:
        return self._strategies

    def __setstate__(self, state: tuple[tuple[str, PaddingStrategy], ...]) -> None:
        self._strategies = state


def resolve_padding(
    *,
    kcql_type: str | None = None,
    kcql_char: str | None = None,
    kcql_lengths: Mapping[str, int] | None = None,
    legacy_strategy: str | None = None,
    legacy_length: int | None = None,
) -> PaddingSettings:
    """Combine the KCQL ``padding.*`` PROPERTIES and the legacy connector settings like Lenses.

    Which field gets which strategy, and how the KCQL ``padding.*`` PROPERTIES and the legacy
    ``connect.<prefix>.padding.strategy`` / ``.padding.length`` settings combine, follow the Lenses sink
    exactly. Deliberate deviation: Lenses silently falls back to defaults on an unknown
    ``padding.type``, a ``padding.char`` that is not one character or a non-numeric
    ``padding.length.*``; here those are :class:`~lakesink.domain.errors.ConfigError` naming the property.

    Args:
        kcql_type: ``padding.type`` (LeftPad/RightPad/NoOp) or None when absent.
        kcql_char: ``padding.char`` or None when absent.
        kcql_lengths: the ``padding.length.<field>`` entries as field -> length; None or empty
            when there are none.
        legacy_strategy: ``connect.<prefix>.padding.strategy``; None or "" when unset.
        legacy_length: ``connect.<prefix>.padding.length``; None or negative means 12.

    Returns:
        * legacy strategy set: ``{offset: strategy(length, '0')}`` only (the partition is not
          padded even though the setting's documentation suggests it);
        * else any KCQL padding key: every field of ``padding.length.*`` (or ``{offset: 12}``
          when no length is given) gets ``padding.type`` (LeftPad) with ``padding.char`` ('0').
          Giving only ``padding.length.partition`` therefore leaves the offset unpadded, as in
          Lenses;
        * else ``{offset: LeftPad(12, '0')}``.

    Raises:
        ConfigError: both the legacy strategy and a KCQL padding key are given (Lenses' message),
            or a value is invalid (unknown type, not one character, negative length, a
            ``padding.length.<field>`` for a field other than offset/partition).
    """
    kcql_given = kcql_type is not None or kcql_char is not None or bool(kcql_lengths)
    legacy = (legacy_strategy or "").strip()
    if legacy and kcql_given:
        raise ConfigError(BOTH_PADDING_CONFIGS_MESSAGE)
    if legacy:
        padding_type = PaddingType.parse(LEGACY_STRATEGY_SETTING, legacy)
        length = DEFAULT_LENGTH if legacy_length is None or legacy_length < 0 else legacy_length
        return PaddingSettings({"offset": _strategy(padding_type, length, DEFAULT_CHAR)})
    if kcql_given:
        padding_type = (
            PaddingType.LEFT_PAD if kcql_type is None else PaddingType.parse("padding.type", kcql_type)
        )
        char = DEFAULT_CHAR if kcql_char is None else _one_char(kcql_char)
        lengths = dict(kcql_lengths) if kcql_lengths else {"offset": DEFAULT_LENGTH}
        return PaddingSettings(
            {name: _strategy(padding_type, _length(name, length), char) for name, length in lengths.items()}
        )
    return PaddingSettings()


def _strategy(padding_type: PaddingType, length: int, char: str) -> PaddingStrategy:
    if padding_type is PaddingType.NO_OP:
        return NO_PADDING
    return PaddingStrategy(padding_type, length, char)


def _one_char(raw: str) -> str:
    if len(raw) != 1:
        raise ConfigError(f"Invalid value {raw!r} for padding.char: expected exactly one character.")
    return raw


def _length(field_name: str, length: int) -> int:
    key = f"padding.length.{field_name}"
    if field_name not in PADDED_FIELDS:
        raise ConfigError(f"Unknown property {key}: only {', '.join(PADDED_FIELDS)} can be padded.")
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        raise ConfigError(f"Invalid value {length!r} for {key}: expected a non-negative integer.")
    return length
