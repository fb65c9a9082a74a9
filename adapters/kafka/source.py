"""Kafka as a PySpark Python Data Source named ``lakesink-kafka`` (streaming and batch).

The driver plans through :class:`~lakesink.adapters.kafka.batch_planner.BatchPlanner`; executors
read one :class:`~lakesink.domain.offset_range.OffsetRange` per input partition. Spark's
data-source workers only unpickle :class:`KafkaDataSource` and call ``schema()`` /
``streamReader()``, so this module loads neither pyarrow nor confluent-kafka.
See docs/kafka.md, "Planning, admission control and offsets".
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
from lakesink.adapters.kafka.offsets import from_json
from lakesink.adapters.kafka.source_options import SourceOptions
from lakesink.adapters.kafka.source_schemas import RANGES_SCHEMA, kafka_schema
from lakesink.domain.flush.admission import AdmitMode
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import Clock
from lakesink.domain.records import positions_json

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
        return positions_json(self.planner.start())

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
        return positions_json(planner.next_end(from_json(start, setting="start offset"), mode))

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
