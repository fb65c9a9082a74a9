"""Progress records: how far each origin partition has been restored.

One record per committed chunk, keyed by the origin, in the same Kafka transaction as the chunk's
records; ``line`` counts the object's records delivered, ``complete`` is true once the last is
in. One progress partition (:func:`progress_partition`) and one transactional id
(:func:`transactional_id`) per origin. See docs/restore.md, "Delivery guarantees".
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

from lakesink.domain.errors import FormatError
from lakesink.domain.restore.index import IndexEntry


@dataclass(frozen=True, slots=True)
class Progress:
    """The last committed point of one origin.

    The record's value (JSON)::

        {"key": "<object key>", "offset": <offset in the key or -1>, "line": <records done>, "complete": true|false}

    ``line`` counts the object's records already delivered (Lenses' source offset ``line`` is the
    same idea, 0-based); ``complete`` is true once the object's last record is in. Keyed by the
    origin, so a compacted topic keeps the last one; in the chunk's transaction, so the records
    and the progress become visible together or not at all.
    """

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


def already_restored(done: tuple[int, str] | None, entry: IndexEntry) -> bool:
    """Whether ``entry`` lies at or before ``done``, the last position this run restored of its origin."""
    return done is not None and entry.position <= done


def progress_partition(origin: str, partitions: int) -> int:
    """The progress partition of an origin."""
    return zlib.crc32(origin.encode("utf-8")) % partitions


def transactional_id(restore_name: str, origin: str) -> str:
    """One transactional id per (restore, origin): re-initialising it fences an older run's producer."""
    return f"lakesink-restore-{restore_name}-{zlib.crc32(origin.encode('utf-8')):08x}"
