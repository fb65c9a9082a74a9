"""The executor side of one sink micro-batch: write, plan, upload (one Spark task per range).

:func:`run_task` writes Arrow batches of Kafka records; the sink's ``mapPartitions`` runs
:func:`run_range_task`, which reads each range the driver planned and feeds it to :func:`run_task`.
Per topic-partition range it

1. decodes the Kafka rows (:mod:`.record_decoding`; a batch whose raw values are written as
   lines takes the columnar path instead, :mod:`.encoded_lines`), drops what is already
   durable — offsets at or below the master lock's committed offset (a Spark checkpoint behind
   the index) and, for a writer with a Lenses granular lock, offsets at or below that lock — and tombstones when
   ``skip.null.values`` is set;
2. writes the rest into staging files (:class:`~.range_writer.RangeWriter`; under a Confluent
   config :class:`~.cycle_writer.CycleWriter`, whose open cycle may be held back for the next range;
   under an Aiven config :class:`~.aiven_files.AivenFiles`, one file per group);
3. with exactly-once, records the range in a create-only plan object (:mod:`lakesink.domain.commit.range_plans`)
   BEFORE uploading anything, then uploads every file create-only (:func:`lakesink.domain.commit.engine.make_range_durable`); an object
   already there from an earlier attempt of the same plan is accepted when its size matches
   (Aiven's key-grouped objects hold a key's latest record and are overwritten instead);
4. returns what it made durable, one :class:`~lakesink.domain.commit.range_results.RangeResult`
   per range (pickled as it is through ``mapPartitions``; a row of :mod:`.task_results` through a
   library DataFrame's ``mapInArrow``); the driver commits it.

A lakesink error (a poison record under ``error.policy=THROW``, a fenced plan, a store error the
SDK's retries did not cure) ends the task with a result carrying the error's class and message
instead of an exception: the driver rebuilds it and applies ``error.policy``. Anything else (a bug,
a dying worker) fails the task, and Spark retries it.
"""

from __future__ import annotations

import errno
import logging
import tempfile
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pyarrow as pa

from lakesink.adapters.collector import collector_paused
from lakesink.adapters.formats.aiven_files import AivenFiles
from lakesink.adapters.formats.columnar_parquet import takes_rows, write_rows
from lakesink.adapters.formats.columnar_transforms import ColumnarChain
from lakesink.adapters.formats.cycle_writer import CycleWriter
from lakesink.adapters.formats.encoded_lines import encode_lines, single_partition, takes_lines
from lakesink.adapters.formats.parquet_footer import parquet_footer
from lakesink.adapters.formats.range_writer import RangeWriter
from lakesink.adapters.formats.record_decoding import (
    Converters,
    RawRow,
    canonical_converter,
    headers_decoded,
    key_needed,
    raw_rows,
    raw_value_passthrough,
)
from lakesink.adapters.kafka.range_rows import RangeReader
from lakesink.adapters.native_heap import return_free_heap
from lakesink.adapters.spark.task_results import RESULT_SCHEMA, task_row
from lakesink.adapters.storage.store_calls import RequestCount, perform
from lakesink.domain.commit.actions import UploadFile
from lakesink.domain.commit.engine import IndexScope, make_range_durable
from lakesink.domain.commit.lock_keys import granular_partition_key
from lakesink.domain.commit.range_plans import RangePlan
from lakesink.domain.commit.range_results import RangeFailure, RangeResult
from lakesink.domain.config.catalog import SIMPLE_HEADER_CONVERTER
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.enums import ErrorPolicy
from lakesink.domain.config.error_reporting import ErrorReporting
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.dead_letters import DeadLetter, Stage
from lakesink.domain.errors import LakesinkError, RecordError, StagingFullError
from lakesink.domain.flush.rolls import count_rolls
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import ObjectStore
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import SinkPlan, StatementPlan
from lakesink.domain.tables.table_port import DataFile
from lakesink.domain.transforms.chain import BatchClock, TransformChain

