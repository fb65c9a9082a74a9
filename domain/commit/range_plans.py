"""Range plans: lakesink's exactly-once step between "records read" and "objects written".

Before a task uploads a range's files it records the range create-only (``start``, ``last``).
File boundaries depend only on the records and ``start``, so attempts of one plan upload identical
objects, and one that planned the same start with another ``last`` stops before uploading
(:func:`check_existing_plan`). See docs/commit-model.md, "Range plans of a split range".
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from lakesink.domain.errors import CommitConflictError, CommitError, PlanChangedError

_PLANS = ".plans"
_SUFFIX = ".json"
_OFFSET_DIGITS = 20


@dataclass(frozen=True, slots=True)
class RangePlan:
    """One planned range: the run that planned it, its first written offset and its last offset."""

    owner: str
    start: int
    last: int
    clock_ms: int | None = None
    """The batch clock wall-clock transforms read (None when no transform reads one)."""
    objects: tuple[tuple[str, str], ...] | None = None
    """The ``(bucket, key)`` of every object the range uploads; None: not recorded (no roll-back)."""

    def __post_init__(self) -> None:
        if self.start < 0 or self.last < self.start:
            raise CommitError(f"Invalid batch plan: start {self.start} and last {self.last}.")


def plans_root(indexes_name: str, connector: str) -> str:
    """The folder holding every plan of one sink."""
    return f"{indexes_name}/{connector}/{_PLANS}/"


def plans_prefix(indexes_name: str, connector: str, topic: str, partition: int) -> str:
    """The folder holding the plans of one topic-partition (listed on start-up and for GC)."""
    return f"{indexes_name}/{connector}/{_PLANS}/Topic({topic})/{partition}/"


def plan_key(indexes_name: str, connector: str, topic: str, partition: int, start: int) -> str:
    """``<indexes>/<connector>/.plans/Topic(<topic>)/<partition>/<start %020d>.json``.

    Zero-padded so that a listing returns the plans of a partition in offset order.
    """
    return plans_prefix(indexes_name, connector, topic, partition) + f"{start:0{_OFFSET_DIGITS}d}{_SUFFIX}"


def plan_start_of_key(key: str) -> int | None:
    """The start offset encoded in a plan key, or None for any other object under the folder."""
    name = key.rsplit("/", 1)[-1]
    digits = name[: -len(_SUFFIX)] if name.endswith(_SUFFIX) else ""
    if len(digits) != _OFFSET_DIGITS or not digits.isascii() or not digits.isdigit():
        return None
    return int(digits)


def encode_plan(plan: RangePlan) -> bytes:
    """The compact JSON body of a plan object (stable key order, so equal plans are equal bytes)."""
    document: dict[str, object] = {"owner": plan.owner, "start": plan.start, "last": plan.last}
    if plan.clock_ms is not None:
        document["clock"] = plan.clock_ms
    if plan.objects is not None:
        document["objects"] = [list(pair) for pair in plan.objects]
    return json.dumps(document, separators=(",", ":")).encode("utf-8")


def decode_plan(data: bytes, *, key: str) -> RangePlan:
    """Parse a plan object.

    Raises:
        CommitError: not a plan document (the message names ``key``).
    """
    try:
        doc = json.loads(data.decode("utf-8"))
        owner, start, last, clock = doc["owner"], doc["start"], doc["last"], doc.get("clock")
        listed = doc.get("objects")
        objects = None if listed is None else tuple((bucket, name) for bucket, name in listed)
    except (UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise CommitError(f"Malformed batch plan {key}: {exc}.") from None
    numbers = (start, last) if clock is None else (start, last, clock)
    if not isinstance(owner, str) or not all(isinstance(v, int) and not isinstance(v, bool) for v in numbers):
        raise CommitError(f"Malformed batch plan {key}: owner must be a string, start/last/clock integers.")
    if objects is not None and not all(isinstance(part, str) for pair in objects for part in pair):
        raise CommitError(f"Malformed batch plan {key}: objects must be [bucket, key] string pairs.")
    return RangePlan(owner, start, last, clock, objects)


def check_existing_plan(existing: RangePlan, wanted: RangePlan, *, where: str) -> None:
    """Whether a task may continue when its plan object already exists.

    Same ``last`` and batch clock: a retry or restart of the same plan — its uploads are the same
    objects.

    Raises:
        CommitConflictError: another run planned this start with a different range (uploading
            would write differently cut files holding the same records), or at another batch clock
            (wall-clock transforms would put the same records under other keys).
    """
    if existing.start != wanted.start or existing.last != wanted.last:
        raise CommitConflictError(
            f"Batch plan {where} already exists for offsets {existing.start}..{existing.last} "
            f"(run {existing.owner}); this run planned {wanted.start}..{wanted.last}. Another sink with "
            "the same name is running, or the index was edited by hand: stopping before any upload."
        )
    if existing.objects is not None and wanted.objects is not None and set(existing.objects) != set(wanted.objects):
        raise PlanChangedError(
            f"Batch plan {where} (run {existing.owner}) was written for other objects than this run cut from the "
            f"same offsets {existing.start}..{existing.last}: the records changed since (a transformation that is "
            "not deterministic, or a lookup that changed)."
        )
    if existing.clock_ms != wanted.clock_ms:
        raise CommitConflictError(
            f"Batch plan {where} was written at batch clock {existing.clock_ms} (run {existing.owner}); this run "
            f"replays it at {wanted.clock_ms}, which would key its objects differently: stopping before any upload."
        )


def pending_plans(plans: Iterable[RangePlan], committed_offset: int | None) -> tuple[RangePlan, ...]:
    """The plans a restart must reproduce: those above the committed offset, by start.

    Their records were (maybe partly) uploaded but never committed.
    """
    floor = -1 if committed_offset is None else committed_offset
    return tuple(sorted((plan for plan in plans if plan.start > floor), key=lambda plan: plan.start))


def replay_chunks(plans: Iterable[RangePlan]) -> tuple[tuple[int, int], ...]:
    """The chunks the replayed batch must contain: ``[start, last + 1)`` of each plan.

    A chunk reproduces a plan only if it writes the same records (so it begins at ``start``: any
    record below it in the original chunk was skipped, and is skipped in the chunk before) and
    sees the same last offset (so it ends right after ``last``: a longer chunk would put more
    records in its last file and record another ``last``, a conflict; a shorter one, fewer).
    """
    return tuple(sorted((plan.start, plan.last + 1) for plan in plans))


def replay_end(plans: Iterable[RangePlan]) -> int | None:
    """Where a replayed batch planned afresh ends: right after the highest ``last``; None without plans."""
    return max((plan.last + 1 for plan in plans), default=None)


def replay_clock(plans: Iterable[RangePlan]) -> int | None:
    """The batch clock a replayed batch must read: the one its pending plans recorded (None: none did).

    A command run's pending plans all belong to the one batch that uploaded without committing, so
    they agree; a DataFrame's batch may hold plans of several crashed runs, and keeps those of one
    clock (:func:`other_clocks`).
    """
    return max((plan.clock_ms for plan in plans if plan.clock_ms is not None), default=None)


def obsolete_plan_starts(starts: Iterable[int], committed_offset: int) -> tuple[int, ...]:
    """Plan starts at or below the committed offset: their ranges are durable, the plans garbage."""
    return tuple(sorted(start for start in starts if start <= committed_offset))


def unreproducible(plans: Iterable[RangePlan], start: int, end: int) -> tuple[RangePlan, ...]:
    """The plans a batch range ``[start, end)`` overlaps without holding their whole chunk.

    Such a range cannot write the plan's chunk as it was cut (it would record another range under
    the plan's start, a conflict), so the plan must be rolled back before the range is written.
    A plan the range does not reach is left for a later batch.
    """
    return tuple(
        plan for plan in plans if plan.start < end and plan.last >= start and (plan.start < start or plan.last >= end)
    )


def within(plans: Iterable[RangePlan], start: int, end: int) -> tuple[RangePlan, ...]:
    """The plans whose whole chunk ``[start, last + 1)`` lies in ``[start, end)``: those a range reproduces."""
    return tuple(plan for plan in plans if start <= plan.start and plan.last < end)


def other_clocks(plans: Iterable[RangePlan]) -> tuple[RangePlan, ...]:
    """The plans one batch cannot reproduce beside the rest: those recorded at another batch clock
    than the latest (plans of an earlier crashed run, met in the same batch as a later run's)."""
    plans = tuple(plans)
    clock = replay_clock(plans)
    return tuple(plan for plan in plans if plan.clock_ms is not None and plan.clock_ms != clock)
