"""When the Confluent S3 sink rotates: its ``TopicPartitionWriter`` state machine as pure rules.

One open file per encoded partition, all rotated together; the records between two rotations
are a *cycle* (:class:`Cycle`, asked record by record). ``rotate.schedule.interval.ms`` and the
Wallclock extractor's rotations read the wall clock: they are the sink's business
(:class:`CycleEnd`), not the records'. See docs/dialects.md, "Running a Confluent config".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from lakesink.domain.flush.rolls import RollReason


class CycleEnd(Enum):
    """What happens to the records of a cycle that is still open at the end of a range.

    ``WAIT``: they are not written; the next range reads them again and completes the cycle, as
    Confluent keeps them in its open files until a rule above fires. The files are a pure
    function of the records from the last commit, so a replay writes the same objects.
    ``SEAL``: the range end rotates (every record read is written). Confluent rotates on the wall
    clock there (``rotate.schedule.interval.ms``, or ``rotate.interval.ms`` with the Wallclock
    extractor), which no replay can reproduce; lakesink seals at the end of every micro-batch
    instead (a partition enters one when ``flush.size`` records wait or the interval passed), so it
    may rotate more often than Confluent's schedule.
    """

    WAIT = "wait"
    SEAL = "seal"


@dataclass(frozen=True, slots=True)
class RotationRules:
    """The rotation settings of a Confluent config.

    Attributes:
        flush_size: ``flush.size``, records per cycle (all encoded partitions together).
        rotate_interval_ms: ``rotate.interval.ms``; -1 when off.
        time_based: the partitioner extracts a time (the TimeBased family); Confluent ignores
            ``rotate.interval.ms`` (with a WARN) for any other partitioner.
        on_partition_change: ``rotate.file.on.partition.change``.
        tombstone_partition: the encoded partition of tombstones with
            ``behavior.on.null.values=write``; None otherwise.
        cycle_end: what a range end does to an open cycle.
    """

    flush_size: int
    rotate_interval_ms: int = -1
    time_based: bool = False
    on_partition_change: bool = True
    tombstone_partition: str | None = None
    cycle_end: CycleEnd = CycleEnd.WAIT

    @property
    def periodic(self) -> bool:
        """Whether ``rotate.interval.ms`` is in force (Confluent's ``periodicRotation`` guard)."""
        return self.rotate_interval_ms > 0 and self.time_based


_MISSING = object()


@dataclass
class Cycle:
    """The state of one topic-partition's open cycle, asked record by record.

    Call :meth:`rotates_before` for a record (after :meth:`begin_record` with its time), then
    either rotate (:meth:`rotated`) and ask again, or write it and call :meth:`wrote`, which
    says whether the cycle is full.
    """

    rules: RotationRules
    count: int = 0
    base_ms: int | None = None
    last_partition: str | None = None
    """The encoded partition of the last record written (kept across rotations, as Confluent does)."""
    reason: RollReason | None = None
    """Why the last :meth:`rotates_before` that said True rotates (the metrics count it); None before."""
    _schemas: dict[str, object] = field(default_factory=dict)

    def begin_record(self, time_ms: int | None) -> None:
        """A record with extracted time ``time_ms`` (None without a time-based partitioner) comes next."""
        if self.base_ms is None:
            self.base_ms = time_ms

    def file_schema(self, encoded: str, schema: object) -> tuple[object, bool]:
        """The schema the record is checked against in ``encoded``'s file, and whether the record
        flips between a tombstone (schema None) and a value there.

        The first record of an encoded partition in the cycle sets its schema, and so does any
        record when either schema is None (Confluent's ``currentSchemas`` bookkeeping).
        """
        current = self._schemas.get(encoded, _MISSING)
        flip = current is not _MISSING and ((current is None) != (schema is None))
        if current is _MISSING or current is None or schema is None:
            self._schemas[encoded] = schema
            current = schema
        return current, flip

    def rotates_before(
        self, encoded: str, time_ms: int | None, *, flip: bool, incompatible: Callable[[], bool]
    ) -> bool:
        """Whether the cycle must rotate before a record of ``encoded`` at ``time_ms`` is written.

        ``flip`` is the record's tombstone flip (:meth:`file_schema`); ``incompatible`` gives its
        schema verdict (:mod:`.schemas`), asked only when the earlier rules keep the
        cycle (it may fail the record, as Confluent's check does at that point).

        In this order (``TopicPartitionWriter#checkRotationOrAppend``), each only when the cycle holds a
        record: the record flips between a tombstone and a value in an encoded partition that already
        has a file in this cycle; ``rotate.interval.ms`` > 0 with a time-based partitioner, and the
        record's time is at least that far past the cycle's base time (its first record's), or
        (``rotate.file.on.partition.change``, default true) its encoded partition differs from that of
        the last record written, transitions to or from the tombstone partition exempt; its value schema
        is incompatible with the file's under ``schema.compatibility``. A record that rotated is placed
        again in the new cycle, where none of these rules can fire.
        """
        if self.count <= 0:
            return False
        if flip:
            self.reason = RollReason.SCHEMA_CHANGE
        else:
            self.reason = self._time_rotation(encoded, time_ms)
            if self.reason is None and incompatible():
                self.reason = RollReason.SCHEMA_CHANGE
        return self.reason is not None

    def wrote(self, encoded: str) -> bool:
        """Count a record written to ``encoded``; True when the cycle is full (rotate after it)."""
        self.count += 1
        self.last_partition = encoded
        return self.count >= self.rules.flush_size

    def rotated(self) -> None:
        """Every file of the cycle was committed: a new cycle starts."""
        self.count = 0
        self.base_ms = None
        self._schemas.clear()

    def _time_rotation(self, encoded: str, time_ms: int | None) -> RollReason | None:
        """The time-based partitioner's rotation before the record, if any: its time is an interval
        past the cycle's base, or its encoded partition changed."""
        rules = self.rules
        if not rules.periodic:
            return None
        if (
            time_ms is not None
            and self.base_ms is not None
            and time_ms - self.base_ms >= rules.rotate_interval_ms
        ):
            return RollReason.INTERVAL
        if rules.on_partition_change and encoded != self.last_partition and not self._tombstone_move(encoded):
            return RollReason.PARTITION_VALUE
        return None

    def _tombstone_move(self, encoded: str) -> bool:
        """A move to or from the tombstone partition (exempt from partition-change rotation)."""
        tombstone = self.rules.tombstone_partition
        if tombstone is None or self.last_partition is None:
            return False
        return tombstone in encoded or tombstone in self.last_partition