logger = logging.getLogger(__name__)


_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
"""The errors of a write to a full disk (or a full quota): the environment's, not the data's."""


@dataclass(frozen=True)
class SinkTaskSpec:
    """Everything a task needs, built on the driver and shipped (pickled) with the closure."""

    plan: SinkPlan
    store: ObjectStore
    connector: str
    indexes_name: str
    setting_prefix: str
    run_id: str
    exactly_once: bool
    skip_null_values: bool
    skip_poison: bool
    """``error.policy=NOOP`` (a Confluent or Aiven sink's ``errors.tolerance=all``): every poison record is skipped."""
    staging_root: str | None
    key_converter: ConverterSettings
    value_converter: ConverterSettings
    header_converter: ConverterSettings = ConverterSettings()
    floors: Mapping[TopicPartition, int] = field(default_factory=dict)
    granular: Mapping[TopicPartition, Mapping[str, int]] = field(default_factory=dict)
    chain: TransformChain = field(default_factory=TransformChain)
    clock_ms: int | None = None
    """The batch clock the chain's wall-clock transforms read, recorded in the range plans; None: none does."""
    reporting: ErrorReporting = ErrorReporting()
    """Where skipped poison records are reported: kept as dead letters when there is a dead-letter topic."""
    tolerate_record_errors: bool = False
    """A Lenses config's ``errors.tolerance=all``: a record a converter or a transform fails on is
    skipped, as Kafka Connect skips it before the connector's ``put``; a record the writer refuses
    still follows ``error.policy``."""

    @cached_property
    def dialect_config(self) -> bool:
        """Whether the config is a Confluent or Aiven sink's (its settings, its files), not a Lenses one."""
        return any(statement.dialect is not None for statement in self.plan.statements)

    def skips(self, stage: Stage) -> bool:
        """Whether a record that fails at ``stage`` is skipped rather than failing the batch."""
        return self.skip_poison or (self.tolerate_record_errors and stage is not Stage.TASK_PUT)

    def skip_setting(self, stage: Stage) -> str:
        """The setting that skips a record failing at ``stage``: Kafka Connect's tolerance where it
        reaches (a Confluent or Aiven sink's writes too), else Lenses' error policy."""
        if self.dialect_config or stage is not Stage.TASK_PUT:
            return "errors.tolerance=all"
        return f"{self.setting_prefix}.error.policy=NOOP"

    @property
    def staging_setting(self) -> str:
        """What moves the staging directory: Lenses' setting, or (a Confluent or Aiven config has
        none) the executors' temporary directory."""
        return "the executors' TMPDIR" if self.dialect_config else f"{self.setting_prefix}.local.tmp.directory"

    @property
    def columnar(self) -> bool:
        """Whether batches may take the columnar paths: not under a Confluent or Aiven config,
        whose files are placed record by record."""
        return not self.dialect_config

    @cached_property
    def chain_headers(self) -> bool:
        """Whether the chain sees converted headers: when some statement it may route to uses them
        (else it sees the bytes, which the ``list`` layout stores exactly)."""
        return any(headers_decoded(statement) for statement in self.plan.statements)

    @classmethod
    def for_settings(
        cls,
        settings: ConnectorSettings,
        *,
        plan: SinkPlan,
        store: ObjectStore,
        run_id: str,
        staging_root: str | None = None,
        floors: Mapping[TopicPartition, int] | None = None,
        granular: Mapping[TopicPartition, Mapping[str, int]] | None = None,
        clock_ms: int = 0,
    ) -> SinkTaskSpec:
        """The spec of one batch: what the connector settings decide, plus this run's state.

        ``clock_ms`` is the batch clock the settings' transforms read. Any chain records it in the
        range plans, not only one that reads the wall clock on purpose: a transform may fall back to
        the clock (Lenses' timestamp headers do for a record without a timestamp), and a replay must
        see the same time.
        """
        chain = settings.transform_chain(BatchClock(clock_ms))
        reads_clock = bool(chain) or (settings.dialect is not None and settings.dialect.reads_clock)
        return cls(
            plan=plan,
            store=store,
            connector=settings.name,
            indexes_name=settings.indexes_name,
            setting_prefix=settings.prefix,
            run_id=run_id,
            exactly_once=settings.exactly_once,
            skip_null_values=settings.skip_null_values,
            skip_poison=settings.error_policy is ErrorPolicy.NOOP,
            staging_root=staging_root or settings.local_tmp_directory,
            key_converter=settings.key_converter,
            value_converter=settings.value_converter,
            header_converter=settings.header_converter,
            floors=floors or {},
            granular=granular or {},
            chain=chain,
            clock_ms=clock_ms if reads_clock else None,
            reporting=settings.error_reporting,
            tolerate_record_errors=settings.tolerate_record_errors,
        )

    def stage_class(self, stage: Stage) -> str:
        """The Connect class name of a converter stage (the ``class.name`` header of a dead letter)."""
        if stage is Stage.KEY_CONVERTER:
            return canonical_converter(self.key_converter) or _BYTES_CONVERTER
        if stage is Stage.VALUE_CONVERTER:
            return canonical_converter(self.value_converter) or _BYTES_CONVERTER
        return canonical_converter(self.header_converter) or SIMPLE_HEADER_CONVERTER


