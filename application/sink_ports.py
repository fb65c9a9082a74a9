"""What the sink use case needs from the outside, as shapes: the compute, the topics, the consumer group.

:class:`~.sink_run.SinkRun` talks only to these (and to the domain's
:class:`~lakesink.domain.ports.ObjectStore`); :mod:`.bootstrap.sink` plugs in Spark and Kafka, tests may
plug in anything with the same methods.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import SinkStart
from lakesink.domain.records import TopicPartition
from lakesink.domain.subscription import TopicSelection


class SinkCompute(Protocol):
    """Plans the batches and writes their ranges (one task per range)."""

    def run(
        self,
        start: SinkStart,
        on_batch: Callable[[int, Sequence[OffsetRange]], None],
        timeout_s: float | None = None,
    ) -> None:
        """Hand every batch to ``on_batch`` until the input ends (``--once``) or the run is stopped."""

    def stop(self) -> None:
        """End the run after its batch in progress (from any thread)."""

    def write(
        self,
        ranges: Sequence[OffsetRange],
        floors: Mapping[TopicPartition, int],
        granular: Mapping[TopicPartition, Mapping[str, int]],
        clock_ms: int,
    ) -> list[RangeResult]:
        """Write ``ranges``, skipping offsets at or below ``floors``; one result per range.

        ``clock_ms`` is the batch clock: the time every wall-clock transform of the batch reads.
        """


class TopicMetadataPort(Protocol):
    """The partitions the sink reads and their high watermarks."""

    def partitions(self, selection: TopicSelection) -> list[TopicPartition]:
        """Every partition of the topics ``selection`` names or matches."""

    def earliest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The low watermark (first offset still in the log) of each partition."""

    def latest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The high watermark (next offset to be written) of each partition."""

    def close(self) -> None:
        """Release the client."""


class ConsumerGroup(Protocol):
    """The consumer group an at-least-once sink resumes from."""

    def committed(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The committed next offset of each partition that has one."""

    def commit(self, positions: Mapping[TopicPartition, int]) -> None:
        """Commit ``positions`` (next offsets to read)."""

    def close(self) -> None:
        """Release the client."""


class LagGroup(Protocol):
    """The consumer group an exactly-once sink keeps current for lag tools; never read back."""

    def advise(self, positions: Mapping[TopicPartition, int]) -> None:
        """Commit ``positions`` (next offsets to read) without waiting; a failure is logged, never raised."""

    def close(self) -> None:
        """Wait briefly for the commits in flight, then release the client."""
