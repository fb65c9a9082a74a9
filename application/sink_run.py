"""``lakesink sink``, the use case: resume from the index, write each batch, commit it, report it.

:meth:`SinkRun.prepare` reads where to resume (the store's index, or the consumer group
at-least-once); :meth:`SinkRun.write_batch` hands a batch's ranges to the compute
(:class:`~.sink_ports.SinkCompute`), which returns what it made durable, and only then commits it
per topic-partition, after the dead letters (:class:`~.dead_letter_step.DeadLetterStep`).
See docs/sink.md, "One micro-batch" and "What each failure does".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from lakesink.application.dead_letter_step import DeadLetterStep
from lakesink.application.held_records import HeldRecords
from lakesink.application.sink_index import SinkIndex
from lakesink.application.sink_metrics import NO_METRICS, SinkMetrics, error_kind, per_topic
from lakesink.application.sink_ports import ConsumerGroup, LagGroup, SinkCompute, TopicMetadataPort
from lakesink.application.sink_tables import SinkTables
from lakesink.application.waiting import first_line, waiting_out
from lakesink.domain.commit.chunks import chunk_bounds
from lakesink.domain.commit.range_results import RangeResult, commit_points, first_failure
from lakesink.domain.commit.store_calls import perform, store_requests
from lakesink.domain.commit.store_probe import ignored_conditions, probe_key
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.enums import ErrorPolicy
from lakesink.domain.errors import CommitConflictError, ConfigError, PlanChangedError
from lakesink.domain.flush.rolls import RollReason, add_rolls
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import Clock, DeadLetterQueue, ObjectStore, SinkStart
from lakesink.domain.records import TopicPartition, positions_json
from lakesink.domain.statement_plan import SinkPlan
from lakesink.domain.subscription import TopicSelection
from lakesink.domain.transient import waits_out

logger = logging.getLogger(__name__)


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
    dead_letters: int = 0
    """Poison records sent to the dead-letter topic (a redone batch does not send them again)."""
    # --- for the metrics (application/sink_metrics.py) ---
    committed: Mapping[TopicPartition, int] = field(default_factory=dict)
    """The last offset the batch made durable, per topic-partition it committed."""
    lags: Mapping[TopicPartition, int] = field(default_factory=dict)
    """Records left behind the commit per topic-partition (high watermark - committed - 1); empty when unknown."""
    records_by_topic: Mapping[str, int] = field(default_factory=dict)
    bytes_by_topic: Mapping[str, int] = field(default_factory=dict)
    rolls: Mapping[RollReason, int] = field(default_factory=dict)
    """Files rolled by the reason they closed."""
    requests: int = 0
    """Store calls of the batch: the driver's (index, plans replayed) and its tasks' (plans, uploads)."""
    duration_ms: float = 0.0
    """From the batch's start to its commit, retries and waits included."""


