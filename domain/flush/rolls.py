"""Why a staging file was closed (rolled): counted per range, reported to the driver, shown as metrics.

A sink task rolls its files for one of these reasons; each rolled file carries its reason, and
the task's result counts them (:func:`count_rolls`) in the compact form a result row carries: one
count per reason, in the order of :class:`RollReason`. The driver adds the counts of a batch up
(:func:`add_rolls`) for the ``lakesink_files_rolled_total`` metric (docs/operations.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum


class RollReason(Enum):
    """Why a file was closed. The order is the order of the counts in a result row: append only."""

    COUNT = "count"
    """It holds ``flush.count`` records (Confluent, Aiven: ``flush.size`` records in the cycle)."""
    SIZE = "size"
    """It reached ``flush.size`` bytes."""
    INTERVAL = "interval"
    """A Confluent config's ``rotate.interval.ms`` passed in record time. Lenses' ``flush.interval``
    is applied by the driver's admission: it ends the batch, so its files count as END_OF_BATCH."""
    SCHEMA_CHANGE = "schema_change"
    """The next record's schema does not fit the file's (or, under Confluent, flips to or from a tombstone)."""
    PARTITION_VALUE = "partition_value"
    """A Confluent config rotates when the encoded partition changes (``rotate.file.on.partition.change``)."""
    END_OF_BATCH = "end_of_batch"
    """The micro-batch's range ended: every file still open (one per partition value) is rolled."""


def count_rolls(reasons: Iterable[RollReason]) -> tuple[int, ...]:
    """One count per :class:`RollReason`, in its order (what a result row carries)."""
    counts = dict.fromkeys(RollReason, 0)
    for reason in reasons:
        counts[reason] += 1
    return tuple(counts.values())


def add_rolls(rolls: Iterable[tuple[int, ...]]) -> dict[RollReason, int]:
    """The counts of several results added up, by reason (an empty tuple counts nothing)."""
    total = dict.fromkeys(RollReason, 0)
    for counts in rolls:
        for reason, count in zip(RollReason, counts, strict=False):
            total[reason] += count
    return total
