"""Which partitions enter the next micro-batch: the flush rule applied on the driver.

Executors see only one batch's records, so the driver admits a partition's waiting records when
:func:`~lakesink.domain.flush.policy.flush_reason` says so; the others stay in Kafka. The state
lives in :class:`AdmissionControl` for the whole query: after a driver restart every interval
starts again, which only delays a flush. See docs/kafka.md, "Planning, admission control and offsets".
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.policy import FlushPolicy, flush_reason
from lakesink.domain.ports import Clock

K = TypeVar("K", bound=Hashable)
"""What identifies a partition (the Kafka source: ``(topic, partition)``)."""


class AdmitMode(Enum):
    """How strictly the policy applies to one planning call."""

    POLICY = "policy"
    """flush.count / flush.interval decide; maxRecordsPerPartition and maxOffsetsPerTrigger cap."""
    DRAIN = "drain"
    """Admit every waiting record up to the caps (Trigger.AvailableNow: nothing more will come)."""
    ALL = "all"
    """Admit everything, ignoring the options (Spark asked for ReadAllAvailable)."""


@dataclass(frozen=True, slots=True)
class AdmissionPolicy:
    """The admission options; None means the rule is off.

    Attributes:
        flush_count: admit a partition once this many records wait.
        flush_interval_ms: admit a partition with waiting records once this long passed since
            its last admission (or since it was first seen).
        max_records_per_partition: the most records of one partition one batch takes.
        max_offsets_per_trigger: the most offsets one batch takes over all partitions.
    """

    flush_count: int | None = None
    flush_interval_ms: int | None = None
    max_records_per_partition: int | None = None
    max_offsets_per_trigger: int | None = None

    def __post_init__(self) -> None:
        for name, value in (
            ("flush.count", self.flush_count),
            ("flush.interval", self.flush_interval_ms),
            ("maxRecordsPerPartition", self.max_records_per_partition),
            ("maxOffsetsPerTrigger", self.max_offsets_per_trigger),
        ):
            if value is not None and value <= 0:
                raise ConfigError(f"Invalid value {value} for {name}: must be positive.")

    @classmethod
    def for_flushes(
        cls, policies: Iterable[FlushPolicy], max_records_per_partition: int | None = None
    ) -> AdmissionPolicy:
        """The admission of a sink whose statements flush by ``policies``.

        One source feeds every statement, so a partition is admitted as soon as the most eager
        statement would flush it: the smallest ``flush.count`` (statements without a count
        condition do not take part; none left means no count rule) and the smallest
        ``flush.interval``. ``flush.size`` is left to the writers (the driver counts offsets,
        not bytes).
        """
        policies = list(policies)
        counts = [policy.count for policy in policies if policy.count is not None]
        return cls(
            flush_count=min(counts, default=None),
            flush_interval_ms=min((policy.interval_ms for policy in policies), default=None),
            max_records_per_partition=max_records_per_partition,
        )

    @property
    def is_limited(self) -> bool:
        """Whether any option restricts what a batch takes."""
        return any(
            v is not None
            for v in (
                self.flush_count,
                self.flush_interval_ms,
                self.max_records_per_partition,
                self.max_offsets_per_trigger,
            )
        )

    def waits(self) -> bool:
        """Whether partitions may be held back until enough records or time accumulate."""
        return self.flush_count is not None or self.flush_interval_ms is not None

    def due(self, waiting: int, elapsed_ms: int) -> bool:
        """Whether ``waiting`` records of a partition last admitted ``elapsed_ms`` ago enter the batch.

        The flush rule (:func:`~lakesink.domain.flush.policy.flush_reason`) when a flush option
        is set; without one every partition with waiting records is due. Nothing waiting is
        never due.
        """
        if waiting <= 0:
            return False
        if not self.waits():
            return True
        return (
            flush_reason(waiting, elapsed_ms, count=self.flush_count, interval_ms=self.flush_interval_ms)
            is not None
        )


class AdmissionControl(Generic[K]):
    """Plans batch end offsets from start offsets and what is available, remembering admissions."""

    def __init__(self, policy: AdmissionPolicy, clock: Clock) -> None:
        self._policy = policy
        self._clock = clock
        self._last_admitted_ms: dict[K, int] = {}

    def plan(
        self,
        start: Mapping[K, int],
        available: Mapping[K, int],
        mode: AdmitMode = AdmitMode.POLICY,
    ) -> dict[K, int]:
        """End offsets for every partition of ``start``; equal to the start when not admitted.

        ``available`` is the offset after the last record each partition holds now (a partition
        it does not name has nothing waiting).
        """
        now = self._clock.now_ms()
        end: dict[K, int] = {}
        for key, begin in start.items():
            waiting = max(0, available.get(key, begin) - begin)
            since = self._last_admitted_ms.setdefault(key, now)
            if waiting and (mode is not AdmitMode.POLICY or self._policy.due(waiting, now - since)):
                end[key] = begin + self._capped(waiting, mode)
                self._last_admitted_ms[key] = now
            else:
                end[key] = begin
        limit = self._policy.max_offsets_per_trigger
        if limit is None or mode is AdmitMode.ALL:
            return end
        return rate_limited(limit, start, end)

    def due_in_ms(self, start: Mapping[K, int], available: Mapping[K, int]) -> int | None:
        """How long until ``flush.interval`` admits a partition that has records waiting (0: now).

        None when no partition of ``start`` has records waiting, or there is no interval rule: then
        only new records (a count reached) can make a partition due, and the caller decides how
        often to look.
        """
        interval = self._policy.flush_interval_ms
        if interval is None:
            return None
        now = self._clock.now_ms()
        waits = [
            self._last_admitted_ms.get(key, now) + interval - now
            for key, begin in start.items()
            if available.get(key, begin) > begin
        ]
        return max(0, min(waits)) if waits else None

    def _capped(self, waiting: int, mode: AdmitMode) -> int:
        cap = self._policy.max_records_per_partition
        if cap is None or mode is AdmitMode.ALL:
            return waiting
        return min(waiting, cap)


def rate_limited(limit: int, start: Mapping[K, int], end: Mapping[K, int]) -> dict[K, int]:
    """``end`` cut down so that the batch takes about ``limit`` offsets over all partitions.

    Spark's Kafka source rule for ``maxOffsetsPerTrigger``: each partition gets ``limit`` times its
    share of the offsets waiting (``end - start``), rounded down, except that a share below one
    offset is rounded up so a small partition is never starved (the total can then pass ``limit``
    by a few offsets). Nothing is cut when everything waiting fits.
    """
    sizes = {key: stop - start[key] for key, stop in end.items() if stop > start[key]}
    total = sum(sizes.values())
    if total <= limit:
        return dict(end)
    limited = dict(end)
    for key, size in sizes.items():
        share = limit * size / total
        taken = math.ceil(share) if share < 1 else math.floor(share)
        limited[key] = min(end[key], start[key] + taken)
    return limited
