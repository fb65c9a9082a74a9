"""``lakesink sink``: the streaming query that moves Kafka records into object storage.

The driver is thin: settings → plan → store → index (:mod:`.sink_index`) → starting offsets →
batches. A continuous run streams: ``lakesink-kafka`` stream → ``foreachBatch(write_batch)``. A
``--once`` run needs no streaming machinery (the index or the consumer group says where to start):
it drives the source's :class:`~lakesink.adapters.kafka.batch_planner.BatchPlanner` on the driver
exactly as ``Trigger.AvailableNow`` would (same batches, same ranges, batch ids 0, 1, 2…) and
removes a streaming checkpoint left behind (:mod:`.sink_checkpoint`). Each batch runs the writers on the
executors (:func:`.sink_task.run_range_task` through ``mapInArrow``: one task per range, no
shuffle; the source runs with ``rangesOnly`` so each task reads its range from Kafka itself and no
record crosses the JVM; ``connect.<p>.range.split.offsets`` cuts a partition's range into chunks,
one task each), collects one small row per range, and only then commits, per topic-partition, the
highest offset its chunks reached: the index (exactly-once) or the consumer group
(at-least-once). docs/sink.md describes the protocol and every failure. The observed metrics of
a stream count ranges and offsets; the records written are in the batch log
(:class:`BatchReport`).
"""

from __future__ import annotations

import functools
import json
import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from lakesink.adapters.kafka.batch_planner import BatchPlanner
from lakesink.adapters.kafka.client_config import admin_config
from lakesink.adapters.kafka.group_offsets import GroupOffsets, connect_group_id
from lakesink.adapters.kafka.offsets import FIRST_BATCH_CHUNKS, OffsetRange, chunks_to_json, to_json
from lakesink.adapters.kafka.range_rows import RangeReader, ranges_in
from lakesink.adapters.kafka.source import SOURCE_NAME
from lakesink.adapters.kafka.source_options import (
    MAX_RANGE_OFFSETS,
    RANGES_ONLY,
    SourceOptions,
    encode_options,
)
from lakesink.adapters.kafka.topic_metadata import TopicMetadata
from lakesink.adapters.kafka.topic_selection import TopicSelection
from lakesink.adapters.spark.session_launch import SessionLaunch
from lakesink.adapters.storage import open_store
from lakesink.application.executor_errors import lakesink_error_of
from lakesink.application.record_decoding import headers_needed
from lakesink.application.sink_checkpoint import default_checkpoint, forget_streaming_checkpoint
from lakesink.application.sink_index import SinkIndex, TopicPartition
from lakesink.application.sink_task import RESULT_DDL, FaultInjection, SinkTaskSpec, run_range_task
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.enums import ErrorPolicy
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import CommitConflictError
from lakesink.domain.ports import ObjectStore
from lakesink.domain.statement_plan import SinkPlan, plan_sink

logger = logging.getLogger(__name__)

PROCESSING_TIME = "2 seconds"
OBSERVATION = "lakesink"


@dataclass(frozen=True, slots=True)
class BatchReport:
    """What one micro-batch made durable (also logged at INFO)."""

    batch_id: int
    records: int
    skipped: int
    poison: int
    bytes: int
    files: tuple[str, ...]
    lag: int | None
    commit_ms: float
    ranges: int = 0
    """Ranges (tasks) the batch wrote: one per chunk of each partition that advanced."""


