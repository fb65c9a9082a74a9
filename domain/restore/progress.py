"""Progress records: how far each origin partition has been restored.

One record per committed chunk, keyed by the origin (so a compacted topic keeps the last one),
produced in the same Kafka transaction as the chunk's records: the records and the progress
become visible together or not at all. Value (JSON)::

    {"key": "<object key>", "offset": <offset in the key or -1>, "line": <records done>, "complete": true|false}

``line`` counts the object's records already delivered (Lenses' source offset ``line`` is the
same idea, 0-based); ``complete`` is true once the object's last record is in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from lakesink.domain.errors import FormatError
from lakesink.domain.restore.index import IndexEntry


@dataclass(frozen=True, slots=True)
class Progress:
    """The last committed point of one origin."""

    key: str
    offset: int
    line: int
    complete: bool

    @property
    def position(self) -> tuple[int, str]:
        return (self.offset, self.key)

    def encode(self) -> bytes:
        return json.dumps(
            {"key": self.key, "offset": self.offset, "line": self.line, "complete": self.complete},
            separators=(",", ":"),
        ).encode("utf-8")

    @classmethod
    def decode(cls, data: bytes) -> Progress:
        """Raises FormatError for a value that is not a progress record."""
        try:
            raw = json.loads(data)
            return cls(str(raw["key"]), int(raw["offset"]), int(raw["line"]), bool(raw["complete"]))
        except (ValueError, KeyError, TypeError) as error:
            raise FormatError(f"Not a restore progress record: {data[:200]!r} ({error})") from None

    @classmethod
    def of(cls, entry: IndexEntry, *, line: int, complete: bool) -> Progress:
        return cls(entry.key, entry.position[0], line, complete)


def records_to_skip(progress: Progress | None, entry: IndexEntry) -> int | None:
    """How many leading records of ``entry`` were already delivered; None = the whole object was."""
    if progress is None or entry.position > progress.position:
        return 0
    if entry.position < progress.position or progress.complete:
        return None
    return progress.line