_BYTES_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
"""lakesink's converter when none is set: the bytes as read."""


@dataclass(frozen=True)
class _Route:
    """Where the records of one topic-partition go, resolved once per range instead of per record.

    ``values`` are the partition values of every record of the range when the layout reads only
    topic and partition (default layout, NOPARTITION, ``_topic``/``_partition``), else None.
    """

    writer: RangeWriter | CycleWriter | AivenFiles
    statement: StatementPlan
    decode_key: bool
    decode_value: bool
    values: PartitionValues | None
    decode_headers: bool = True


@dataclass
class _Range:
    """The state of one topic-partition range inside a task.

    ``floor`` is the offset at or below which records are already durable; ``locks`` are the
    range's Lenses granular locks (writer name → offset), empty when it has none. ``route`` is
    where the range's records go; ``routed`` holds the routes of the topics a router transform
    renamed them to (the statement, writer and object keys follow the new topic, as in Connect;
    the range's index entry stays under the topic read).
    """

    topic: str
    partition: int
    floor: int | None = None
    locks: Mapping[str, int] = field(default_factory=dict)
    writers: dict[tuple[int, str], RangeWriter] = field(default_factory=dict)
    dialect_files: CycleWriter | AivenFiles | None = None
    """The range's files under a Confluent config (one cycle per topic-partition, whatever the topic a router
    picks) or an Aiven config (one flush)."""
    route: _Route | None = None
    routed: dict[str, _Route] = field(default_factory=dict)
    first: int = -1
    last: int = -1
    records: int = 0
    skipped: int = 0
    poison: int = 0
    dead_letters: list[DeadLetter] = field(default_factory=list)

    def writer(
        self, index: int, statement: StatementPlan, root: Path, topic: str | None = None
    ) -> RangeWriter:
        """The writer of statement ``index`` for records of ``topic`` (default: the range's), created on first use."""
        topic = topic or self.topic
        writer = self.writers.get((index, topic))
        if writer is None:
            writer = self.writers[index, topic] = RangeWriter(statement, topic, self.partition, root)
        return writer

    def _dialect_files(self, spec: SinkTaskSpec, root: Path) -> CycleWriter | AivenFiles:
        if self.dialect_files is None:
            statement = spec.plan.statements[0]
            if statement.confluent is not None:
                self.dialect_files = CycleWriter(statement.confluent, statement.bucket, self.partition, root, spec.clock_ms)
            else:
                assert statement.aiven is not None
                self.dialect_files = AivenFiles(statement.aiven, statement.bucket, root, spec.clock_ms)
        return self.dialect_files

    def all_writers(self) -> list[RangeWriter | CycleWriter | AivenFiles]:
        """Every writer of the range."""
        dialect: list[RangeWriter | CycleWriter | AivenFiles] = [self.dialect_files] if self.dialect_files is not None else []
        return [*self.writers.values(), *dialect]

    def resolve(self, spec: SinkTaskSpec, root: Path) -> _Route:
        """The range's route, kept for its next records.

        Raises:
            RecordError: no statement takes the topic (asked again for each record, so each is
                reported or skipped as poison).
        """
        self.route = self._route(spec, root, self.topic)
        return self.route

    def resolve_routed(self, spec: SinkTaskSpec, root: Path, topic: str) -> _Route:
        """The route of records a transform sent to ``topic``, kept for the next ones."""
        route = self.routed.get(topic)
        if route is None:
            route = self.routed[topic] = self._route(spec, root, topic)
        return route

    def _route(self, spec: SinkTaskSpec, root: Path, topic: str) -> _Route:
        index = _statement_index(spec.plan, topic)
        statement = spec.plan.statements[index]
        return _Route(
            self.writer(index, statement, root, topic) if statement.dialect is None else self._dialect_files(spec, root),
            statement,
            decode_key=key_needed(statement),
            decode_value=not raw_value_passthrough(statement, spec.value_converter),
            values=statement.layout.coordinate_values(topic, self.partition),
            decode_headers=headers_decoded(statement),
        )