class SinkRun:
    """One run of a sink: :meth:`prepare` reads where to resume, :meth:`run` writes and commits."""

    def __init__(
        self,
        settings: ConnectorSettings,
        plan: SinkPlan,
        *,
        store: ObjectStore,
        compute: SinkCompute,
        metadata: TopicMetadataPort | None,
        group: Callable[[], ConsumerGroup],
        run_id: str,
        clock: Clock,
        dead_letters: Callable[[], DeadLetterQueue] | None = None,
        metrics: SinkMetrics = NO_METRICS,
        tables: SinkTables | None = None,
        lag_group: Callable[[], LagGroup] | None = None,
    ) -> None:
        self.settings = settings
        self.compute = compute
        self.reports: list[BatchReport] = []
        self._plan = plan
        self._store = store
        self._metadata = metadata
        self._open_group = group
        self._run_id = run_id
        self._clock = clock
        self._index: SinkIndex | None = None
        self._group: ConsumerGroup | None = None
        self._start = SinkStart()
        self._held: HeldRecords | None = None
        self._open_dead_letters = dead_letters
        self._dead_letters: DeadLetterStep | None = None
        self._metrics = metrics
        self._tables = tables if tables else None
        self._open_lag_group = lag_group
        self._lag_group: LagGroup | None = None

    # --- start-up ------------------------------------------------------------------------

    def _check_conditions(self, buckets: Sequence[str]) -> None:
        """Refuse a store that ignores conditional writes: the index could not fence anybody there.

        In single-writer mode such a store is accepted with one WARN line: the conditions are still
        sent (a store that enforces them still fences), a store that ignores them makes every lock,
        plan and upload a plain overwrite, and the deterministic keys make a redo write the same bytes.

        Raises:
            ConfigError: the store applied a create over an object or a write on a foreign ETag, and
                single-writer mode is off.
        """
        settings = self.settings
        key = probe_key(settings.indexes_name, settings.name, self._run_id)
        ignoring = {bucket: perform(ignored_conditions(bucket, key), self._store) for bucket in buckets}
        ignoring = {bucket: ignored for bucket, ignored in ignoring.items() if ignored}
        if not ignoring:
            logger.debug("Store enforces conditional writes on %s", ", ".join(buckets))
            if settings.single_writer:
                logger.info(
                    "%s.exactly.once.single.writer=true, but the store enforces conditional writes: a second sink "
                    "named %s is still fenced", settings.prefix, settings.name,
                )
            return
        what = "; ".join(f"on bucket {bucket} ({'; '.join(ignored)})" for bucket, ignored in ignoring.items())
        if settings.single_writer:
            logger.warning(
                "Single-writer mode: the store ignores conditional writes %s. Locks, plans and objects are "
                "overwritten in place and there is no fencing of a second writer of the same name: run only one "
                "sink named %s at a time (docs/sink.md, Start-up)", what, settings.name,
            )
            return
        dialect = "" if settings.writing is None else "a Lenses config with "
        raise ConfigError(
            f"The store ignores conditional writes {what}: exactly-once "
            "cannot fence a second sink or a superseded task there, and would lose that silently. Use a store "
            "that enforces If-None-Match and If-Match (AWS S3, GCS, Azure, current MinIO), run at-least-once "
            f"({dialect}{settings.prefix}.exactly.once.enable=false), or promise a single writer "
            f"({dialect}{settings.prefix}.exactly.once.single.writer=true: no fencing)."
        )

    def prepare(self) -> None:
        """Check buckets and read where to resume: the index, or the consumer group (at-least-once)."""
        buckets = sorted({statement.bucket for statement in self._plan.statements})
        for bucket in buckets:
            self._store.check_bucket(bucket)
        if self.settings.exactly_once:
            self._check_conditions(buckets)
        partitions = self._known_partitions()
        if self.settings.exactly_once:
            index = self._index = SinkIndex(
                self._store,
                self._plan,
                connector=self.settings.name,
                indexes_name=self.settings.indexes_name,
                owner=self._run_id,
            )
            index.open(partitions)
            if self._tables is not None:
                _follow_tables(self._tables, index, partitions)
            self._start = SinkStart(
                index.starting_offsets(), index.first_batch_end(), index.first_batch_chunks()
            )
        else:
            self._group = self._open_group()
            self._start = SinkStart(self._group.committed(partitions))
        if self._open_dead_letters is not None and self._dead_letters is None:  # fences an older run, reads its marks
            self._dead_letters = DeadLetterStep(self._open_dead_letters(), partitions)
        if self.holds_records:
            earliest = self._metadata.earliest(partitions) if self._metadata is not None else {}
            self._held = HeldRecords({**earliest, **self._start.offsets})
        logger.info(
            "Sink %s (run %s) starts at %s", self.settings.name, self._run_id, positions_json(self._start.offsets)
        )
        chain = self.settings.transform_chain(self._clock)
        if chain.reads_wall_clock:
            logger.warning(chain.wall_clock_note())
        note = self.settings.writing.wall_clock_note() if self.settings.writing else None
        if note:
            logger.warning(note)

    def _known_partitions(self) -> list[TopicPartition]:
        """The partitions of the subscribed topics, when the run reads Kafka's metadata; else none
        (a DataFrame's partitions are opened batch by batch)."""
        if self._metadata is None:
            return []
        selection = TopicSelection(",".join(self.settings.topics) or None, self.settings.topics_regex)
        return self._metadata.partitions(selection)

    # --- the batches ------------------------------------------------------------------------

    def run(self, timeout_s: float | None = None) -> None:
        """Write until the data available at start is written (``--once``) or the run is stopped:
        :meth:`stop`, or ``timeout_s`` after the start (a started batch is finished and committed first).

        Raises:
            LakesinkError: the batch failure that stopped the run (fencing, poison record...).
        """
        try:
            if self._index is None and self._group is None:
                waiting_out("Start-up", self.prepare)
            self.compute.run(self._start, self.write_batch, timeout_s)
        finally:
            self.close()

    def stop(self) -> None:
        """End a continuous run after its batch in progress is committed (from any thread)."""
        self.compute.stop()

    def close(self) -> None:
        """Release the run's Kafka clients (topic metadata, consumer group, dead-letter producer)."""
        if self._metadata is not None:
            self._metadata.close()
        if self._group is not None:
            self._group.close()
        if self._lag_group is not None:
            self._lag_group.close()
            self._lag_group = None
        if self._dead_letters is not None:
            self._dead_letters.close()

    def write_batch(self, batch_id: int, ranges: Sequence[OffsetRange]) -> None:
        """One micro-batch: write its ranges (retried as ``error.policy`` says), then commit them.

        With exactly-once, a partition the run had not opened yet (a topic created since the start,
        or a DataFrame's batch) is claimed before it is written, and a range holding a pending plan
        of an earlier run is cut so that the plan's chunk is written whole, on its own: the source
        of a command run planned it so already, a user's DataFrame did not. A pending plan a range
        overlaps without holding it whole (a DataFrame's batch after a lost checkpoint) is rolled
        back first, and its records written afresh.

        Under a Confluent config that holds records back, each partition's ranges first become one
        range from its first record not yet durable (:class:`~.held_records.HeldRecords`).

        The batch reads one clock, through every retry: the time the pending plans it replays
        recorded, else now. When a store failure it waits out stopped some of its ranges, the
        partitions whose ranges all landed are committed before the wait and only the others run
        again: at a high fault rate a whole batch would seldom get through in one piece.
        """
        if self._held is not None:
            ranges = self._held.stretch(ranges)
        now_ms = self._clock.now_ms()
        begun = _Begun(time.perf_counter(), store_requests())
        batch = _Progress(list(ranges))

        def write_and_commit() -> None:
            chunks, replay_ms = self._replaying(batch.left)
            clock_ms = now_ms if replay_ms is None else replay_ms
            try:
                results = self._write_with_policy(chunks, clock_ms)
            except PlanChangedError as changed:
                if self._index is None:
                    raise
                # The same chunks again: those this attempt planned meet their own plans and objects.
                logger.warning("Batch %d replayed a pending plan with other records (%s): rolling it back", batch_id, changed)
                self._index.roll_back_held(chunks)
                results = self._write_with_policy(chunks, clock_ms)
            failure = first_failure(results)
            if failure is not None:  # one that is waited out (any other was raised)
                self._keep_whole_partitions(batch_id, batch, results)
                raise failure
            self._commit(batch_id, results, begun, batch)

        waiting_out(f"Batch {batch_id}", self._counting_failures(write_and_commit), lambda: len(batch.kept))

    def _keep_whole_partitions(self, batch_id: int, batch: _Progress, results: list[RangeResult]) -> None:
        """Commit the partitions of ``results`` none of whose ranges failed, and leave the batch only
        the others' ranges to run again. Partitions are committed one by one anyway (a crash between
        two lock writes is a state the index recovers from), so this is the same protocol, cut earlier."""
        failed = {(r.topic, r.partition) for r in results if r.failure is not None}
        whole = [r for r in results if (r.topic, r.partition) not in failed]
        if not whole:
            return
        done = {(r.topic, r.partition) for r in whole}
        batch.sent += self._make_durable(whole)
        batch.kept += whole
        batch.left = [r for r in batch.left if (r.topic, r.partition) not in done]
        logger.info("Batch %d: committed the %d partitions it wrote whole before the wait; %d run again",
                    batch_id, len(done), len(failed))

    def _counting_failures(self, step: Callable[[], None]) -> Callable[[], None]:
        """``step``, counting each failed attempt in the metrics (and the wait, when it is waited out)."""

        def counted() -> None:
            try:
                step()
            except Exception as error:
                self._metrics.batch_failed(error_kind(error))
                if waits_out(error):
                    self._metrics.waited()
                raise

        return counted

    def _replaying(self, ranges: Sequence[OffsetRange]) -> tuple[list[OffsetRange], int | None]:
        """The batch's ranges cut at the pending plans of their partitions (opened first), and
        the batch clock those plans recorded (None: none did)."""
        index = self._index
        if index is None:
            return list(ranges), None
        opened = index.open({(r.topic, r.partition) for r in ranges})
        if opened and self._tables is not None:  # before a replay or a roll-back touches their plans
            _locks_up_to_tables(self._tables, index, opened)
        pinned, clock_ms = index.replay(ranges)
        chunks = [
            OffsetRange(r.topic, r.partition, low, high)
            for r in ranges
            for low, high in chunk_bounds(r.start, r.end, None, pinned.get((r.topic, r.partition), ()))
        ]
        return chunks, clock_ms

    def _write_with_policy(self, ranges: Sequence[OffsetRange], clock_ms: int) -> list[RangeResult]:
        """The batch's results, with ``error.policy`` RETRY around the whole batch: a re-run writes the
        very same ranges. A fencing conflict is never retried. Failures the batch waits out (the
        store's) are returned in the results, for the caller to keep what landed whole and wait.

        Raises:
            LakesinkError: a range failed otherwise (the first, in topic-partition order) and no
                retry is left.
        """
        settings = self.settings
        attempt = 0
        while True:
            try:
                results = self._write(ranges, clock_ms)
                failure = first_failure(r for r in results if r.failure and not waits_out(r.failure.error()))
                if failure is not None:
                    raise failure
                return results
            except Exception as exc:
                retry = (
                    settings.error_policy is ErrorPolicy.RETRY
                    and attempt < settings.max_retries
                    and not isinstance(exc, CommitConflictError | ConfigError)
                    and not waits_out(exc)  # waited out by the caller, whatever the policy
                )
                if not retry:
                    raise
                self._metrics.batch_failed(error_kind(exc))
                attempt += 1
                logger.warning(
                    "Batch failed (%s); retry %d of %d in %d ms (error.policy=RETRY)",
                    first_line(exc),
                    attempt,
                    settings.max_retries,
                    settings.retry_interval_ms,
                )
                time.sleep(settings.retry_interval_ms / 1000)

    def _write(self, ranges: Sequence[OffsetRange], clock_ms: int) -> list[RangeResult]:
        index = self._index
        floors = index.floors() if index else {}
        granular = index.granular_floors() if index else {}
        return self.compute.write(ranges, floors, granular, clock_ms)

    def _commit(self, batch_id: int, results: list[RangeResult], begun: _Begun, batch: _Progress) -> None:
        """Make ``results`` durable and report the whole batch (with what it committed before a wait)."""
        started = time.perf_counter()
        sent = batch.sent + self._make_durable(results)
        finished = time.perf_counter()
        commit_ms = (finished - started) * 1000
        results = batch.kept + results
        ends = commit_points(results)
        lags = self._lags(ends)
        records_by_topic, bytes_by_topic = per_topic(results)
        report = BatchReport(
            batch_id=batch_id,
            records=sum(r.records for r in results),
            skipped=sum(r.skipped for r in results),
            poison=sum(r.poison for r in results),
            bytes=sum(r.bytes for r in results),
            files=tuple(key for r in results for key in r.files),
            lag=None if lags is None else sum(lags.values()),
            commit_ms=commit_ms,
            ranges=len(results),
            dead_letters=sent,
            committed=ends,
            lags=lags or {},
            records_by_topic=records_by_topic,
            bytes_by_topic=bytes_by_topic,
            rolls=add_rolls(r.rolls for r in results),
            requests=store_requests() - begun.requests + sum(r.requests for r in results),
            duration_ms=(finished - begun.started) * 1000,
        )
        self.reports.append(report)
        self._metrics.batch_committed(report)
        if self._tables is not None:
            self._tables.after_batch(self._clock.now_ms())  # after the locks: no commit of this run races it
        if results:
            logger.info(
                "Batch %d: %d records, %d bytes, %d files, %d skipped, %d poison skipped (%d to the dead-letter "
                "topic), lag %s, commit %.1f ms",
                batch_id,
                report.records,
                report.bytes,
                len(report.files),
                report.skipped,
                report.poison,
                report.dead_letters,
                report.lag,
                commit_ms,
            )

    def _make_durable(self, results: list[RangeResult]) -> int:
        """Commit what ``results`` wrote (locks or the consumer group), after sending their dead
        letters; returns how many were sent."""
        ends = commit_points(results)
        # before the commit: a crash in between redoes the batch, and the step sends nothing twice
        sent = self._dead_letters.before_commit(results, ends) if self._dead_letters is not None else 0
        if self._held is not None:
            self._held.committed(ends)
        kept_out = self._tables.commit(results) if self._tables is not None else set()
        if self._index is not None:
            # a partition no table holds yet keeps its lock (and its group offset) behind
            locked = {tp: last for tp, last in sorted(ends.items()) if tp not in kept_out}
            self._index.commit(locked)
            self._advise_lag_group(locked)
        elif self._group is not None:
            self._group.commit({tp: last + 1 for tp, last in ends.items()})
        return sent

    def _advise_lag_group(self, locked: Mapping[TopicPartition, int]) -> None:
        """Commit what the index now holds to the consumer group too: Kafka Connect's group is where lag
        tools look (advisory, :class:`~.sink_ports.LagGroup`: the index stays the truth)."""
        if self._open_lag_group is None or not locked:
            return
        if self._lag_group is None:
            self._lag_group = self._open_lag_group()
        self._lag_group.advise({tp: last + 1 for tp, last in locked.items()})

    @property
    def holds_records(self) -> bool:
        """Whether ranges may end with records held back in an open Confluent cycle (the next
        range must start at them)."""
        return any(
            statement.writing is not None and statement.writing.holds_records for statement in self._plan.statements
        )

    def _lags(self, ends: Mapping[TopicPartition, int]) -> dict[TopicPartition, int] | None:
        """Records left behind the batch's commit, per topic-partition; None when the broker cannot tell
        right now (the batch is committed: a broker gone since must not stop the sink over a number in a log line)."""
        if not ends or self._metadata is None:
            return None
        try:
            high = self._metadata.latest(list(ends))
        except ConnectionError as error:
            logger.debug("Lag unknown: %s", error)
            return None
        return {tp: max(0, high[tp] - (last + 1)) for tp, last in ends.items()}


