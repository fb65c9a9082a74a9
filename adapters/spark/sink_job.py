"""The sink's batches on Spark: which ranges each micro-batch holds, and one task per range.

:class:`SparkSink` is the compute adapter of the sink use case
(:class:`~lakesink.application.sink_run.SinkRun`), which decides what is committed. A continuous
run streams: ``lakesink-kafka`` stream → ``foreachBatch`` → the use case's batch handler. A
``--once`` run needs no streaming machinery (the index or the consumer group says where to start):
it drives the source's :class:`~lakesink.adapters.kafka.batch_planner.BatchPlanner` on the driver
exactly as ``Trigger.AvailableNow`` would (same batches, same ranges, batch ids 0, 1, 2…) and
removes a streaming checkpoint left behind (:mod:`.sink_checkpoint`). :meth:`SparkSink.write` runs
the writers on the executors (:func:`.sink_task.run_range_task` through ``mapInArrow``: one task per
range, no shuffle; the source runs with ``rangesOnly`` so each task reads its range from Kafka
itself and no record crosses the JVM; ``connect.<p>.range.split.offsets`` cuts a partition's
range into chunks, one task each) and collects one small result row per range. docs/sink.md
describes the protocol and every failure. The observed metrics of a stream count ranges and
offsets; the records written are in the use case's batch log.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery

from lakesink.adapters.formats.record_decoding import headers_needed
from lakesink.adapters.kafka.batch_planner import BatchPlanner
from lakesink.adapters.kafka.client_config import connector_client_settings
from lakesink.adapters.kafka.offsets import OffsetRange, to_json
from lakesink.adapters.kafka.range_rows import RangeReader, ranges_in
from lakesink.adapters.kafka.source import SOURCE_NAME
from lakesink.adapters.kafka.source_options import SinkSource, SourceOptions
from lakesink.adapters.spark.record_frames import RecordFrame, is_range_frame
from lakesink.adapters.spark.sink_checkpoint import forget_streaming_checkpoint
from lakesink.adapters.spark.sink_task import SinkTaskSpec, run_range_task
from lakesink.adapters.spark.task_results import RESULT_DDL, result_of
from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.flush.admission import AdmissionPolicy
from lakesink.domain.ports import ObjectStore
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import SinkPlan

logger = logging.getLogger(__name__)

PROCESSING_TIME = "2 seconds"
OBSERVATION = "lakesink"

BatchHandler = Callable[[int, Sequence[OffsetRange]], None]
"""What the use case does with one micro-batch: ``(batch_id, ranges)``; it calls :meth:`SparkSink.write`."""


@dataclass(frozen=True)
class SinkStart:
    """Where the run starts: the next offset per partition, and the first batch an unfinished
    earlier run forces (its end and chunks per partition, to reproduce every pending range plan)."""

    offsets: Mapping[TopicPartition, int] = field(default_factory=dict)
    first_end: Mapping[TopicPartition, int] = field(default_factory=dict)
    first_chunks: Mapping[TopicPartition, tuple[tuple[int, int], ...]] = field(default_factory=dict)


class SparkSink:
    """One sink run's batches on a SparkSession: :meth:`run` feeds them to a handler, :meth:`write` writes one."""

    def __init__(
        self,
        settings: ConnectorSettings,
        plan: SinkPlan,
        spark: SparkSession,
        store: ObjectStore,
        *,
        run_id: str,
        checkpoint_dir: str,
        once: bool,
    ) -> None:
        self.settings = settings
        self.spark = spark
        self.once = once
        self._plan = plan
        self._store = store
        self._run_id = run_id
        self._checkpoint_dir = checkpoint_dir
        self._records: RecordFrame | None = None
        self._failure: BaseException | None = None

    def run(self, start: SinkStart, on_batch: BatchHandler, timeout_s: float | None = None) -> None:
        """Feed every batch to ``on_batch`` until the data available at start is written (``once``)
        or the query is stopped.

        ``timeout_s`` stops a streaming query after that long; a ``once`` run checks it between
        batches (a started batch is finished and committed).

        Raises:
            Exception: what ``on_batch`` raised, as it raised it.
        """
        source = self._source(start)
        if self.once:
            self._run_once(source.options(), on_batch, timeout_s)
        else:
            self._run_stream(source.encode(), on_batch, timeout_s)

    @functools.cached_property
    def _reader(self) -> RangeReader:
        """How the tasks read their ranges from Kafka: as the run's source would, headers only when
        something uses them (``bootstrap.servers`` is set: the command requires it, the library checks
        it for a DataFrame of ranges, :func:`.record_frames.check_writable`)."""
        reader = RangeReader.of(self._source(SinkStart()).options())
        needs_headers = (
            bool(self.settings.transforms)
            or self.settings.error_reporting.dlq_topic is not None  # a dead letter keeps the record's headers
            or any(headers_needed(statement) for statement in self._plan.statements)
        )
        return reader if needs_headers else reader.without_headers()

    def _run_once(self, options: SourceOptions, on_batch: BatchHandler, timeout_s: float | None) -> None:
        """The batches of ``Trigger.AvailableNow``, planned here on the driver, each handed over in turn."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        planner = BatchPlanner.connect(options)
        try:
            for batch_id, (start, end) in enumerate(planner.available_now()):
                ranges = planner.ranges(start, end)
                logger.info(
                    "Planned batch %d: %d ranges, %d offsets, up to %s",
                    batch_id,
                    len(ranges),
                    sum(r.size for r in ranges),
                    to_json(end),
                )
                on_batch(batch_id, ranges)
                if batch_id == 0:  # from the first commit on, a streaming checkpoint is behind
                    forget_streaming_checkpoint(self.spark, self._checkpoint_dir)
                if deadline is not None and time.monotonic() >= deadline:
                    logger.warning(
                        "Sink %s stops after batch %d: %s s timeout", self.settings.name, batch_id, timeout_s
                    )
                    return
            forget_streaming_checkpoint(self.spark, self._checkpoint_dir)  # also when nothing was new
        finally:
            planner.close()

    def _run_stream(self, options: dict[str, str], on_batch: BatchHandler, timeout_s: float | None) -> None:
        """The command's continuous run: the library's streaming sink over the run's source."""
        stream = self.spark.readStream.format(SOURCE_NAME).options(**options).load()
        observed = stream.observe(
            OBSERVATION,
            F.count(F.lit(1)).alias("ranges"),
            F.sum(F.col("end") - F.col("start")).alias("offsets"),
            F.max("end").alias("max_end"),
        )
        query = self.start_stream(
            observed,
            on_batch,
            name=f"lakesink-sink-{self.settings.name}",
            trigger={"processingTime": PROCESSING_TIME},
        )
        try:
            query.awaitTermination(timeout_s)
        except Exception:
            if self._failure is None:
                raise
        finally:
            if query.isActive:
                query.stop()
        if self._failure is not None:
            raise self._failure

    def _source(self, start: SinkStart) -> SinkSource:
        """The ``lakesink-kafka`` source of this run: where to start, the replay, admission, splitting.

        A ``--once`` run plans with its :meth:`~SinkSource.options`, a stream passes its strings.
        """
        return SinkSource(
            connector_client_settings(self.settings),
            topics=",".join(self.settings.topics) or None,
            topics_regex=self.settings.topics_regex,
            policy=AdmissionPolicy.for_flushes(statement.flush for statement in self._plan.statements),
            starting=start.offsets,
            first_batch_end=start.first_end,
            first_batch_chunks=start.first_chunks,
            max_range_offsets=self.settings.range_split_offsets or None,
        )

    def start_stream(
        self,
        df: DataFrame,
        on_batch: BatchHandler,
        *,
        name: str,
        trigger: Mapping[str, Any] | None = None,
    ) -> StreamingQuery:
        """Start the streaming query that hands every micro-batch of ``df`` to ``on_batch``.

        ``df`` holds offset ranges (:func:`.record_frames.is_range_frame`: the command's source,
        whose tasks read Kafka themselves) or records (:class:`.record_frames.RecordFrame`: a
        user's DataFrame). ``trigger`` is :meth:`DataStreamWriter.trigger`'s keywords (None:
        Spark's default). The query fails with the batch's error; the run's checkpoint is the query's.
        """

        def write_batch(batch: DataFrame, batch_id: int) -> None:
            try:
                self.write_frame(batch, batch_id, on_batch)
            except BaseException as exc:
                self._failure = exc
                raise

        writer = (
            df.writeStream.foreachBatch(write_batch)
            .option("checkpointLocation", self._checkpoint_dir)
            .queryName(name)
        )
        if trigger:
            writer = writer.trigger(**trigger)
        return writer.start()

    def write_frame(self, df: DataFrame, batch_id: int, on_batch: BatchHandler) -> None:
        """Hand one batch to ``on_batch``: the ranges ``df`` holds, or those of its records, which
        :meth:`write` then writes."""
        if is_range_frame(df):
            on_batch(batch_id, self._ranges(df))
            return
        records = RecordFrame.of(df)
        try:
            self._records = records
            on_batch(batch_id, records.ranges())
        finally:
            self._records = None
            records.release()

    def write(
        self,
        ranges: Sequence[OffsetRange],
        floors: Mapping[TopicPartition, int],
        granular: Mapping[TopicPartition, Mapping[str, int]],
        clock_ms: int,
    ) -> list[RangeResult]:
        """Write ``ranges`` on the executors, one task per range (``spark.range`` ids, see
        :func:`.sink_task.run_range_task`); records at or below ``floors`` (and Lenses ``granular``
        locks) are durable already and skipped; wall-clock transforms read ``clock_ms``. A failed
        range's result carries its error."""
        if not ranges:
            return []
        spec = SinkTaskSpec.for_settings(
            self.settings,
            plan=self._plan,
            store=self._store,
            run_id=self._run_id,
            floors=floors,
            granular=granular,
            clock_ms=clock_ms,
        )
        if self._records is not None:
            return self._records.write(spec, ranges)
        ids = self.spark.range(0, len(ranges), 1, max(1, len(ranges)))
        task = functools.partial(run_range_task, spec, self._reader, tuple(ranges))
        return [result_of(row.asDict(recursive=True)) for row in ids.mapInArrow(task, RESULT_DDL).collect()]

    def _ranges(self, df: DataFrame) -> list[OffsetRange]:
        """The streamed batch's ranges (a few rows), collected on the driver before any write task.

        Planning first means no write task runs the source's Python worker beside its own, so the
        pooled workers serve both (2 instead of 4 at ``local[2]``, ~450 MB; BENCHMARKS.md "Memory").
        The ranges live on the driver, so losing an executor costs nothing but the task's retry.
        """
        return ranges_in(df.toArrow())
