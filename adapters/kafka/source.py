"""Kafka as a PySpark Python Data Source named ``lakesink-kafka`` (streaming and batch).

PySpark wheels carry no Kafka connector jars, so lakesink reads Kafka itself, through
confluent-kafka, behind Spark's Python Data Source API:

* the driver plans: :class:`KafkaStreamReader` discovers topic-partitions, resolves starting
  offsets, and decides with :class:`~lakesink.adapters.kafka.admission.AdmissionControl` how far
  each partition goes in the next micro-batch;
* executors read: one input partition per topic-partition offset range
  (:class:`~lakesink.adapters.kafka.offsets.OffsetRange`), read by
  :func:`~lakesink.adapters.kafka.partition_reader.read_range` into Arrow record batches.
  ``maxRangeOffsets`` splits a partition's range into chunks of at most that many offsets,
  counted from the range start, so that one partition's backlog is read by several tasks.

A partition that appears after the query started (new partition, new topic matching
``topics.regex``) is first *registered*: the batch that discovers it records its starting
offset, the next batch reads from there. Every range a batch reads thus has a start written
in Spark's offset log, so re-planning a batch after a restart yields the same ranges.

Spark read limits: with any of flush.count / flush.interval / maxRecordsPerPartition set the
default read limit is ``ReadMinRows`` (Spark only passes it back); when Spark asks for
``ReadAllAvailable`` instead (Trigger.Once), everything available is admitted, as the API
requires. With ``Trigger.AvailableNow`` the source drains what existed when the query started,
ignoring the flush rules (no more data will come to complete a count) but not the cap.

``firstBatchEndOffsets`` (a JSON offsets map, set by the sink from its pending batch plans) makes
the first micro-batch this reader plans take exactly the named partitions, each up to the given
offset, so that a batch re-planned after losing Spark's checkpoint reads the same range as before.
A partition whose start already reached its forced end (the checkpoint replayed that batch) is
not forced; once one batch was planned the option has no further effect.
``firstBatchChunks`` (``{topic: {"partition": [[start, end], ...]}}``, also from the pending plans)
names chunks that must come out whole: those that wrote plans, so that the replayed batch
reproduces them whatever ``maxRangeOffsets`` is now (the rest of the range is split as usual).
It applies to any range that contains them — the replayed batch, planned afresh or taken from
Spark's offset log; later ranges start above them.

``rangesOnly=true`` (:mod:`~lakesink.adapters.kafka.range_rows`) changes only what ``read()``
yields: one row per range (:data:`~lakesink.adapters.kafka.range_rows.RANGES_SCHEMA`) instead of
its records, for a consumer that reads the ranges on the executors itself.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMinRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from lakesink.adapters.kafka.admission import AdmissionControl, AdmitMode
from lakesink.adapters.kafka.client_config import admin_config
from lakesink.adapters.kafka.offsets import (
    OffsetRange,
    Positions,
    TopicPartitionKey,
    from_json,
    ranges_between,
    to_json,
)
from lakesink.adapters.kafka.partition_reader import KAFKA_SCHEMA
from lakesink.adapters.kafka.range_rows import RANGES_SCHEMA, RangeReader, range_batch
from lakesink.adapters.kafka.source_options import SourceOptions
from lakesink.adapters.kafka.topic_metadata import TopicMetadata
from lakesink.domain.ports import Clock

logger = logging.getLogger(__name__)

SOURCE_NAME = "lakesink-kafka"


class KafkaDataSource(DataSource):
    """``spark.readStream.format("lakesink-kafka")``; the schema is Spark's Kafka source schema."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> StructType:
        return RANGES_SCHEMA if SourceOptions.parse(self.options).ranges_only else KAFKA_SCHEMA

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return KafkaStreamReader(SourceOptions.parse(self.options))

    def reader(self, schema: StructType) -> DataSourceReader:
        return KafkaBatchReader(SourceOptions.parse(self.options))


