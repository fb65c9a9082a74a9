"""Gaps re-checked against the offsets where Kafka holds a record.

The check of :mod:`~lakesink.domain.verify.check` assumes dense offsets: a file's key and record
count give its range, and an offset no range covers is a gap. Kafka leaves offsets without records:
a transaction's commit or abort marker, the records of an aborted transaction (a read_committed
sink skips them), records the log cleaner compacted away. Given the offsets that do hold a record
(read from the topic, as the sink reads it), the same claims are swept over *record ranks* (the
n-th record of the partition) instead of offsets: a file of ``n`` records whose key names its last
offset holds the ``n`` records up to that offset, whatever offsets lie between them.

A record compacted away *after* the sink stored it makes a file claim more records than the topic
still has, never fewer: the sweep over ranks then finds fewer gaps, not more. So a gap is kept only
where both sweeps find it (the dense one's gaps include every real one), and the offsets of the
dense gaps that hold no record are counted, not reported. :func:`rank_runs` gives the ranks a claim
holds; the check sweeps them as it sweeps offsets; :func:`records_missing` keeps what both sweeps miss.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from lakesink.domain.verify.claims import Evidence, OffsetClaim, runs_of


def rank_runs(claim: OffsetClaim, records: Sequence[int]) -> list[tuple[int, int]]:
    """The claim's records as runs of ranks in ``records`` (the offsets holding a record, ascending)."""
    if not claim.runs:
        return []
    if claim.evidence is Evidence.READ:  # the offsets themselves: those the topic still holds
        offsets = [offset for first, last in claim.runs for offset in range(first, last + 1)]
        ranks = [bisect_left(records, offset) for offset in offsets]
        return [(rank, rank) for offset, rank in zip(offsets, ranks, strict=True)
                if rank < len(records) and records[rank] == offset]
    ((first, last),) = claim.runs
    if claim.bound == last:  # the key names the last offset: the records up to it
        top = bisect_right(records, last) - 1
        return [(max(top - claim.records + 1, 0), top)]
    bottom = bisect_left(records, first)
    return [(bottom, bottom + claim.records - 1)]


def records_missing(
    rank_gaps: Sequence[tuple[int, int]], dense_gaps: Sequence[tuple[int, int]], records: Sequence[int]
) -> tuple[tuple[tuple[int, int], ...], int]:
    """The offsets of ``records`` in both the gaps of the sweep over ranks and the dense sweep's gaps
    (``dense_gaps``, ascending and apart), as runs, and how many offsets of the dense gaps hold no record."""
    starts = [first for first, _last in dense_gaps]

    def in_dense_gap(offset: int) -> bool:
        at = bisect_right(starts, offset) - 1
        return at >= 0 and offset <= dense_gaps[at][1]

    missing = [records[rank] for first, last in rank_gaps for rank in range(first, last + 1)]
    in_gaps = sum(last - first + 1 for first, last in dense_gaps)
    held = sum(bisect_right(records, last) - bisect_left(records, first) for first, last in dense_gaps)
    return runs_of([offset for offset in missing if in_dense_gap(offset)]), in_gaps - held