class SinkJob:
    """One sink run on a SparkSession: :meth:`prepare` reads the index, :meth:`run` writes.

    ``fault`` is the documented test-only fault injection of :mod:`.sink_task`.
    """

    def __init__(
        self,
        settings: ConnectorSettings,
        spark: SparkSession,
        *,
        checkpoint_dir: str | None = None,
        once: bool = False,
        store: ObjectStore | None = None,
        fault: FaultInjection | None = None,
    ) -> None:
        self.settings = settings
        self.spark = spark
        self.checkpoint_dir = checkpoint_dir or default_checkpoint(settings)
        self.once = once
        self.run_id = str(uuid.uuid4())
        self.plan: SinkPlan = plan_sink(settings)
        self.store = store or open_store(settings.backend, settings.storage)
        self.reports: list[BatchReport] = []
        self.recent_progress: list[Any] = []
        self._fault = fault
        self._failure: BaseException | None = None
        self._index: SinkIndex | None = None
        self._group: GroupOffsets | None = None
        self._starting: dict[TopicPartition, int] = {}
        self._first_end: dict[TopicPartition, int] = {}
        self._first_chunks: dict[TopicPartition, tuple[tuple[int, int], ...]] = {}
        self._reader: RangeReader | None = None
        self._metadata = TopicMetadata(admin_config(self._client_settings()), read_committed=True)

    # --- start-up ------------------------------------------------------------------------

    def prepare(self) -> None:
        """Check buckets and read where to resume: the index, or the consumer group (at-least-once)."""
        for bucket in sorted({statement.bucket for statement in self.plan.statements}):
            self.store.check_bucket(bucket)
        partitions = self._metadata.partitions(TopicSelection(self._topics(), self.settings.topics_regex))
        if self.settings.exactly_once:
            self._index = SinkIndex(
                self.store,
                self.plan,
                connector=self.settings.name,
                indexes_name=self.settings.indexes_name,
                owner=self.run_id,
            )
            self._index.open(partitions)
            self._starting = self._index.starting_offsets()
            self._first_end = self._index.first_batch_end()
            self._first_chunks = self._index.first_batch_chunks()
        else:
            self._group = GroupOffsets(self._client_settings(), connect_group_id(self.settings.name))
            self._starting = self._group.committed(partitions)
        logger.info("Sink %s (run %s) starts at %s", self.settings.name, self.run_id, to_json(self._starting))

    # --- the query ------------------------------------------------------------------------

    def run(self, timeout_s: float | None = None) -> None:
        """Write until the data available at start is written (``once``) or the query is stopped.

        ``timeout_s`` stops a streaming query after that long; a ``once`` run checks it between
        batches (a started batch is finished and committed).

        Raises:
            LakesinkError: the batch failure that stopped the run (fencing, poison record...).
        """
        if self._index is None and self._group is None:
            self.prepare()
        options = self._source_options()
        parsed = SourceOptions.parse(options)
        reader = RangeReader.of(parsed)
        needs_headers = any(headers_needed(statement) for statement in self.plan.statements)
        self._reader = reader if needs_headers else reader.without_headers()
        if self.once:
            self._run_once(parsed, timeout_s)
        else:
            self._run_stream(options, timeout_s)

    def _run_once(self, options: SourceOptions, timeout_s: float | None) -> None:
        """The batches of ``Trigger.AvailableNow``, planned here on the driver, each written and committed."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        planner = BatchPlanner.connect(options)
        try:
            for batch_id, (start, end) in enumerate(planner.available_now()):
                ranges = planner.ranges(start, end)
                logger.info(
                    "Planned batch %d: %d ranges, %d offsets, up to %s",
                    batch_id, len(ranges), sum(r.size for r in ranges), to_json(end),
                )
                rows = self._write_with_policy(ranges) if ranges else []
                self._commit(batch_id, rows)
                if batch_id == 0:  # from the first commit on, a streaming checkpoint is behind
                    forget_streaming_checkpoint(self.spark, self.checkpoint_dir)
                if deadline is not None and time.monotonic() >= deadline:
                    logger.warning("Sink %s stops after batch %d: %s s timeout", self.settings.name, batch_id, timeout_s)
                    return
            forget_streaming_checkpoint(self.spark, self.checkpoint_dir)  # also when nothing was new
        except Exception as exc:
            failure = self._failure_of(exc)
            if failure is exc:
                raise
            raise failure from exc
        finally:
            planner.close()
            self._close()

    def _run_stream(self, options: dict[str, str], timeout_s: float | None) -> None:
        query = self._start(options)
        try:
            query.awaitTermination(timeout_s)
        except Exception as exc:
            raise self._failure_of(exc) from exc
        finally:
            self.recent_progress = list(query.recentProgress)
            if query.isActive:
                query.stop()
            self._close()
        if self._failure is not None:
            raise self._failure

    def _source_options(self) -> dict[str, str]:
        """The ``lakesink-kafka`` options of this run: where to start, the replay, admission, splitting."""
        options: dict[str, str | Secret] = {
            **self._client_settings(), **self._admission(), RANGES_ONLY: "true"
        }
        topics = self._topics()
        options["topics" if topics else "topics.regex"] = topics or self.settings.topics_regex or ""
        if self._starting:
            options["startingOffsets"] = _json(to_json(self._starting))
        if self._first_end:
            options["firstBatchEndOffsets"] = _json(to_json(self._first_end))
            options[FIRST_BATCH_CHUNKS] = _json(chunks_to_json(self._first_chunks))
        if self.settings.range_split_offsets:
            options[MAX_RANGE_OFFSETS] = str(self.settings.range_split_offsets)
        return encode_options(options)

    def _start(self, options: dict[str, str]) -> Any:
        stream = self.spark.readStream.format(SOURCE_NAME).options(**options).load()
        observed = stream.observe(
            OBSERVATION,
            F.count(F.lit(1)).alias("ranges"),
            F.sum(F.col("end") - F.col("start")).alias("offsets"),
            F.max("end").alias("max_end"),
        )
        return (
            observed.writeStream.foreachBatch(self.write_batch)
            .option("checkpointLocation", self.checkpoint_dir)
            .queryName(f"lakesink-sink-{self.settings.name}")
            .trigger(processingTime=PROCESSING_TIME)
            .start()
        )

    def write_batch(self, df: DataFrame, batch_id: int) -> None:
        """foreachBatch: write on the executors, then commit on the driver."""
        try:
            rows = self._write_with_policy(self._ranges(df))
            self._commit(batch_id, rows)
        except BaseException as exc:
            self._failure = self._failure_of(exc)
            raise

    def _write_with_policy(self, ranges: Sequence[OffsetRange]) -> list[Any]:
        """One task per range (``spark.range`` ids, see :func:`.sink_task.run_range_task`), with
        ``error.policy`` RETRY around the whole batch: a re-run writes the very same ranges."""
        settings = self.settings
        ids = self.spark.range(0, len(ranges), 1, max(1, len(ranges)))
        attempt = 0
        while True:
            task = functools.partial(run_range_task, self._task_spec(), self._reader, tuple(ranges))
            try:
                return ids.mapInArrow(task, RESULT_DDL).collect()
            except Exception as exc:
                error = lakesink_error_of(exc)
                retry = (
                    settings.error_policy is ErrorPolicy.RETRY
                    and attempt < settings.max_retries
                    and not isinstance(error, CommitConflictError)
                )
                if not retry:
                    raise
                attempt += 1
                logger.warning(
                    "Batch failed (%s); retry %d of %d in %d ms (error.policy=RETRY)",
                    error or type(exc).__name__, attempt, settings.max_retries, settings.retry_interval_ms,
                )
                time.sleep(settings.retry_interval_ms / 1000)

    def _ranges(self, df: DataFrame) -> list[OffsetRange]:
        """The streamed batch's ranges (a few rows), collected on the driver before any write task.

        Planning first means no write task runs the source's Python worker beside its own, so the
        pooled workers serve both (2 instead of 4 at ``local[2]``, ~450 MB; BENCHMARKS.md "Memory").
        The ranges live on the driver, so losing an executor costs nothing but the task's retry.
        """
        return ranges_in(df.toArrow())

    def _task_spec(self) -> SinkTaskSpec:
        return SinkTaskSpec.for_settings(
            self.settings,
            plan=self.plan,
            store=self.store,
            run_id=self.run_id,
            floors=self._index.floors() if self._index else None,
            granular=self._index.granular_floors() if self._index else None,
            fault=self._fault,
        )

    def _commit(self, batch_id: int, rows: list[Any]) -> None:
        started = time.perf_counter()
        ends: dict[TopicPartition, int] = {}
        for row in rows:  # one row per chunk: a partition's commit is the highest offset any chunk read
            if row["last"] >= 0:
                tp = (row["topic"], row["partition"])
                ends[tp] = max(ends.get(tp, -1), row["last"])
        if self._index is not None:
            for (topic, partition), last in sorted(ends.items()):
                self._index.commit(topic, partition, last)
        elif self._group is not None:
            self._group.commit({tp: last + 1 for tp, last in ends.items()})
        commit_ms = (time.perf_counter() - started) * 1000
        report = BatchReport(
            batch_id=batch_id,
            records=sum(row["records"] for row in rows),
            skipped=sum(row["skipped"] for row in rows),
            poison=sum(row["poison"] for row in rows),
            bytes=sum(row["bytes"] for row in rows),
            files=tuple(key for row in rows for key in row["files"]),
            lag=self._lag(ends),
            commit_ms=commit_ms,
            ranges=len(rows),
        )
        self.reports.append(report)
        if rows:
            logger.info(
                "Batch %d: %d records, %d bytes, %d files, %d skipped, %d poison skipped, lag %s, commit %.1f ms",
                batch_id, report.records, report.bytes, len(report.files), report.skipped, report.poison,
                report.lag, commit_ms,
            )

    def _lag(self, ends: Mapping[TopicPartition, int]) -> int | None:
        if not ends:
            return None
        high = self._metadata.latest(list(ends))
        return sum(max(0, high[tp] - (last + 1)) for tp, last in ends.items())

    # --- helpers --------------------------------------------------------------------------

    def _topics(self) -> str | None:
        return ",".join(self.settings.topics) or None

    def _client_settings(self) -> dict[str, str | Secret]:
        settings: dict[str, str | Secret] = {
            key: value if isinstance(value, Secret) else str(value)
            for key, value in self.settings.kafka_client.items()
        }
        settings["bootstrap.servers"] = self.settings.bootstrap_servers or ""
        return settings

    def _admission(self) -> dict[str, str]:
        """The source's admission options: the smallest flush.count and flush.interval of any statement."""
        counts = [s.flush.count for s in self.plan.statements if s.flush.count is not None]
        intervals = [s.flush.interval_ms for s in self.plan.statements]
        options = {"flush.interval": str(min(intervals) / 1000)}
        if counts:
            options["flush.count"] = str(min(counts))
        return options

    def _failure_of(self, exc: BaseException) -> BaseException:
        if self._failure is not None:
            return self._failure
        return lakesink_error_of(exc) or exc

    def _close(self) -> None:
        self._metadata.close()
        if self._group is not None:
            self._group.close()


def _json(document: object) -> str:
    return json.dumps(document, separators=(",", ":"))


def run_sink(settings: ConnectorSettings, launch: SessionLaunch, *, once: bool, checkpoint: str | None = None) -> int:
    """The ``lakesink sink`` use case on a session that is starting; returns the number of records written.

    The caller validated ``settings`` (:func:`.sink_settings.load_settings`) before it started
    ``launch``, and imported this module while the JVM started; leaving ``launch``'s ``with`` block
    (the caller's or this one's) stops the session.

    Raises:
        LakesinkError: the query failed.
    """
    with launch:
        job = SinkJob(settings, launch.session(), checkpoint_dir=checkpoint, once=once)
        job.run()
    return sum(report.records for report in job.reports)
