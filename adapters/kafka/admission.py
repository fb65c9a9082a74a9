"""Which partitions enter the next micro-batch: the flush policy applied on the driver.

A Kafka Connect sink task flushes a partition's file when ``flush.count`` records are buffered
or ``flush.interval`` has passed. On Spark the executors see only the records of one batch, so
the same rule decides, on the driver, when a partition's waiting records are *admitted* into a
batch: when at least ``flush.count`` records wait, or ``flush.interval`` has passed since the
partition was last admitted (or first seen). A partition that is not admitted keeps its start
offset, so its records stay in Kafka for a later batch; when no partition is admitted the
batch is empty. ``maxRecordsPerPartition`` caps one partition's range in one batch.

The state (last admission per partition) lives in the driver's reader object: after a driver
restart every interval starts again, which only delays a flush, never loses data.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from lakesink.adapters.kafka.offsets import Positions, TopicPartitionKey
from lakesink.domain.errors import ConfigError
from lakesink.domain.ports import Clock


class AdmitMode(Enum):
    """How strictly the policy applies to one planning call."""

    POLICY = "policy"
    """flush.count / flush.interval decide; maxRecordsPerPartition caps."""
    DRAIN = "drain"
    """Admit every waiting record up to the cap (Trigger.AvailableNow: nothing more will come)."""
    ALL = "all"
    """Admit everything, ignoring the options (Spark asked for ReadAllAvailable)."""


@dataclass(frozen=True, slots=True)
class AdmissionPolicy:
    """The options; None means the rule is off."""

    flush_count: int | None = None
    flush_interval_ms: int | None = None
    max_records_per_partition: int | None = None

    def __post_init__(self) -> None:
        for name, value in (
            ("flush.count", self.flush_count),
            ("flush.interval", self.flush_interval_ms),
            ("maxRecordsPerPartition", self.max_records_per_partition),
        ):
            if value is not None and value <= 0:
                raise ConfigError(f"Invalid value {value} for {name}: must be positive.")

    @property
    def is_limited(self) -> bool:
        """Whether any option restricts what a batch takes."""
        return any(
            v is not None for v in (self.flush_count, self.flush_interval_ms, self.max_records_per_partition)
        )

    def waits(self) -> bool:
        """Whether partitions may be held back until enough records or time accumulate."""
        return self.flush_count is not None or self.flush_interval_ms is not None


class WallClock:
    """The system clock as a :class:`~lakesink.domain.ports.Clock`."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class AdmissionControl:
    """Plans batch end offsets from start offsets and what is available, remembering admissions."""

    def __init__(self, policy: AdmissionPolicy, clock: Clock | None = None) -> None:
        self._policy = policy
        self._clock = clock or WallClock()
        self._last_admitted_ms: dict[TopicPartitionKey, int] = {}

    def plan(
        self,
        start: Mapping[TopicPartitionKey, int],
        available: Mapping[TopicPartitionKey, int],
        mode: AdmitMode = AdmitMode.POLICY,
    ) -> Positions:
        """End offsets for every partition of ``start``; equal to the start when not admitted."""
        now = self._clock.now_ms()
        end: Positions = {}
        for key, begin in start.items():
            waiting = max(0, available.get(key, begin) - begin)
            since = self._last_admitted_ms.setdefault(key, now)
            if waiting and (mode is not AdmitMode.POLICY or self._due(waiting, now - since)):
                end[key] = begin + self._capped(waiting, mode)
                self._last_admitted_ms[key] = now
            else:
                end[key] = begin
        return end

    def _due(self, waiting: int, elapsed_ms: int) -> bool:
        policy = self._policy
        if not policy.waits():
            return True
        by_count = policy.flush_count is not None and waiting >= policy.flush_count
        by_time = policy.flush_interval_ms is not None and elapsed_ms >= policy.flush_interval_ms
        return by_count or by_time

    def _capped(self, waiting: int, mode: AdmitMode) -> int:
        cap = self._policy.max_records_per_partition
        if cap is None or mode is AdmitMode.ALL:
            return waiting
        return min(waiting, cap)
