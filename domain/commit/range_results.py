"""What one range's task tells the driver: what it made durable, or the error that stopped it.

A range is a chunk of one topic-partition's offsets in one micro-batch, written by one task on an
executor. The driver commits a partition only from these results (the highest offset any of its
chunks read) and reports the batch from them. A task that fails with a lakesink error returns the
failure as data (error class name, message, topic-partition, offset) instead of raising it through
Spark, so the driver decides on the real error, never on traceback text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lakesink.domain.dead_letters import DeadLetter
from lakesink.domain.errors import LakesinkError, error_of_kind
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.table_port import DataFile


@dataclass(frozen=True, slots=True)
class RangeFailure:
    """Why a range's task stopped: a lakesink error, by class name and message."""

    kind: str
    message: str

    @classmethod
    def of(cls, error: LakesinkError) -> RangeFailure:
        return cls(type(error).__name__, str(error))

    def error(self) -> LakesinkError:
        """The error as the task raised it (same class, same message)."""
        return error_of_kind(self.kind, self.message)


@dataclass(frozen=True, slots=True)
class RangeResult:
    """One range's outcome. ``first`` is -1 when nothing was written; ``last`` is the offset the range
    is durable through (the last offset read, or under a Confluent config the end of the last
    complete cycle), -1 when none; with a ``failure``, ``last`` is the offset the task had reached
    (the failing record's, for a record error) and nothing of the range may be committed.
    ``dead_letters`` are the poison records it skipped, kept when the sink has a dead-letter topic;
    ``rolls`` and ``requests`` are for the metrics only (why its files closed, how many store calls it made)."""

    topic: str
    partition: int
    first: int = -1
    last: int = -1
    records: int = 0
    skipped: int = 0
    poison: int = 0
    bytes: int = 0
    files: tuple[str, ...] = ()
    failure: RangeFailure | None = None
    dead_letters: tuple[DeadLetter, ...] = ()
    rolls: tuple[int, ...] = ()
    """Files rolled, one count per :class:`~lakesink.domain.flush.rolls.RollReason` (empty: none)."""
    requests: int = 0
    """Store calls the task made (plan, uploads; a multipart upload counts once)."""
    table_files: tuple[DataFile, ...] = ()
    """The objects of ``files`` with their sizes and Parquet footers, when the statement commits to a
    table (:mod:`lakesink.domain.tables`); empty otherwise."""


def first_failure(results: Iterable[RangeResult]) -> LakesinkError | None:
    """The error of the first failed range (in topic-partition, offset order), or None when all succeeded."""
    failures = [r.failure for r in sorted(results, key=lambda r: (r.topic, r.partition, r.last)) if r.failure]
    return failures[0].error() if failures else None


def commit_points(results: Iterable[RangeResult]) -> dict[TopicPartition, int]:
    """Per topic-partition, the highest offset any of its chunks is durable through: where its lock may advance to."""
    ends: dict[TopicPartition, int] = {}
    for result in results:
        if result.last >= 0:
            where = (result.topic, result.partition)
            ends[where] = max(ends.get(where, -1), result.last)
    return ends
