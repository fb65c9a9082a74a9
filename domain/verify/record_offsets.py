"""Gaps re-checked against the offsets where Kafka holds a record.

Kafka leaves offsets without records (transaction markers, aborted and compacted records), so the
claims are swept again over *record ranks* (:func:`rank_runs`), and a gap is kept only where both
sweeps find it (:func:`records_missing`). See docs/verify.md, "Limits: what verify cannot tell".
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
    (``dense_gaps``, ascending and apart), as runs, and how many offsets of the dense gaps hold no record.

    A record compacted away *after* the sink stored it makes a file claim more records than the topic
    still has, never fewer: the sweep over ranks then finds fewer gaps, not more. So a gap is kept
    only where both sweeps find it (the dense one's gaps include every real one), and the offsets of
    the dense gaps that hold no record are counted, not reported.
    """
    starts = [first for first, _last in dense_gaps]

    def in_dense_gap(offset: int) -> bool:
        at = bisect_right(starts, offset) - 1
        return at >= 0 and offset <= dense_gaps[at][1]

    missing = [records[rank] for first, last in rank_gaps for rank in range(first, last + 1)]
    in_gaps = sum(last - first + 1 for first, last in dense_gaps)
    held = sum(bisect_right(records, last) - bisect_left(records, first) for first, last in dense_gaps)
    return runs_of([offset for offset in missing if in_dense_gap(offset)]), in_gaps - held
