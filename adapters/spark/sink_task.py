"""The executor side of one sink micro-batch: write, plan, upload (one Spark task per range).

Per range: decode, drop what is already durable, write the file sets, then (exactly-once) the
plan object before any create-only upload. A lakesink error ends the task with a result carrying
its class and message, for the driver's ``error.policy``; anything else fails the task and Spark
retries it. The rest has a module each: :mod:`.sink_task_spec`, :mod:`.task_ranges`,
:mod:`.record_path`, :mod:`.poison_records`. See docs/sink.md, "One micro-batch".
"""

from __future__ import annotations

import errno
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pyarrow as pa

from lakesink.adapters.collector import collector_paused
from lakesink.adapters.formats.columnar_transforms import ColumnarChain
from lakesink.adapters.formats.parquet_footer import parquet_footer
from lakesink.adapters.formats.record_decoding import Converters
from lakesink.adapters.kafka.range_rows import RangeReader
from lakesink.adapters.native_heap import return_free_heap
from lakesink.adapters.spark.record_path import write_lines, write_rows
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.spark.task_ranges import RangeState, TaskRanges
from lakesink.adapters.spark.task_results import RESULT_SCHEMA, task_row
from lakesink.domain.commit.actions import UploadFile
from lakesink.domain.commit.engine import IndexScope, make_range_durable
from lakesink.domain.commit.range_plans import RangePlan
from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.commit.store_calls import RequestCount, perform
from lakesink.domain.errors import LakesinkError, StagingFullError
from lakesink.domain.flush.rolls import count_rolls
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.table_port import DataFile

_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
"""The errors of a write to a full disk (or a full quota): the environment's, not the data's."""