class _RangeReading:
    """What both readers share: broker metadata on the driver, range reading on executors."""

    def __init__(self, options: SourceOptions) -> None:
        self._options = options
        self._reader = RangeReader.of(options)
        self._selection = options.selection()
        self._metadata = TopicMetadata(
            admin_config(options.client_settings), read_committed=options.read_committed
        )

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The records of one :class:`OffsetRange` as Arrow batches, or its one row (``rangesOnly``)."""
        if not isinstance(partition, OffsetRange):
            raise TypeError(f"{SOURCE_NAME} cannot read input partition {partition!r}")
        if self._options.ranges_only:
            return iter([range_batch(partition)])
        return self._reader.read(partition)

    def _ranges(self, start: Positions, end: Positions) -> list[OffsetRange]:
        """The input partitions from ``start`` to ``end``: chunks of each partition's range."""
        options = self._options
        return ranges_between(
            start, end, max_offsets=options.max_range_offsets, pinned=dict(options.first_batch_chunks)
        )

    def _watermarks(self, keys: Sequence[TopicPartitionKey]) -> tuple[Positions, Positions]:
        return self._metadata.earliest(keys), self._metadata.latest(keys)

    def _starting_positions(self, keys: Sequence[TopicPartitionKey]) -> Positions:
        low, high = self._watermarks(keys)
        return {key: self._options.starting.resolve(key, low[key], high[key]) for key in keys}


class KafkaStreamReader(_RangeReading, DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Micro-batch planning with admission control; state lives in the driver's reader."""

    def __init__(self, options: SourceOptions, clock: Clock | None = None) -> None:
        super().__init__(options)
        self._admission = AdmissionControl(options.policy, clock)
        self._target: Positions | None = None
        self._forced_first_end: Positions = dict(options.first_batch_end)

    def initialOffset(self) -> dict[str, Any]:
        positions = self._starting_positions(self._metadata.partitions(self._selection))
        logger.info("Kafka source starts at %s", to_json(positions))
        return to_json(positions)

    def getDefaultReadLimit(self) -> ReadLimit:
        policy = self._options.policy
        return ReadMinRows(policy.flush_count or 1) if policy.is_limited else ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        keys = self._metadata.partitions(self._selection)
        self._target = self._metadata.latest(keys)
        logger.info("Kafka source drains up to %s", to_json(self._target))

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        begin = from_json(start, setting="start offset")
        known = list(self._target) if self._target is not None else self._metadata.partitions(self._selection)
        present = [key for key in known if key in begin]
        available = self._metadata.latest(present)
        if self._target is not None:
            available = {key: min(offset, self._target[key]) for key, offset in available.items()}
        end = self._forced_end(begin, available)
        if end is None:
            end = self._admission.plan(begin, available, self._mode(limit))
        registered = self._starting_positions([key for key in known if key not in begin])
        if registered:
            logger.info("Kafka source registers new partitions at %s", to_json(registered))
        return to_json({**end, **registered})

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        return self._ranges(from_json(start, setting="start offset"), from_json(end, setting="end offset"))

    def commit(self, end: dict[str, Any]) -> None:
        logger.debug("Kafka source batch committed up to %s", end)

    def stop(self) -> None:
        self._metadata.close()

    def _forced_end(self, begin: Positions, available: Positions) -> Positions | None:
        """The first batch's end when ``firstBatchEndOffsets`` still applies, else None."""
        forced = {
            key: min(stop, available.get(key, stop))
            for key, stop in self._forced_first_end.items()
            if key in begin and begin[key] < stop
        }
        self._forced_first_end = {}
        if not forced:
            return None
        logger.info("Kafka source replays a planned batch up to %s", to_json(forced))
        return {key: forced.get(key, offset) for key, offset in begin.items()}

    def _mode(self, limit: ReadLimit) -> AdmitMode:
        if isinstance(limit, ReadAllAvailable):
            return AdmitMode.ALL
        return AdmitMode.DRAIN if self._target is not None else AdmitMode.POLICY


class KafkaBatchReader(_RangeReading, DataSourceReader):
    """``spark.read.format("lakesink-kafka")``: startingOffsets up to endingOffsets (default latest)."""

    def partitions(self) -> Sequence[InputPartition]:
        keys = self._metadata.partitions(self._selection)
        low, high = self._watermarks(keys)
        start = {key: self._options.starting.resolve(key, low[key], high[key]) for key in keys}
        end = {key: self._options.ending.resolve(key, low[key], high[key]) for key in keys}
        return self._ranges(start, end)