def _follow_tables(tables: SinkTables, index: SinkIndex, partitions: Sequence[TopicPartition]) -> None:
    """Claim the statements' tables, then bring the partitions' locks up to them."""
    tables.claim(partitions)
    _locks_up_to_tables(tables, index, partitions)


def _locks_up_to_tables(tables: SinkTables, index: SinkIndex, partitions: Sequence[TopicPartition]) -> None:
    """Move up the locks a stopped run left behind its table commit (the table is the commit point:
    what it holds is written, and the plans it covers are dropped, never replayed or rolled back)."""
    floors = index.floors()
    behind = tables.behind({tp: floors.get(tp) for tp in partitions})
    for (topic, partition), last in behind.items():
        logger.info("Index of %s-%d is behind its table: moving it up to offset %d", topic, partition, last)
    if behind:
        index.commit(behind)


@dataclass(frozen=True, slots=True)
class _Begun:
    """When a batch started, and the driver's store calls until then (its duration and requests)."""

    started: float
    requests: int


@dataclass(slots=True)
class _Progress:
    """A batch through its waits: the ranges left to write, the results already committed (the
    partitions written whole by a failed attempt) and the dead letters those sent."""

    left: list[OffsetRange]
    kept: list[RangeResult] = field(default_factory=list)
    sent: int = 0

