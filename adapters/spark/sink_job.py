"""The sink's batches on Spark: which ranges each micro-batch holds, and the tasks that write them.

:class:`SparkSink` is the compute adapter of the sink use case. It drives the source's
:class:`~lakesink.adapters.kafka.batch_planner.BatchPlanner` on the driver (no streaming query:
no job to collect ranges, no offset logs, no trigger wait) and writes a batch with a few tasks per
core through ``mapPartitions`` (:func:`.sink_task.run_range_task`), no record crossing the JVM.
See docs/sink.md, "Batches planned on the driver" and "One micro-batch".
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery

from lakesink.adapters.formats.record_decoding import headers_needed
from lakesink.adapters.kafka.batch_planner import BatchPlanner
from lakesink.adapters.kafka.client_config import connector_client_settings
from lakesink.adapters.kafka.range_rows import RangeReader, ranges_in
from lakesink.adapters.kafka.sink_source import SinkSource
from lakesink.adapters.spark.record_frames import RecordFrame, is_range_frame
from lakesink.adapters.spark.sink_checkpoint import forget_streaming_checkpoint
from lakesink.adapters.spark.sink_task import run_range_task
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.flush.admission import AdmissionPolicy
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import ObjectStore, SinkStart
from lakesink.domain.range_groups import range_groups
from lakesink.domain.records import TopicPartition, positions_json
from lakesink.domain.statement_plan import SinkPlan

logger = logging.getLogger(__name__)

POLL_S = 1.0
"""How often a continuous run asks Kafka for new records while no flush interval runs out sooner
(the streaming query it replaced triggered every 2 s, and a batch then waited for the trigger)."""

BatchHandler = Callable[[int, Sequence[OffsetRange]], None]
"""What the use case does with one micro-batch: ``(batch_id, ranges)``; it calls :meth:`SparkSink.write`."""


class SparkSink:
    """One sink run's batches on a SparkSession: :meth:`run` feeds them to a handler, :meth:`write` writes one."""

    def __init__(
        self,
        settings: ConnectorSettings,
        plan: SinkPlan,
        spark: SparkSession | Callable[[], SparkSession],
        store: ObjectStore,
        *,
        run_id: str,
        checkpoint_dir: str,
        once: bool,
    ) -> None:
        self.settings = settings
        self._spark = spark
        self.once = once
        self._plan = plan
        self._store = store
        self._run_id = run_id
        self._checkpoint_dir = checkpoint_dir
        self._records: RecordFrame | None = None
        self._stopping = threading.Event()
        self._planner: BatchPlanner | None = None

    @functools.cached_property
    def spark(self) -> SparkSession:
        """The session; given as a callable (a session still starting), it is asked for at the first
        batch, so a run with nothing to write never waits for the JVM (``--once`` on an empty topic)."""
        return self._spark if isinstance(self._spark, SparkSession) else self._spark()

    def run(self, start: SinkStart, on_batch: BatchHandler, timeout_s: float | None = None) -> None:
        """Feed every batch to ``on_batch`` until the data available at start is written (``once``),
        or until :meth:`stop` or ``timeout_s`` (None: until the process ends).

        Both modes plan on the driver with the source's :class:`BatchPlanner`: ``once`` the batches of
        ``Trigger.AvailableNow``, a continuous run those a streaming query would run
        (:meth:`BatchPlanner.continuous`). The store's index (or the consumer group) says where a
        run starts, so no Spark checkpoint is read; one an earlier version's streaming query left
        at the checkpoint location is removed after the first commit (:mod:`.sink_checkpoint`). A
        started batch is finished and committed before a stop or the timeout ends the run.
        Nothing touches the session before the first batch.

        Raises:
            Exception: what ``on_batch`` raised, as it raised it.
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s

        def stopping(seconds: float = 0.0) -> bool:
            """Wait up to ``seconds`` for a stop; whether the run must stop now."""
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return True
            return self._stopping.wait(seconds if left is None else min(seconds, left))

        planner = self._planner = BatchPlanner.connect(self._source(start).options())
        batches = planner.available_now() if self.once else planner.continuous(POLL_S, stopping)
        try:
            for batch_id, (begin, end) in enumerate(batches):
                ranges = planner.ranges(begin, end)
                logger.info(
                    "Planned batch %d: %d ranges, %d offsets, up to %s",
                    batch_id,
                    len(ranges),
                    sum(r.size for r in ranges),
                    positions_json(end),
                )
                on_batch(batch_id, ranges)
                if batch_id == 0:  # from the first commit on, a streaming checkpoint is behind
                    forget_streaming_checkpoint(self.spark, self._checkpoint_dir)
                if stopping():
                    if self.once and not self._stopping.is_set():
                        logger.warning("Sink %s stops after batch %d: %s s timeout", self.settings.name, batch_id, timeout_s)
                    break
        finally:
            planner.close()
        if not self.once:
            logger.info("Sink %s stopped; its next batch starts at %s", self.settings.name, positions_json(self.position))

    def stop(self) -> None:
        """End a run after its batch in progress is committed (from any thread or a signal handler)."""
        self._stopping.set()

    @property
    def position(self) -> Mapping[TopicPartition, int]:
        """Where a continuous run's next batch starts (empty before it started)."""
        return {} if self._planner is None else dict(self._planner.position)

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

        ``df`` holds offset ranges (:func:`.record_frames.is_range_frame`: ``lakesink-kafka`` with
        ``rangesOnly``, whose tasks read Kafka themselves) or records (:class:`.record_frames.RecordFrame`: a
        user's DataFrame). ``trigger`` is :meth:`DataStreamWriter.trigger`'s keywords (None:
        Spark's default). The query fails with the batch's error; the run's checkpoint is the query's.
        """

        def write_batch(batch: DataFrame, batch_id: int) -> None:
            self.write_frame(batch, batch_id, on_batch)

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
        """Write ``ranges`` on the executors, a few tasks per core (an RDD of groups of range ids, see
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
        context = self.spark.sparkContext
        groups = range_groups(ranges, context.defaultParallelism)
        task = functools.partial(run_range_task, spec, self._reader, tuple(ranges))
        return context.parallelize(groups, len(groups)).mapPartitions(task).collect()

    def _ranges(self, df: DataFrame) -> list[OffsetRange]:
        """The streamed batch's ranges (a few rows), collected on the driver before any write task.

        Planning first means no write task runs the source's Python worker beside its own, so the
        pooled workers serve both (2 instead of 4 at ``local[2]``, ~450 MB; BENCHMARKS.md "Memory").
        The ranges live on the driver, so losing an executor costs nothing but the task's retry.
        """
        return ranges_in(df.toArrow())
