"""How a sink task writes a batch of Kafka rows: on a columnar path when it gives the same files
(:func:`write_lines`), else record by record (:func:`write_rows`): decode, transform, route, skip what
is already durable, write; a poison record is reported or skipped (:mod:`.poison_records`)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from lakesink.adapters.formats.columnar_parquet import takes_rows
from lakesink.adapters.formats.columnar_parquet import write_rows as write_parquet_rows
from lakesink.adapters.formats.columnar_transforms import ColumnarChain
from lakesink.adapters.formats.encoded_lines import encode_lines, single_partition, takes_lines
from lakesink.adapters.formats.record_decoding import Converters, RawRow, raw_rows
from lakesink.adapters.spark.poison_records import failed_converter, skip_poison_record
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.spark.task_ranges import (
    RangeState,
    TaskRanges,
    granular_skip,
    range_of,
    statement_index,
)
from lakesink.domain.dead_letters import Stage
from lakesink.domain.errors import RecordError
from lakesink.domain.layout.partitioning import PartitionValues


def write_lines(
    spec: SinkTaskSpec,
    converters: Converters,
    root: Path,
    ranges: TaskRanges,
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
        index = statement_index(spec.plan, routed)
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
    writer = range_of(spec, ranges, topic, partition).writer(index, statement, root, routed)
    if values is None:
        lines = write_parquet_rows(batch, writer, floor=floor, source=where, transforms=transforms)
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


def write_rows(
    spec: SinkTaskSpec,
    converters: Converters,
    root: Path,
    ranges: TaskRanges,
    batch: pa.RecordBatch,
) -> None:
    """Write the batch record by record; the range is looked up only when the topic-partition changes."""
    state: RangeState | None = None
    for row in raw_rows(batch):
        if state is None or row.partition != state.partition or row.topic != state.topic:
            state = range_of(spec, ranges, row.topic, row.partition)
        _write_row(spec, converters, root, state, row)


def _write_row(spec: SinkTaskSpec, converters: Converters, root: Path, state: RangeState, row: RawRow) -> None:
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
        writing = route.statement.writing
        if record.value is None and writing is not None and writing.skips_converted_nulls:
            state.skipped += 1
            return
        values = route.statement.layout.partition_values(record) if route.values is None else route.values
        if state.locks and granular_skip(state.locks, row.offset, values):
            state.skipped += 1
            return
        route.writer.write(record, values)
    except RecordError as error:
        if stage is Stage.VALUE_CONVERTER:
            stage = failed_converter(converters, row, route) or Stage.HEADER_CONVERTER
        elif stage is Stage.TASK_PUT and route is not None:
            # Kafka Connect converts every key and value before put(); lakesink may hand the writer
            # the bytes (JSON kept as read), so a converter that refuses them is the failing stage.
            stage = failed_converter(converters, row, None) or stage
        if not spec.skips(stage):
            raise RecordError(
                f"Record {row.describe()} cannot be written: {error}. Fix the data or the config, or set "
                f"{spec.skip_setting(stage)} to skip such records."
            ) from error
        skip_poison_record(spec, state, row, error, stage, route)
        return
    state.records += 1
    if state.first < 0:
        state.first = row.offset
