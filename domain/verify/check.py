"""The checks of one topic-partition: every offset from the first stored to the committed one
present exactly once, nothing stored beyond the committed offset but what a pending plan covers.

Pure: the application gathers the facts (claims, the master lock, the pending range plans, the
topic's watermarks) and renders the result (:func:`check_partition`). See docs/verify.md.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lakesink.domain.commit.range_plans import RangePlan, pending_plans
from lakesink.domain.verify.claims import Evidence, OffsetClaim
from lakesink.domain.verify.record_offsets import rank_runs, records_missing


@dataclass(frozen=True, slots=True)
class Overlap:
    """Offsets ``first..last`` stored in two objects (``keys``)."""

    first: int
    last: int
    keys: tuple[str, str]


@dataclass(frozen=True, slots=True)
class Beyond:
    """An object holding offsets above the committed one; ``plan`` is the pending plan covering it."""

    key: str
    first: int
    last: int
    plan: RangePlan | None = None


@dataclass(frozen=True, slots=True)
class PartitionFacts:
    """What the store and Kafka say about one topic-partition, apart from its objects.

    ``indexed``: the sink keeps an index (exactly-once); ``committed`` is then the master lock's
    offset (None: no lock yet). ``topic_start`` / ``topic_end``: the low and high watermarks, None
    when Kafka was not asked or did not answer.
    """

    topic: str
    partition: int
    bucket: str
    indexed: bool
    committed: int | None = None
    plans: tuple[RangePlan, ...] = ()
    topic_start: int | None = None
    topic_end: int | None = None
    records: tuple[int, ...] | None = None
    """The offsets holding a record, from the topic's start to the checked end, when verify read them
    (only where the dense check found gaps): offsets without one are then no gap."""


@dataclass(frozen=True, slots=True)
class PartitionCheck:
    """The findings of one topic-partition."""

    facts: PartitionFacts
    evidence: tuple[Evidence, ...]
    objects: int
    records: int
    first_stored: int | None
    last_stored: int | None
    gaps: tuple[tuple[int, int], ...]
    duplicates: tuple[Overlap, ...]
    orphans: tuple[Beyond, ...]
    pending: tuple[Beyond, ...]
    unreadable: tuple[tuple[str, str], ...] = ()
    without_records: int = 0
    """Offsets in the dense check's gaps that hold no record in Kafka (markers, aborted or compacted
    records): not gaps."""

    @property
    def lag(self) -> int | None:
        """Records in the topic not yet committed (without an index: not yet stored)."""
        return records_behind(self.facts.topic_end, checked_end(self.facts, self.last_stored))

    @property
    def problems(self) -> int:
        """Gaps, duplicates, orphans and unreadable objects: each makes ``verify`` exit 1."""
        return len(self.gaps) + len(self.duplicates) + len(self.orphans) + len(self.unreadable)


def check_partition(
    facts: PartitionFacts, claims: Iterable[OffsetClaim], unreadable: Sequence[tuple[str, str]] = ()
) -> PartitionCheck:
    """Gaps, duplicates, orphans and pending objects of one topic-partition.

    Committed objects are those whose highest offset is at or below the lock's committed offset (all
    of them without an index: an at-least-once sink has none); their runs are swept in offset order:
    an offset no run covers between the first stored and the committed offset is a *gap*, one
    covered twice a *duplicate* (both objects named). An object holding an offset above the committed
    one was uploaded by a batch that did not commit: *pending* when a pending range plan covers it
    (the next run replays that plan and re-writes or keeps exactly that object), else an *orphan*
    (the restore would read records Kafka will deliver again).
    """
    everything = sorted(claims, key=lambda claim: (claim.lowest, claim.key))
    floor = (-1 if facts.committed is None else facts.committed) if facts.indexed else None
    below = [c for c in everything if floor is None or c.highest <= floor]
    orphans, pending = _beyond(
        [c for c in everything if floor is not None and c.highest > floor],
        pending_plans(facts.plans, facts.committed),
    )
    runs = sorted((first, last, c.key) for c in below for first, last in c.runs)
    first_stored = runs[0][0] if runs else None
    last_stored = max((last for _, last, _ in runs), default=None)
    without_records = 0
    if any(c.evidence is Evidence.UNPROVEN for c in below):
        gaps, duplicates = (), ()
    elif runs:
        end = checked_end(facts, last_stored)
        gaps, duplicates = _sweep(runs, end)
        if gaps and facts.records is not None and end is not None:
            gaps, without_records = _gaps_with_records(below, gaps, facts.records, end)
    else:  # a lock with nothing stored below it: at least its own offset is missing
        gaps, duplicates = (((facts.committed, facts.committed),) if facts.committed is not None else ()), ()
    return PartitionCheck(
        facts=facts,
        evidence=tuple(sorted({c.evidence for c in everything}, key=lambda e: e.value)),
        objects=len(everything) + len(unreadable),
        records=sum(c.records for c in everything),
        first_stored=first_stored,
        last_stored=last_stored,
        gaps=gaps,
        duplicates=duplicates,
        orphans=orphans,
        pending=pending,
        unreadable=tuple(unreadable),
        without_records=without_records,
    )


def records_behind(end: int | None, done: int | None) -> int | None:
    """Records of a partition whose high watermark is ``end`` after the last offset ``done`` (None:
    nothing done yet); None when the end is unknown."""
    if end is None:
        return None
    return max(end - (-1 if done is None else done) - 1, 0)


def checked_end(facts: PartitionFacts, last_stored: int | None) -> int | None:
    """The last offset the check covers: the lock's, or without an index the last one stored."""
    return facts.committed if facts.indexed else last_stored


def _gaps_with_records(
    claims: Sequence[OffsetClaim], dense_gaps: Sequence[tuple[int, int]], records: Sequence[int], end: int
) -> tuple[tuple[tuple[int, int], ...], int]:
    """The dense gaps re-checked over record ranks (domain/verify/record_offsets.py): the gaps left, and
    how many offsets of the dense gaps hold no record."""
    ranked = sorted((first, last, claim.key) for claim in claims for first, last in rank_runs(claim, records))
    rank_gaps, _overlaps = _sweep(ranked, bisect_right(records, end) - 1)
    return records_missing(rank_gaps, dense_gaps, records)


def _sweep(
    runs: Sequence[tuple[int, int, str]], end: int | None
) -> tuple[tuple[tuple[int, int], ...], tuple[Overlap, ...]]:
    """Uncovered and twice-covered offsets of ``runs`` (sorted by first offset) up to ``end``."""
    gaps: list[tuple[int, int]] = []
    overlaps: list[Overlap] = []
    covered, holder = -1, ""
    for index, (first, last, key) in enumerate(runs):
        if index and first > covered + 1:
            gaps.append((covered + 1, first - 1))
        elif index and first <= covered:
            overlaps.append(Overlap(first, min(last, covered), (holder, key)))
        if last > covered:
            covered, holder = last, key
    if runs and end is not None and end > covered:
        gaps.append((covered + 1, end))
    return tuple(gaps), tuple(overlaps)


def _beyond(
    claims: Sequence[OffsetClaim], plans: Sequence[RangePlan]
) -> tuple[tuple[Beyond, ...], tuple[Beyond, ...]]:
    """Objects above the lock split into orphans and those a pending plan covers."""
    orphans: list[Beyond] = []
    pending: list[Beyond] = []
    for claim in claims:
        plan = next((p for p in plans if p.start <= claim.lowest and claim.highest <= p.last), None)
        found = Beyond(claim.key, claim.lowest, claim.highest, plan)
        (pending if plan is not None else orphans).append(found)
    return tuple(orphans), tuple(pending)
