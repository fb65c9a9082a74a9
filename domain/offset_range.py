"""One unit of a batch's work: offsets ``[start, end)`` of one topic-partition.

A plain value of the domain: the sink plans its batches as ranges, writes one range per task, keeps
a plan per range in its index and replays unfinished ones. Spark's data source hands a range to its
tasks wrapped in an ``InputPartition`` (:mod:`lakesink.adapters.kafka.source`); nothing here knows Spark.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OffsetRange:
    """Offsets ``[start, end)`` of ``topic``-``partition``.

    A retried task receives the same range and so reads exactly the same records.
    """

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        """Upper bound of the records in the range (gaps make the real count smaller)."""
        return self.end - self.start

    def describe(self) -> str:
        """``topic-partition[start, end)`` for logs and errors."""
        return f"{self.topic}-{self.partition}[{self.start}, {self.end})"
