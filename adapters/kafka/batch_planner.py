"""Where the micro-batches of the ``lakesink-kafka`` source start and end: planning on the driver.

:class:`BatchPlanner` holds every decision made before a batch runs (start, drain target,
admission, cap, replay of a pending first batch, ranges) and its state, so the Spark stream
reader is a thin adapter over it and the sink command plans the very same batches without a
streaming query. See docs/kafka.md, "Planning, admission control and offsets".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from lakesink.adapters.clock import WallClock
from lakesink.adapters.kafka.offsets import (
    EARLIEST,
    LATEST,
    KafkaDataLossError,
    OffsetSpec,
    Positions,
    TopicPartitionKey,
    ranges_between,
    split_for_min_partitions,
)
from lakesink.adapters.kafka.source_options import SourceOptions
from lakesink.domain.flush.admission import AdmissionControl, AdmitMode
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import Clock
from lakesink.domain.records import positions_json
from lakesink.domain.transient import wait_before

if TYPE_CHECKING:
    from lakesink.domain.subscription import TopicSelection

logger = logging.getLogger(__name__)


class BrokerMetadata(Protocol):
    """What planning asks the broker: the selected partitions and their watermarks."""

    def partitions(self, selection: TopicSelection) -> list[TopicPartitionKey]:
        """Every selected topic-partition that exists now, sorted."""

    def earliest(self, keys: Iterable[TopicPartitionKey]) -> dict[TopicPartitionKey, int]:
        """The low watermark of each partition."""

    def latest(self, keys: Iterable[TopicPartitionKey]) -> dict[TopicPartitionKey, int]:
        """The high watermark (last stable offset under read_committed) of each partition."""

    def close(self) -> None:
        """Release broker connections."""


class BatchPlanner:
    """Start positions, the drain target, successive batch ends and their ranges.

    The state (admissions, the drain target, whether the forced first end was used) lives in
    this object: one planner per query (or per ``--once`` run).
    """

    def __init__(self, options: SourceOptions, metadata: BrokerMetadata, clock: Clock | None = None) -> None:
        self._options = options
        self._selection = options.selection()
        # A streaming query's default; a batch read's options come with theirs (SourceOptions.for_batch).
        self._starting = options.starting if options.starting is not None else OffsetSpec(default=LATEST)
        self._starting_new = OffsetSpec(default=EARLIEST, explicit=self._starting.explicit)
        self._metadata = metadata
        self._admission: AdmissionControl[TopicPartitionKey] = AdmissionControl(
            options.policy, clock or WallClock()
        )
        self._target: Positions | None = None
        self._forced_first_end: Positions = dict(options.first_batch_end)
        self._available: Positions = {}
        self.position: Positions = {}
        """Where a continuous run's next batch starts: the end of the last one handed over (:meth:`continuous`)."""

    @classmethod
    def connect(cls, options: SourceOptions, clock: Clock | None = None) -> BatchPlanner:
        """A planner over the broker the options name (an AdminClient, created on first use)."""
        # Imported here: the Spark workers that only unpickle the data source never plan.
        from lakesink.adapters.kafka.client_config import admin_config, ignored_settings
        from lakesink.adapters.kafka.topic_metadata import TopicMetadata

        ignored = ignored_settings(options.client_settings)
        if ignored:  # the Java client would warn about settings it does not know; so do we
            logger.warning("Kafka settings not handed to librdkafka (Java-only or unknown): %s", ", ".join(ignored))

        metadata = TopicMetadata(admin_config(options.client_settings), read_committed=options.read_committed)
        return cls(options, metadata, clock)

    @property
    def draining(self) -> bool:
        """Whether :meth:`drain` fixed a target (``Trigger.AvailableNow``)."""
        return self._target is not None

    def start(self) -> Positions:
        """Where a query without a checkpoint starts: ``startingOffsets`` over today's partitions.

        A position ``startingOffsets`` names outside what Kafka holds is data loss: with
        ``failOnDataLoss=true`` (the default) planning fails with
        :class:`~lakesink.adapters.kafka.offsets.KafkaDataLossError`; with false it is logged, a start
        below the earliest offset is read from the earliest (the readers' ``auto.offset.reset``) and a
        start beyond the latest waits until the partition reaches it. So is a latest offset below a
        partition's position (the topic was deleted and recreated).
        """
        positions = self._positions(self._starting, self._metadata.partitions(self._selection))
        logger.info("Kafka source starts at %s", positions_json(positions))
        return positions

    def drain(self) -> Positions:
        """Fix the target of a drain: the high watermarks now; later batches never pass them."""
        self._target = self._metadata.latest(self._metadata.partitions(self._selection))
        logger.info("Kafka source drains up to %s", positions_json(self._target))
        return dict(self._target)

    def next_end(self, begin: Positions, mode: AdmitMode) -> Positions:
        """The end of the batch that starts at ``begin``; equal to ``begin`` when nothing is admitted.

        Partitions that exist but are not in ``begin`` are *registered*: the end names them at
        their starting position and the next batch reads them (:func:`ranges_between` gives
        them no range in this one). A drain only knows the partitions of its target.
        """
        known = list(self._target) if self._target is not None else self._metadata.partitions(self._selection)
        available = self._metadata.latest([key for key in known if key in begin])
        self._check_not_behind(begin, available)
        if self._target is not None:
            available = {key: min(offset, self._target[key]) for key, offset in available.items()}
        self._available = available
        end = self._forced_end(begin, available)
        if end is None:
            end = self._admission.plan(begin, available, mode)
        registered = self._positions(self._starting_new, [key for key in known if key not in begin])
        if registered:
            logger.info("Kafka source registers new partitions at %s", positions_json(registered))
        return {**end, **registered}

    def ranges(self, start: Positions, end: Positions) -> list[OffsetRange]:
        """The batch's input partitions: chunks of each partition's range, pinned chunks whole,
        then split further when there are fewer than ``minPartitions``."""
        options = self._options
        chunks = ranges_between(
            start, end, max_offsets=options.split_offsets, pinned=dict(options.first_batch_chunks)
        )
        return split_for_min_partitions(chunks, options.min_partitions)

    def available_now(self) -> Iterator[tuple[Positions, Positions]]:
        """``(start, end)`` of every batch ``Trigger.AvailableNow`` runs, in order, planned lazily.

        The target is fixed first, then the start, as Spark does; batches follow until one would
        read nothing. Each end is planned only when the previous batch is done with, so a caller
        that stops early has planned nothing beyond what it ran. Spark passes the default read
        limit, so every batch is admitted in DRAIN mode (ReadAllAvailable, which Spark passes
        when no rule is set, differs from it only by ignoring a cap that is then unset).
        """
        self.drain()
        begin = self.start()
        while True:
            end = self.next_end(begin, AdmitMode.DRAIN)
            if end == begin:
                return
            yield begin, end
            begin = end

    def continuous(self, poll_s: float, wait: Callable[[float], bool]) -> Iterator[tuple[Positions, Positions]]:
        """``(start, end)`` of every batch of a continuous run, planned on the driver as the
        streaming source plans them for Spark (same admissions, same replay of a forced first end).

        Between batches it waits for the first flush interval of a waiting partition to run out,
        looking at Kafka at least every ``poll_s`` for records that complete a count (or wake a
        partition without an interval rule). A cluster that does not answer (an outage, a broker
        restarting) is asked again after 1 s, doubling to at most 60 s, for as long as it lasts. ``wait(seconds)`` waits and says whether to stop
        (``threading.Event.wait`` of a stop signal; a test's moves its clock). A batch that only
        registers new partitions reads nothing: it is not yielded, the next one reads them.
        :attr:`position` follows: the end of the last batch handed over (where the next one starts).
        """
        begin = self.position = self.start()
        unanswered = 0
        while True:
            try:
                end = self.next_end(begin, AdmitMode.POLICY)
            except ConnectionError as error:  # a broker outage is waited out, as Connect retries a task
                unanswered += 1
                delay = wait_before(unanswered)
                logger.warning("Kafka did not answer while the next batch was planned (%s); asking again in %.0f s",
                               error, delay)
                if wait(delay):
                    return
                continue
            unanswered = 0
            if end == begin:
                due_ms = self._admission.due_in_ms(begin, self._available)
                if wait(poll_s if due_ms is None else min(poll_s, due_ms / 1000)):
                    return
                continue
            self.position = end
            if any(end[key] > offset for key, offset in begin.items()):
                yield begin, end
            begin = end

    def bounds(self) -> tuple[Positions, Positions]:
        """``startingOffsets`` to ``endingOffsets`` over today's partitions (a batch query)."""
        keys = self._metadata.partitions(self._selection)
        watermarks = self._watermarks(keys)
        ending = self._options.ending or OffsetSpec(default=LATEST)
        return self._positions(self._starting, keys, watermarks), _resolve(ending, keys, *watermarks)

    def close(self) -> None:
        """Drop the broker connections."""
        self._metadata.close()

    def _watermarks(self, keys: Sequence[TopicPartitionKey]) -> tuple[Positions, Positions]:
        return self._metadata.earliest(keys), self._metadata.latest(keys)

    def _positions(
        self,
        spec: OffsetSpec,
        keys: Sequence[TopicPartitionKey],
        watermarks: tuple[Positions, Positions] | None = None,
    ) -> Positions:
        """``spec`` resolved against the watermarks of ``keys`` (fetched now unless given); its
        explicit offsets checked against them."""
        low, high = watermarks or self._watermarks(keys)
        for key, offset in spec.explicit:
            if key in low and offset >= 0 and not low[key] <= offset <= high[key]:
                where = f"startingOffsets for {key[0]}-{key[1]} is {offset}, Kafka holds [{low[key]}, {high[key]})"
                if self._options.fail_on_data_loss:
                    raise KafkaDataLossError(where)
                logger.warning("%s: some data may have been lost (failOnDataLoss=false)", where)
        return _resolve(spec, keys, low, high)

    def _check_not_behind(self, begin: Positions, latest: Positions) -> None:
        """A partition whose latest offset fell below the next one to read lost data (deleted and
        recreated topic, truncated log): an error with ``failOnDataLoss=true``, else a warning."""
        for key, offset in sorted(latest.items()):
            if offset < begin[key]:
                where = f"{key[0]}-{key[1]}: the latest offset {offset} is below the next offset to read {begin[key]}"
                if self._options.fail_on_data_loss:
                    raise KafkaDataLossError(where)
                logger.warning("%s: some data may have been lost (failOnDataLoss=false)", where)

    def _forced_end(self, begin: Positions, available: Positions) -> Positions | None:
        """The first batch's end when ``firstBatchEndOffsets`` still applies, else None.

        A partition whose start already reached its forced end (Spark's checkpoint replayed that
        batch) is not forced; after the first call the option has no further effect.
        """
        forced = {
            key: min(stop, available.get(key, stop))
            for key, stop in self._forced_first_end.items()
            if key in begin and begin[key] < stop
        }
        self._forced_first_end = {}
        if not forced:
            return None
        logger.info("Kafka source replays a planned batch up to %s", positions_json(forced))
        return {key: forced.get(key, offset) for key, offset in begin.items()}


def _resolve(spec: OffsetSpec, keys: Sequence[TopicPartitionKey], low: Positions, high: Positions) -> Positions:
    return {key: spec.resolve(key, low[key], high[key]) for key in keys}