class _Ranges(dict[TopicPartition, _Range]):
    """The task's ranges by topic-partition, and the one being worked on (where an error is reported)."""

    current: _Range | None = None

    def enter(self, state: _Range) -> _Range:
        self.current = state
        return state

    def failed(self, error: LakesinkError) -> RangeResult:
        """The result row of the range the task was working on when ``error`` stopped it."""
        state = self.current
        return RangeResult(
            topic=state.topic if state else "",
            partition=state.partition if state else -1,
            last=state.last if state else -1,
            failure=RangeFailure.of(error),
        )


def _range_of(spec: SinkTaskSpec, ranges: _Ranges, topic: str, partition: int) -> _Range:
    where = (topic, partition)
    state = ranges.get(where)
    if state is None:
        locks = spec.granular.get(where) or {}
        state = ranges[where] = _Range(topic, partition, spec.floors.get(where), locks)
    return ranges.enter(state)


def run_task(spec: SinkTaskSpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body (a library DataFrame's records): write them and yield their result rows."""
    results = write_task(spec, batches)
    if results:
        yield pa.RecordBatch.from_pylist([task_row(result) for result in results], schema=RESULT_SCHEMA)


def write_task(spec: SinkTaskSpec, batches: Iterator[pa.RecordBatch]) -> list[RangeResult]:
    """Write the task's records and make their ranges durable; one result per range (a failed one
    carries its error, see the module docstring). The cyclic collector is paused for the task
    (:mod:`lakesink.adapters.collector`), and the C heap's free pages are given back after it
    (:mod:`lakesink.adapters.native_heap`)."""
    try:
        with collector_paused():
            return _write_task(spec, batches)
    finally:
        return_free_heap()


def _write_task(spec: SinkTaskSpec, batches: Iterator[pa.RecordBatch]) -> list[RangeResult]:
    converters = Converters.create(spec.key_converter, spec.value_converter, spec.header_converter)
    root = Path(spec.staging_root or tempfile.gettempdir()) / "lakesink-staging" / spec.connector
    ranges = _Ranges()
    transforms = ColumnarChain.of(spec.chain) if spec.chain.steps else None
    try:
        for batch in batches:
            if _write_lines(spec, converters, root, ranges, batch, transforms):
                continue
            _write_rows(spec, converters, root, ranges, batch)
        results = [_make_durable(spec, ranges.enter(state)) for state in ranges.values()]
    except BaseException as error:
        _abort(ranges)
        failure = _reported(spec, root, error)
        if failure is None:
            raise
        results = [ranges.failed(failure)]
    return results


def _reported(spec: SinkTaskSpec, root: Path, error: BaseException) -> LakesinkError | None:
    """The error a failed task reports to the driver as its result, or None when it raises it
    (a bug or a killed worker: Spark retries the task). A full staging disk is reported as one line:
    where, and the setting that moves it."""
    if isinstance(error, LakesinkError):
        return error
    if not isinstance(error, OSError) or error.errno not in _DISK_FULL:
        return None
    return StagingFullError(
        f"The staging directory {root} is full ({error.strerror}): free space on that disk or point "
        f"{spec.staging_setting} at a bigger one, then restart the sink. Nothing past the last committed "
        "batch was committed; the restart writes it."
    )


def _abort(ranges: Mapping[TopicPartition, _Range]) -> None:
    for state in ranges.values():
        for writer in state.all_writers():
            writer.abort()


def run_range_task(
    spec: SinkTaskSpec, reader: RangeReader, ranges: Sequence[OffsetRange], ids: Iterator[int]
) -> list[RangeResult]:
    """``mapPartitions`` body over ``parallelize(range(len(ranges)))``, one id per task: read
    ``ranges[id]`` here, write it, and return its results (pickled to the driver as they are).

    Reading on the executor spares every record the Python → JVM → Python hop of a source feeding
    the writers. An RDD of the ranges' ids rather than a DataFrame: the records never enter the JVM,
    so a SQL plan bought nothing but its cost, about 40 ms of CPU per task in the JVM and the Python
    worker (an Arrow UDF's set-up) and the planning of a query per batch (CHANGELOG).
    """
    return write_task(spec, reader.read_all([ranges[index] for index in ids]))


def _write_lines(
    spec: SinkTaskSpec,
    converters: Converters,
    root: Path,
    ranges: _Ranges,
    batch: pa.RecordBatch,
    transforms: ColumnarChain | None,
) -> bool:
    """Write the batch on a columnar path (:mod:`.encoded_lines`, :mod:`.columnar_parquet`) when
    it gives the same files; ``transforms`` is the columnar form of the spec's chain, if it has one.

    Returns False, having changed nothing, when the batch must go record by record.
    """
    where = single_partition(batch)
    if where is None or not spec.columnar or spec.granular.get(where) or (spec.chain.steps and transforms is None):
        return False
    topic, partition = where
    routed = topic if transforms is None else transforms.topic(topic, partition)
    floor = spec.floors.get(where)
    values: PartitionValues | None = None  # stays None for PARQUET, whose rows carry their own
    try:
        index = _statement_index(spec.plan, routed)
        statement = spec.plan.statements[index]
        if not takes_rows(statement, spec.value_converter):
            if transforms is not None:
                return False  # only the PARQUET path runs transforms
            # takes_lines admits only topic/partition fields: one record's values are every record's.
            values = statement.layout.coordinate_values(topic, partition)
            if values is None or not takes_lines(statement, spec.value_converter, converters.value):
                return False
    except RecordError:
        return False  # every record is poison: the per-record path reports or skips each one
    writer = _range_of(spec, ranges, topic, partition).writer(index, statement, root, routed)
    if values is None:
        lines = write_rows(batch, writer, floor=floor, source=where, transforms=transforms)
    else:
        lines = encode_lines(batch, statement.format, floor=floor)
        if lines is not None and len(lines):
            writer.write_lines(values, lines)
    if lines is None:
        return False
    state = ranges[where]
    state.last = lines.last_offset
    state.skipped += lines.skipped
    if len(lines):
        state.records += len(lines)
        if state.first < 0:
            state.first = lines.offset(0)
    return True


def _write_rows(
    spec: SinkTaskSpec,
    converters: Converters,
    root: Path,
    ranges: _Ranges,
    batch: pa.RecordBatch,
) -> None:
    """Write the batch record by record; the range is looked up only when the topic-partition changes."""
    state: _Range | None = None
    for row in raw_rows(batch):
        if state is None or row.partition != state.partition or row.topic != state.topic:
            state = _range_of(spec, ranges, row.topic, row.partition)
        _write_row(spec, converters, root, state, row)


def _write_row(spec: SinkTaskSpec, converters: Converters, root: Path, state: _Range, row: RawRow) -> None:
    state.last = row.offset
    floor = state.floor
    if (floor is not None and row.offset <= floor) or (spec.skip_null_values and row.value is None):
        state.skipped += 1
        return
    # The stage a RecordError comes from, for the dead letter (a local per step: nothing per record
    # beyond the assignment); which converter failed is found again only on that rare path.
    stage, route = Stage.VALUE_CONVERTER, None
    try:
        if spec.chain.steps:  # the tuple, not TransformChain.__bool__: a Python call per record
            converted = row.to_record(converters, decode_key=True, decode_value=True, decode_headers=spec.chain_headers)
            stage = Stage.TRANSFORMATION
            transformed = spec.chain.apply(converted)
            if transformed is None:  # a Filter dropped it: read, nothing to write
                state.skipped += 1
                return
            record = transformed
            stage = Stage.TASK_PUT
            route = state.resolve_routed(spec, root, record.topic)
        else:
            stage = Stage.TASK_PUT  # no statement takes the topic
            route = state.route or state.resolve(spec, root)
            stage = Stage.VALUE_CONVERTER
            record = row.to_record(
                converters,
                decode_key=route.decode_key,
                decode_value=route.decode_value,
                decode_headers=route.decode_headers,
            )
            stage = Stage.TASK_PUT
        if spec.skip_null_values and record.value is None and route.statement.confluent is not None:
            state.skipped += 1  # Confluent tests the value after conversion and transforms (JSON null too)
            return
        values = route.statement.layout.partition_values(record) if route.values is None else route.values
        if state.locks and _granular_skip(state.locks, row.offset, values):
            state.skipped += 1
            return
        route.writer.write(record, values)
    except RecordError as error:
        if stage is Stage.VALUE_CONVERTER:
            stage = _failed_converter(converters, row, route) or Stage.HEADER_CONVERTER
        elif stage is Stage.TASK_PUT and route is not None:
            # Kafka Connect converts every key and value before put(); lakesink may hand the writer
            # the bytes (JSON kept as read), so a converter that refuses them is the failing stage.
            stage = _failed_converter(converters, row, None) or stage
        if not spec.skips(stage):
            raise RecordError(
                f"Record {row.describe()} cannot be written: {error}. Fix the data or the config, or set "
                f"{spec.skip_setting(stage)} to skip such records."
            ) from error
        _skip(spec, state, row, error, stage, route)
        return
    state.records += 1
    if state.first < 0:
        state.first = row.offset


def _skip(
    spec: SinkTaskSpec,
    state: _Range,
    row: RawRow,
    error: RecordError,
    stage: Stage,
    route: _Route | None,
) -> None:
    """Skip a poison record: log it (in Kafka Connect's words under ``errors.log.enable``) and keep
    it as a dead letter when the sink has a dead-letter topic."""
    state.poison += 1
    reporting = spec.reporting
    if not reporting.log and reporting.dlq_topic is None:
        logger.warning("Skipping record %s (%s): %s", row.describe(), spec.skip_setting(stage), error)
        return
    if stage is Stage.TRANSFORMATION:
        class_name = _class_name(spec.chain)
    elif stage is Stage.TASK_PUT:
        # the writer that refused it, or this task when no statement takes the record's topic
        class_name = f"{__name__}.run_task" if route is None else _class_name(route.writer)
    else:
        class_name = spec.stage_class(stage)
    letter = DeadLetter(
        topic=row.topic,
        partition=row.partition,
        offset=row.offset,
        timestamp=row.timestamp,
        key=row.key,
        value=row.value,
        headers=row.headers,
        stage=stage,
        class_name=class_name,
        error_class=_class_name(error),
        error_message=str(error),
        stacktrace="".join(traceback.format_exception(error)),
    )
    if reporting.log:
        logger.error("%s", letter.log_line(f"{spec.connector}-0", include_record=reporting.log_record))
    else:
        logger.warning("Skipping record %s (%s): %s", row.describe(), spec.skip_setting(stage), error)
    if reporting.dlq_topic is not None:
        state.dead_letters.append(letter)


def _class_name(instance: object) -> str:
    kind = type(instance)
    return f"{kind.__module__}.{kind.__qualname__}"


def _failed_converter(converters: Converters, row: RawRow, route: _Route | None) -> Stage | None:
    """Which converter refuses ``row``: the key's or the value's (those ``route`` decodes; both
    when it is None), or None (a converter stage that failed then was a header's)."""
    where = row.describe()
    for stage, converter, data, decoded in (
        (Stage.KEY_CONVERTER, converters.key, row.key, route is None or route.decode_key),
        (Stage.VALUE_CONVERTER, converters.value, row.value, route is None or route.decode_value),
    ):
        if decoded:
            try:
                converter.decode(data, record=where)
            except RecordError:
                return stage
    return None


def _statement_index(plan: SinkPlan, topic: str) -> int:
    chosen = plan.route(topic)
    return plan.statements.index(chosen)


def _granular_skip(locks: Mapping[str, int], offset: int, values: PartitionValues) -> bool:
    """Whether a Lenses granular lock says this writer already stored the record."""
    name = granular_partition_key(dict(values))
    held = locks.get(name) if name is not None else None
    return held is not None and offset <= held


def _make_durable(spec: SinkTaskSpec, state: _Range) -> RangeResult:
    """Seal the range's files and run the domain's durability step over them (plan, then uploads)."""
    requests = RequestCount()
    sealed = [file for writer in state.all_writers() for file in writer.finish()]
    uploads = tuple(UploadFile(f.bucket, f.key, str(f.path), f.path.stat().st_size, f.replaces) for f in sealed)
    table_files = (  # a topic no statement takes (its records poison) seals nothing
        tuple(DataFile(u.bucket, u.key, u.size, parquet_footer(f.path)) for f, u in zip(sealed, uploads, strict=True))
        if sealed and spec.plan.route(state.topic).table is not None
        else ()
    )
    if uploads:
        scope = IndexScope.of(spec.plan, spec.indexes_name, spec.connector, state.topic, state.partition)
        # A Confluent range's cycles (an Aiven range's groups) start at its first record, written or
        # not: a replay must start there.
        start = state.first if state.dialect_files is None else state.dialect_files.first_seen
        # Objects overwritten in place (Aiven's key-grouped files) cannot be deleted to roll the plan back.
        objects = None if any(f.replaces for f in uploads) else tuple((f.bucket, f.key) for f in uploads)
        plan = RangePlan(spec.run_id, start, state.last, spec.clock_ms, objects) if spec.exactly_once else None
        try:
            perform(make_range_durable(scope, plan, uploads), spec.store, requests)
        finally:  # a failed attempt is re-run from Kafka: its staging files are never reused
            for file in sealed:
                file.path.unlink(missing_ok=True)
    held = state.dialect_files.held if state.dialect_files is not None else 0
    last = state.dialect_files.durable_through if held and state.dialect_files is not None else state.last
    return RangeResult(
        topic=state.topic,
        partition=state.partition,
        first=state.first,
        last=last,
        records=state.records - held,
        skipped=state.skipped,
        poison=state.poison,
        bytes=sum(upload.size for upload in uploads),
        files=tuple(file.key for file in sealed),
        # a record past ``last`` (held in an open Confluent cycle) is read again by the next range
        dead_letters=tuple(letter for letter in state.dead_letters if letter.offset <= last),
        rolls=count_rolls(file.reason for file in sealed) if sealed else (),
        requests=requests.total,
        table_files=table_files,
    )
