"""The Single Message Transform chain: steps applied in order to each record, as Kafka Connect does.

Connect runs a sink's transforms after the converters and before the sink sees the record; a
step whose predicate does not match (or matches, with ``negate``) passes the record on
unchanged, and a step that returns None drops the record (``Filter``), ending the chain for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from lakesink.domain.errors import RecordError
from lakesink.domain.records import Record

if TYPE_CHECKING:
    from lakesink.domain.ports import Clock
    from lakesink.domain.transforms.options import TransformOptions


@dataclass(frozen=True)
class BatchClock:
    """The one time every wall-clock transform of a batch reads: when the batch was planned.

    Reading it instead of the system clock makes a batch's object keys a function of its records
    and this time, which the batch's range plans record, so a retry or a restart writes the very
    same keys (:mod:`lakesink.domain.commit.range_plans`).
    """

    ms: int

    def now_ms(self) -> int:
        return self.ms


class Transform(Protocol):
    """One configured Single Message Transform.

    ``reads_wall_clock`` is True for transforms whose output depends on the time they run
    (their object keys are then not a function of the records alone); ``routes`` is True for
    transforms that may change a record's topic.
    """

    reads_wall_clock: bool
    routes: bool

    def apply(self, record: Record) -> Record | None:
        """The transformed record, or None to drop it.

        Raises:
            RecordError: the transform cannot apply to this record (the message says why).
        """
        ...


class Predicate(Protocol):
    """A Kafka Connect predicate: decides whether a step applies to a record."""

    def test(self, record: Record) -> bool:
        """Whether the record matches."""
        ...


@dataclass(frozen=True)
class Step:
    """A transform under its alias, with the predicate that guards it (if any)."""

    alias: str
    class_name: str
    transform: Transform
    predicate: Predicate | None = None
    negate: bool = False

    def applies_to(self, record: Record) -> bool:
        """Whether the transform runs for ``record`` (Connect: ``predicate.test(record) != negate``)."""
        return self.predicate is None or self.predicate.test(record) != self.negate

    def run(self, record: Record) -> Record | None:
        """The transform's result for ``record``.

        Raises:
            RecordError: the transform cannot apply; the message names this step.
        """
        try:
            return self.transform.apply(record)
        except RecordError as error:
            raise RecordError(f"transform {self.alias!r} ({self.class_name}): {error}") from error


@dataclass(frozen=True)
class TransformChain:
    """The transforms of ``transforms=``, in the order listed."""

    steps: tuple[Step, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.steps)

    @property
    def reads_wall_clock(self) -> tuple[str, ...]:
        """The aliases of steps whose output depends on the time they run."""
        return tuple(step.alias for step in self.steps if step.transform.reads_wall_clock)

    def trace(self, record: Record) -> Iterator[TraceStep]:
        """Each step's effect on ``record``, in order, up to the step that drops it (``kcql explain``).

        Raises:
            RecordError: as :meth:`apply`.
        """
        current = record
        for step in self.steps:
            if not step.applies_to(current):
                yield TraceStep(step, False, current)
                continue
            result = step.run(current)
            yield TraceStep(step, True, result)
            if result is None:
                return
            current = result

    def wall_clock_note(self) -> str:
        """What wall-clock transforms do to object keys, and why no offset is lost or doubled anyway."""
        aliases = ", ".join(self.reads_wall_clock)
        return (
            f"Transforms {aliases} read the wall clock: object keys that use their output depend on when a "
            "batch was planned (a record read at 10:59:59 may land under 11), not on the record. Every offset "
            "is still stored exactly once: a batch reads one clock, its range plans record it, and a retry or "
            "restart writes the batch again at the recorded time, so under the same keys; the plan and the "
            "index lock decide what is written (docs/transforms.md)."
        )

    @property
    def routes(self) -> bool:
        """Whether some step may change a record's topic."""
        return any(step.transform.routes for step in self.steps)

    def apply(self, record: Record) -> Record | None:
        """``record`` after every step that applies to it; None when a step dropped it.

        Raises:
            RecordError: a step cannot apply to the record; names the step (the caller names the record).
        """
        current: Record | None = record
        for step in self.steps:
            if current is None:
                return None
            if step.applies_to(current):
                current = step.run(current)
        return current


TransformFactory = Callable[["TransformOptions", "Clock"], Transform]
"""Builds a configured transform from its options; raises ConfigError naming the option at fault."""
PredicateFactory = Callable[["TransformOptions"], Predicate]
"""Builds a configured predicate from its options."""


@dataclass(frozen=True)
class TraceStep:
    """One step of :meth:`TransformChain.trace`: whether it ran and the record it left (None: dropped)."""

    step: Step
    applied: bool
    record: Record | None
