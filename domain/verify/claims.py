"""Which offsets one stored object holds, and how that is known.

A key names one offset of its object (the last in Lenses' layouts, the first in the others'). With
one file open at a time per topic-partition, that offset and the record count prove the range;
with several, only the envelope's ``metadata.offset`` does; without it, nothing (``UNPROVEN``).
Ranges assume dense offsets. See docs/verify.md, "What proves an object's offsets".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum


class KeyOffset(Enum):
    """Which offset of its object a key names."""

    FIRST = "first"
    LAST = "last"


class Evidence(Enum):
    """How the offsets of an object are known (printed per topic-partition)."""

    KEY = "key"
    KEY_AND_COUNT = "key and count"
    READ = "read"
    UNPROVEN = "unproven"

    @property
    def describes(self) -> str:
        """The report's phrase for it."""
        return _PHRASES[self]


_PHRASES = {
    Evidence.KEY: "offsets proven by key (one record per object)",
    Evidence.KEY_AND_COUNT: "offsets proven by key and count",
    Evidence.READ: "offsets read from the objects' envelopes",
    Evidence.UNPROVEN: "offsets not stored (partitioned files without an envelope): orphans and keys checked only",
}


@dataclass(frozen=True, slots=True)
class OffsetClaim:
    """The offsets one object holds, as runs ``(first, last)``, inclusive, in ascending order.

    ``runs`` is empty for an :attr:`Evidence.UNPROVEN` object (or one with no records); ``bound``
    is then the key's offset, the only one known.
    """

    key: str
    evidence: Evidence
    runs: tuple[tuple[int, int], ...]
    records: int
    bound: int

    @property
    def lowest(self) -> int:
        """The lowest offset known to be in the object (the key's offset when none is proven)."""
        return self.runs[0][0] if self.runs else self.bound

    @property
    def highest(self) -> int:
        """The highest offset known to be in the object."""
        return max((last for _, last in self.runs), default=self.bound)


def key_claim(
    key: str, key_offset: int, names: KeyOffset, records: int, *, evidence: Evidence
) -> OffsetClaim:
    """The range of a file of consecutive records whose key names its first or last offset."""
    if records <= 0:
        return OffsetClaim(key, evidence, (), 0, key_offset)
    if names is KeyOffset.FIRST:
        return OffsetClaim(key, evidence, ((key_offset, key_offset + records - 1),), records, key_offset)
    # More records than offsets up to the key's: the ones below 0 cannot exist; the rest still overlap.
    return OffsetClaim(key, evidence, ((max(key_offset - records + 1, 0), key_offset),), records, key_offset)


def read_claim(key: str, key_offset: int, offsets: Sequence[int]) -> OffsetClaim:
    """The offsets read from an object, as runs; an offset stored twice in it makes two runs."""
    return OffsetClaim(key, Evidence.READ, runs_of(sorted(offsets)), len(offsets), key_offset)


def runs_of(offsets: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Ascending ``offsets`` as runs ``(first, last)`` of consecutive ones; a repeated offset starts a new run."""
    runs: list[tuple[int, int]] = []
    for offset in offsets:
        if runs and offset == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], offset)
        else:
            runs.append((offset, offset))
    return tuple(runs)


def unproven_claim(key: str, key_offset: int, records: int) -> OffsetClaim:
    """An object whose offsets are not stored: only the key's offset is known."""
    return OffsetClaim(key, Evidence.UNPROVEN, (), records, key_offset)
