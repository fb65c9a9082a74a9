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
dense gaps that hold no record are counted, not reported.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from lakesink.domain.verify.claims import Evidence, OffsetClaim


def gaps_with_records(
    claims: Sequence[OffsetClaim],
    dense_gaps: Sequence[tuple[int, int]],
    records: Sequence[int],
    end: int,
) -> tuple[tuple[tuple[int, int], ...], int]:
    """The dense gaps' offsets that hold a record no claim covers, as ranges, and how many offsets of
    the dense gaps hold no record at all.

    Args:
        claims: the committed objects' claims (none :attr:`Evidence.UNPROVEN`).
        dense_gaps: the gaps of the dense sweep.
        records: the offsets holding a record, ascending, from below the first claim to ``end``.
        end: the last offset the check covers (the committed one).
    """
    ranks = _sweep_ranks([_rank_runs(claim, records) for claim in claims], bisect_right(records, end) - 1)
    missing = [records[rank] for first, last in ranks for rank in range(first, last + 1)]
    kept = [offset for offset in missing if any(a <= offset <= b for a, b in dense_gaps)]
    in_gaps = sum(b - a + 1 for a, b in dense_gaps)
    held = sum(bisect_right(records, b) - bisect_left(records, a) for a, b in dense_gaps)
    return _ranges(kept), in_gaps - held


def _rank_runs(claim: OffsetClaim, records: Sequence[int]) -> list[tuple[int, int]]:
    """The claim's records as runs of ranks in ``records``."""
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


def _sweep_ranks(runs: Sequence[Sequence[tuple[int, int]]], end: int) -> list[tuple[int, int]]:
    """Ranks from the lowest claimed one to ``end`` that no run covers."""
    ordered = sorted(run for claim in runs for run in claim)
    gaps: list[tuple[int, int]] = []
    covered = ordered[0][0] - 1 if ordered else end
    for first, last in ordered:
        if first > covered + 1:
            gaps.append((covered + 1, first - 1))
        covered = max(covered, last)
    if end > covered:
        gaps.append((covered + 1, end))
    return gaps


def _ranges(offsets: Sequence[int]) -> tuple[tuple[int, int], ...]:
    ranges: list[tuple[int, int]] = []
    for offset in offsets:
        if ranges and offset == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], offset)
        else:
            ranges.append((offset, offset))
    return tuple(ranges)
