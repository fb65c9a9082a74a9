"""Values a config provider supplied: shown nowhere, whatever setting they end up in.

A setting the catalog marks secret is wrapped in :class:`Secret` where it is parsed. A value
that came from ``${file:...}``, ``${dir:...}`` or ``${env:...}`` may land in any setting, typed
ones included (``connect.s3.aws.region=${env:REGION}``), so the settings also remember the
provided values themselves and mask them wherever settings are printed: error messages,
``describe()``, ``repr`` and the explain output.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TypeVar

from lakesink.domain.config.secret import MASK, Secret
from lakesink.domain.errors import ConfigError

#: Values shorter than this are masked only as whole words: a provided ``7`` must not turn the
#: ``16777216`` of another setting into ``16******216``. Longer ones are masked anywhere.
_WHOLE_WORD_BELOW = 8
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HiddenValues:
    """The keys whose values came from a config provider, and those values (as :class:`Secret`).

    Attributes:
        keys: the (normalised) keys whose value held a provider reference.
        values: their values as given and stripped, each also as ``repr`` escapes it (messages
            and ``repr`` quote values), longest first so that masking a value never leaves part of
            a longer one visible.
    """

    keys: frozenset[str] = frozenset()
    values: tuple[Secret, ...] = ()

    @classmethod
    def of(cls, props: Mapping[str, str], keys: Collection[str]) -> HiddenValues:
        """The values ``props`` holds under ``keys``."""
        given = {form for key in keys if key in props for form in (props[key], props[key].strip())}
        texts = {form for text in given for form in (text, repr(text)[1:-1]) if form}
        return cls(frozenset(keys), tuple(Secret(text) for text in sorted(texts, key=len, reverse=True)))

    def scrub(self, text: str) -> str:
        """``text`` with every occurrence of a provided value replaced by the mask (short ones: as words)."""
        for secret in self.values:
            text = _occurrences(secret.reveal()).sub(MASK, text)
        return text

    def scrub_error(self, error: ConfigError) -> ConfigError:
        """The same error, its message scrubbed (the error itself when nothing needed masking)."""
        message = str(error)
        scrubbed = self.scrub(message)
        return error if scrubbed == message else ConfigError(scrubbed)

    def mask_leaves(self, value: object) -> object:
        """A plain (JSON-like) structure with every leaf a provided value could have become masked.

        A string is masked when it contains a provided value (a short one as a word); a number or
        boolean when it spells one (``5`` for ``"5"``, ``true`` for ``"TRUE"``).
        """
        if not self.values:
            return value
        if isinstance(value, Mapping):
            return {key: self.mask_leaves(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.mask_leaves(item) for item in value]
        return MASK if self._covers(value) else value

    def _covers(self, leaf: object) -> bool:
        if isinstance(leaf, str):
            return any(_occurrences(secret.reveal()).search(leaf) for secret in self.values)
        if isinstance(leaf, bool):
            return any(secret.reveal().strip().lower() == str(leaf).lower() for secret in self.values)
        if isinstance(leaf, int | float):
            return any(_number(secret.reveal()) == leaf for secret in self.values)
        return False


def _occurrences(value: str) -> re.Pattern[str]:
    """Where ``value`` shows in a text: anywhere, or as a whole word when it is short."""
    if len(value) >= _WHOLE_WORD_BELOW:
        return re.compile(re.escape(value))
    return re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")


def _number(text: str) -> float | None:
    try:
        return float(text.strip().replace("_", ""))
    except ValueError:
        return None


class HidingSettings:
    """A mixin for settings dataclasses holding a ``hidden`` field: a ``repr`` that never shows a
    provided value or a secret, and a parse that scrubs provided values from its errors."""

    __slots__ = ()
    hidden: HiddenValues

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
            if f.name != "hidden"
        )
        return self.hidden.scrub(f"{type(self).__name__}({fields})")


def parse_hiding(
    props: Mapping[str, str], provided: Collection[str], parse: Callable[[Mapping[str, str], HiddenValues], T]
) -> T:
    """``parse(props, hidden)``, its ConfigError scrubbed of the values the ``provided`` keys hold.

    Raises:
        ConfigError: what ``parse`` raised, with every provided value masked.
    """
    hidden = HiddenValues.of(props, provided)
    try:
        return parse(props, hidden)
    except ConfigError as error:
        raise hidden.scrub_error(error) from None
