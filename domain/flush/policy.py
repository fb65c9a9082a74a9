"""When an open file must be flushed (rolled and uploaded): the Lenses commit policy.

A file flushes as soon as it has ``count`` records, reached ``size_bytes``, or ``interval_ms``
elapsed since the writer's last flush (else creation). Count and size depend only on the records,
which keeps file boundaries deterministic across a retried task. :func:`flush_reason` is the rule,
written once for one file and for a partition's waiting records (:mod:`.admission`).
See docs/commit-model.md, "Flush policy".
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format

DEFAULT_FLUSH_COUNT = 50_000
DEFAULT_FLUSH_SIZE_BYTES = 500_000_000
DEFAULT_FLUSH_INTERVAL_S = 3_600


class FlushReason(Enum):
    """Why a file was flushed by the policy (a schema change rolls a file too:
    :mod:`.declared_schemas` decides that one)."""

    COUNT = "count"
    SIZE = "size"
    INTERVAL = "interval"


def flush_reason(
    records: int,
    elapsed_ms: int,
    *,
    count: int | None,
    interval_ms: int | None,
    size_reached: bool = False,
) -> FlushReason | None:
    """The flush rule: the first condition that holds for ``records`` waiting, or None.

    ``count`` records are enough (COUNT); a reached size (SIZE, for a file only: the caller
    knows its bytes); ``interval_ms`` passed since the interval started, ``elapsed_ms`` ago
    (INTERVAL). A None threshold is off. Nothing waiting never flushes: there is nothing to
    upload. The conditions are checked in this order, so COUNT is reported before SIZE, SIZE
    before INTERVAL.
    """
    if records <= 0:
        return None
    if count is not None and records >= count:
        return FlushReason.COUNT
    if size_reached:
        return FlushReason.SIZE
    if interval_ms is not None and elapsed_ms >= interval_ms:
        return FlushReason.INTERVAL
    return None


@dataclass(frozen=True, slots=True)
class FileStats:
    """What the flush policy needs to know about one open file.

    Attributes:
        record_count: records written into the current file.
        bytes_written: the format writer's byte position after the last write.
        created_ms: when the writer was created (epoch millis).
        last_flush_ms: when the writer last flushed, or None if it never did.
    """

    record_count: int
    bytes_written: int
    created_ms: int
    last_flush_ms: int | None = None

    @property
    def interval_start_ms(self) -> int:
        """The instant the interval is measured from: last flush, else creation (Lenses' rule)."""
        return self.created_ms if self.last_flush_ms is None else self.last_flush_ms


@dataclass(frozen=True, slots=True)
class FileRoom:
    """What an open file takes before count or size flushes it (:meth:`FlushPolicy.room`).

    Attributes:
        records: records it takes, the last one included; None without a count condition.
        bytes: bytes after which it flushes (the record that reaches them is the last).
    """

    records: int | None
    bytes: int


@dataclass(frozen=True, slots=True)
class FlushPolicy:
    """The three flush thresholds of one KCQL statement.

    ``count`` is None when ``disable.flush.count`` removed the record-count condition.
    """

    count: int | None = DEFAULT_FLUSH_COUNT
    size_bytes: int = DEFAULT_FLUSH_SIZE_BYTES
    interval_ms: int = DEFAULT_FLUSH_INTERVAL_S * 1000

    def __post_init__(self) -> None:
        if self.count is not None and self.count < 1:
            raise ConfigError(f"Invalid value {self.count} for flush.count: must be at least 1.")
        if self.size_bytes < 1:
            raise ConfigError(f"Invalid value {self.size_bytes} for flush.size: must be at least 1.")
        if self.interval_ms < 1:
            raise ConfigError(f"Invalid value {self.interval_ms} ms for flush.interval: must be positive.")

    @classmethod
    def create(
        cls,
        *,
        flush_count: int | None,
        flush_size: int | None,
        flush_interval_s: int | None,
        disable_flush_count: bool,
        format: Format,
    ) -> FlushPolicy:
        """Build the policy from the KCQL PROPERTIES, applying Lenses' defaults.

        None means "not set" and takes the default. ``disable_flush_count`` drops the count
        condition entirely. BYTES stores one record per object, so its count is always 1
        (Lenses rejects any other count for BYTES; lakesink simply enforces the only valid one).
        Values that are set must be positive: Lenses silently replaces them with the default,
        lakesink reports the key instead.
        """
        if flush_interval_s is not None and flush_interval_s < 1:
            raise ConfigError(f"Invalid value {flush_interval_s} for flush.interval: must be at least 1.")
        if format is Format.BYTES:
            count: int | None = 1
        elif disable_flush_count:
            count = None
        else:
            count = DEFAULT_FLUSH_COUNT if flush_count is None else flush_count
        return cls(
            count=count,
            size_bytes=DEFAULT_FLUSH_SIZE_BYTES if flush_size is None else flush_size,
            interval_ms=(DEFAULT_FLUSH_INTERVAL_S if flush_interval_s is None else flush_interval_s) * 1000,
        )

    def reason(self, stats: FileStats, now_ms: int) -> FlushReason | None:
        """The first condition that says the file must flush now, or None.

        A file without records never flushes: there is nothing to upload.
        """
        return flush_reason(
            stats.record_count,
            now_ms - stats.interval_start_ms,
            count=self.count,
            interval_ms=self.interval_ms,
            size_reached=stats.bytes_written >= self.size_bytes,
        )

    def room(self, stats: FileStats) -> FileRoom:
        """How many more records and bytes the open file takes before count or size flushes it.

        The executors' writers ask once per file instead of calling :meth:`reason` after every
        record (building the stats cost about a microsecond a record): the file flushes right
        after the record that brings the records added to ``room.records`` or the bytes added to
        ``room.bytes`` (the interval is left out, as the driver's admission applies it).
        """
        records = None if self.count is None else self.count - stats.record_count
        return FileRoom(records, self.size_bytes - stats.bytes_written)

    def records_before_flush(self, stats: FileStats, cumulative_bytes: Sequence[int]) -> int | None:
        """How many of the next records the open file takes before count or size flushes it.

        ``cumulative_bytes[i]`` is how many bytes records ``0..i`` add to the file. This is
        :meth:`reason` (interval left out, as the executors apply it) asked after each record,
        answered for a whole slice at once: the file flushes right after record ``n - 1`` where
        ``n`` is returned, or None when none of the records fills it. ``cumulative_bytes`` must
        be non-decreasing (sizes are never negative).
        """
        room = self.room(stats)
        candidates = [bisect_left(cumulative_bytes, room.bytes)]
        if room.records is not None:
            candidates.append(max(room.records - 1, 0))
        first = min(candidates)
        return first + 1 if first < len(cumulative_bytes) else None