def run_task(spec: SinkTaskSpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body (a library DataFrame's records): write them and yield their result rows."""
    results = write_task(spec, batches)
    if results:
        yield pa.RecordBatch.from_pylist([task_row(result) for result in results], schema=RESULT_SCHEMA)


def write_task(spec: SinkTaskSpec, batches: Iterator[pa.RecordBatch]) -> list[RangeResult]:
    """Write the task's records and make their ranges durable; one result per range (a failed one
    carries its error as data, not an exception). The cyclic collector is paused for the task
    (:mod:`lakesink.adapters.collector`), and the C heap's free pages are given back after it
    (:mod:`lakesink.adapters.native_heap`).

    Per topic-partition range it

    1. decodes the Kafka rows (:mod:`lakesink.adapters.formats.record_decoding`; a batch whose raw values are written as
       lines takes the columnar path instead,
       :mod:`lakesink.adapters.formats.encoded_lines`), drops what is already
       durable (offsets at or below the master lock's committed offset, a Spark checkpoint behind
       the index, and, for a writer with a Lenses granular lock, offsets at or below that lock) and
       tombstones when ``skip.null.values`` is set;
    2. writes the rest into the range's file sets (:class:`~lakesink.adapters.dialects.file_set.FileSet`:
       a statement's :class:`~lakesink.adapters.formats.range_writer.RangeWriter`, or a dialect's
       files, such as Confluent's cycles, whose open cycle may be held back for the next range);
    3. with exactly-once, records the range in a create-only plan object BEFORE uploading anything,
       then uploads every file create-only; an object already there from an earlier attempt of the
       same plan is accepted when its size matches (Aiven's key-grouped objects hold a key's latest
       record and are overwritten instead);
    4. returns one :class:`~lakesink.domain.commit.range_results.RangeResult` per range (pickled as
       it is through ``mapPartitions``; a row of :mod:`.task_results` through a library DataFrame's
       ``mapInArrow``); the driver commits it.
    """
    try:
        with collector_paused():
            return _write_task(spec, batches)
    finally:
        return_free_heap()


def _write_task(spec: SinkTaskSpec, batches: Iterator[pa.RecordBatch]) -> list[RangeResult]:
    converters = Converters.create(spec.key_converter, spec.value_converter, spec.header_converter)
    root = Path(spec.staging_root or tempfile.gettempdir()) / "lakesink-staging" / spec.connector
    ranges = TaskRanges()
    transforms = ColumnarChain.of(spec.chain) if spec.chain.steps else None
    try:
        for batch in batches:
            if write_lines(spec, converters, root, ranges, batch, transforms):
                continue
            write_rows(spec, converters, root, ranges, batch)
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


def _abort(ranges: Mapping[TopicPartition, RangeState]) -> None:
    for state in ranges.values():
        for writer in state.all_writers():
            writer.abort()


def run_range_task(
    spec: SinkTaskSpec, reader: RangeReader, ranges: Sequence[OffsetRange], groups: Iterator[tuple[int, ...]]
) -> list[RangeResult]:
    """``mapPartitions`` body over ``parallelize(groups)``, one group of range ids per task
    (:func:`~lakesink.domain.range_groups.range_groups`): read and write those ranges here, each made
    durable before the next is read (a task holds one range's open files at a time), and return
    their results (pickled to the driver as they are).

    Reading on the executor spares every record the Python → JVM → Python hop of a source feeding
    the writers. An RDD of the ranges' ids rather than a DataFrame: the records never enter the JVM,
    so a SQL plan bought nothing but its cost, about 40 ms of CPU per task in the JVM and the Python
    worker (an Arrow UDF's set-up) and the planning of a query per batch (CHANGELOG).
    """
    mine = [ranges[index] for group in groups for index in group]
    results: list[RangeResult] = []
    for done, offset_range in enumerate(mine):
        written = write_task(spec, reader.read(offset_range))
        failure = next((result.failure for result in written if result.failure is not None), None)
        if failure is None:
            results += written
            continue
        # A failed task's one result may name no partition (it failed before its first record), so
        # the range is named here; those not reached are reported with the failure too: a silent one
        # would let the driver commit its partition as if the range were empty.
        failed = RangeResult(offset_range.topic, offset_range.partition, last=written[0].last, failure=failure)
        return [*results, failed, *(RangeResult(r.topic, r.partition, failure=failure) for r in mine[done + 1:])]
    return results


def _make_durable(spec: SinkTaskSpec, state: RangeState) -> RangeResult:
    """Roll the range's files and run the domain's durability step over them (plan, then uploads)."""
    requests = RequestCount()
    rolled = [file for writer in state.all_writers() for file in writer.finish()]
    uploads = tuple(UploadFile(f.bucket, f.key, str(f.path), f.path.stat().st_size, f.replaces) for f in rolled)
    table_files = (  # a topic no statement takes (its records poison) rolls nothing
        tuple(DataFile(u.bucket, u.key, u.size, parquet_footer(f.path)) for f, u in zip(rolled, uploads, strict=True))
        if rolled and spec.plan.route(state.topic).table is not None
        else ()
    )
    if uploads:
        scope = IndexScope.of(spec.plan, spec.indexes_name, spec.connector, state.topic, state.partition)
        start = state.replay_start()
        # Objects overwritten in place (Aiven's key-grouped files) cannot be deleted to roll the plan back.
        objects = None if any(f.replaces for f in uploads) else tuple((f.bucket, f.key) for f in uploads)
        plan = RangePlan(spec.run_id, start, state.last, spec.clock_ms, objects) if spec.exactly_once else None
        try:
            perform(make_range_durable(scope, plan, uploads), spec.store, requests)
        finally:  # a failed attempt is re-run from Kafka: its staging files are never reused
            for file in rolled:
                file.path.unlink(missing_ok=True)
    held = state.held()
    last = state.durable_end()
    return RangeResult(
        topic=state.topic,
        partition=state.partition,
        first=state.first,
        last=last,
        records=state.records - held,
        skipped=state.skipped,
        poison=state.poison,
        bytes=sum(upload.size for upload in uploads),
        files=tuple(file.key for file in rolled),
        # a record past ``last`` (held in an open Confluent cycle) is read again by the next range
        dead_letters=tuple(letter for letter in state.dead_letters if letter.offset <= last),
        rolls=count_rolls(file.reason for file in rolled) if rolled else (),
        requests=requests.total,
        table_files=table_files,
    )
