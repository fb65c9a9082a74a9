"""Kafka as a PySpark Python Data Source named ``lakesink-kafka`` (streaming and batch).

PySpark wheels carry no Kafka connector jars, so lakesink reads Kafka itself, through
confluent-kafka, behind Spark's Python Data Source API:

* the driver plans: :class:`KafkaStreamReader` is a thin adapter over
  :class:`~lakesink.adapters.kafka.batch_planner.BatchPlanner`, which discovers topic-partitions,
  resolves starting offsets, and decides with
  :class:`~lakesink.domain.flush.admission.AdmissionControl` how far each partition goes in the
  next micro-batch (the sink's ``--once`` run drives the same planner without Spark streaming);
* executors read: one input partition per topic-partition offset range
  (:class:`~lakesink.domain.offset_range.OffsetRange`, carried in an ``InputPartition``), read by
  :func:`~lakesink.adapters.kafka.partition_reader.read_range` into Arrow record batches.
  ``maxRangeOffsets`` splits a partition's range into chunks of at most that many offsets,
  counted from the range start, so that one partition's backlog is read by several tasks.

The options are those of Spark's Kafka source plus lakesink's extensions
(:mod:`~lakesink.adapters.kafka.source_options`); the output schema is Spark's, with the
``headers`` column only when ``includeHeaders=true``. A streaming query starts at ``latest`` by
default and refuses ``endingOffsets``; a batch read goes from ``earliest`` to ``latest`` by
default (:meth:`SourceOptions.for_stream`, :meth:`SourceOptions.for_batch`).

A partition that appears after the query started (new partition, new topic matching
``subscribePattern``) is first *registered* at its earliest offset, as Spark does: the batch that
discovers it records its starting offset, the next batch reads from there. Every range a batch
reads thus has a start written in Spark's offset log, so re-planning a batch after a restart
yields the same ranges.

Spark read limits: with any of flush.count / flush.interval / maxRecordsPerPartition /
maxOffsetsPerTrigger set the default read limit is ``ReadMinRows`` (Spark only passes it back);
when Spark asks for ``ReadAllAvailable`` instead (Trigger.Once), everything available is admitted,
as the API requires (Spark's Kafka source ignores maxOffsetsPerTrigger there too). With
``Trigger.AvailableNow`` the source drains what existed when the query started, ignoring the flush
rules (no more data will come to complete a count) but not the caps.

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
yields: one row per range (:data:`~lakesink.adapters.kafka.source_schemas.RANGES_SCHEMA`) instead of
its records, for a consumer that reads the ranges on the executors itself.

Spark's data-source workers only unpickle :class:`KafkaDataSource` and call ``schema()`` /
``streamReader()``: this module loads neither pyarrow nor confluent-kafka; the planner connects
to the broker on its first planning call (driver) and ``read()`` imports the reader (executors).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMinRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from lakesink.adapters.kafka.batch_planner import BatchPlanner, BrokerMetadata
from lakesink.adapters.kafka.offsets import from_json, to_json
from lakesink.adapters.kafka.source_options import SourceOptions
from lakesink.adapters.kafka.source_schemas import RANGES_SCHEMA, kafka_schema
from lakesink.domain.flush.admission import AdmitMode
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import Clock

if TYPE_CHECKING:
    import pyarrow as pa

logger = logging.getLogger(__name__)

SOURCE_NAME = "lakesink-kafka"


class KafkaDataSource(DataSource):
    """``spark.readStream.format("lakesink-kafka")``; the schema is Spark's Kafka source schema.

    ``schema()`` parses the options, so a missing or unknown option fails at ``load()``, as with
    Spark's Kafka source.
    """

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> StructType:
        options = SourceOptions.parse(self.options)
        return RANGES_SCHEMA if options.ranges_only else kafka_schema(options.include_headers)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return KafkaStreamReader(SourceOptions.parse(self.options).for_stream())

    def reader(self, schema: StructType) -> DataSourceReader:
        return KafkaBatchReader(SourceOptions.parse(self.options).for_batch())


class _RangeReading:
    """What both readers share: a planner on the driver, range reading on executors.

    The planner (and its broker connection) is created on the first planning call, so a reader
    that Spark only pickles for its executors never loads the Kafka client. ``metadata`` replaces
    the broker's AdminClient (a fake in tests).
    """

    def __init__(
        self, options: SourceOptions, clock: Clock | None = None, metadata: BrokerMetadata | None = None
    ) -> None:
        self._options = options
        self._clock = clock
        self._metadata = metadata
        self._planner: BatchPlanner | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_planner": None}  # a copy plans afresh (executors only read)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The records of the :class:`OffsetRange` ``partition`` carries as Arrow batches, or its one row
        (``rangesOnly``)."""
        from lakesink.adapters.kafka.range_rows import RangeReader, range_batch

        offset_range = partition.value
        if not isinstance(offset_range, OffsetRange):
            raise TypeError(f"{SOURCE_NAME} cannot read input partition {offset_range!r}")
        if self._options.ranges_only:
            return iter([range_batch(offset_range)])
        return RangeReader.of(self._options).read(offset_range)

    @property
    def planner(self) -> BatchPlanner:
        """The driver-side planner, connected on first use."""
        if self._planner is None:
            self._planner = (
                BatchPlanner.connect(self._options, self._clock)
                if self._metadata is None
                else BatchPlanner(self._options, self._metadata, self._clock)
            )
        return self._planner


class KafkaStreamReader(_RangeReading, DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Spark's micro-batch calls mapped onto the :class:`BatchPlanner`, which keeps the state."""

    def initialOffset(self) -> dict[str, Any]:
        return to_json(self.planner.start())

    def getDefaultReadLimit(self) -> ReadLimit:
        policy = self._options.policy
        return ReadMinRows(policy.flush_count or 1) if policy.is_limited else ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        self.planner.drain()

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        planner = self.planner
        if isinstance(limit, ReadAllAvailable):
            mode = AdmitMode.ALL
        else:
            mode = AdmitMode.DRAIN if planner.draining else AdmitMode.POLICY
        return to_json(planner.next_end(from_json(start, setting="start offset"), mode))

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        ranges = self.planner.ranges(from_json(start, setting="start offset"), from_json(end, setting="end offset"))
        return [InputPartition(offset_range) for offset_range in ranges]

    def commit(self, end: dict[str, Any]) -> None:
        logger.debug("Kafka source batch committed up to %s", end)

    def stop(self) -> None:
        if self._planner is not None:
            self._planner.close()


class KafkaBatchReader(_RangeReading, DataSourceReader):
    """``spark.read.format("lakesink-kafka")``: startingOffsets (default earliest) up to endingOffsets (default latest)."""

    def partitions(self) -> Sequence[InputPartition]:
        planner = self.planner
        return [InputPartition(offset_range) for offset_range in planner.ranges(*planner.bounds())]
