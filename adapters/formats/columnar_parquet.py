"""The columnar PARQUET path: a batch of schemaless JSON values parsed into Arrow in one call.

Exactly-once needs a retried task to write the same objects whichever path ran, so a batch is
taken only when that is provable (:func:`takes_rows`, :func:`write_rows`), else it goes record by
record. See docs/sink.md, "One micro-batch", and docs/transforms.md, "Transforms at columnar speed".
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from lakesink.adapters.formats.arrow_rows import ArrowRows
from lakesink.adapters.formats.arrow_schema import arrow_schema
from lakesink.adapters.formats.columnar_transforms import BatchRows, ColumnarChain, Columns
from lakesink.adapters.formats.data_size import row_sizes
from lakesink.adapters.formats.encoded_lines import EncodedLines, encode_lines
from lakesink.adapters.formats.parquet import ParquetWriter
from lakesink.adapters.formats.range_writer import RangeWriter
from lakesink.adapters.formats.record_decoding import canonical_converter, key_needed
from lakesink.adapters.kafka.converters import JSON
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import FormatError, RecordError
from lakesink.domain.formats import Format
from lakesink.domain.layout.partitioning import FieldKind, PartitionValues
from lakesink.domain.records import NO_TIMESTAMP, Record, TopicPartition
from lakesink.domain.schema import Schema, fits, infer
from lakesink.domain.schema.model import kind, non_null
from lakesink.domain.statement_plan import StatementPlan

_FIELD_KINDS = (FieldKind.VALUE, FieldKind.TOPIC, FieldKind.PARTITION)
_SCALARS = ("boolean", "long", "double", "string")
_PARTITION_TYPES = (pa.string(), pa.int64(), pa.bool_())
_OBJECT_LINE = r"^[ \t]*\{"
_EXACT_DOUBLE_LIMIT = 2.0**53
_MIN_BLOCK_BYTES = 1 << 20


def takes_rows(plan: StatementPlan, value_settings: ConverterSettings) -> bool:
    """Whether the statement's batches may take the columnar PARQUET path.

    They may when written as PARQUET without envelope (and no key needed) from ``JsonConverter``
    values with ``schemas.enable=false``, partitioned only by ``_value.<path>`` scalars, ``_topic``
    and ``_partition``. ``schema.change.detector`` and ``latest.schema.optimization.enabled`` need no check: they act
    on declared value schemas only, and this path takes only ``schemas.enable=false`` values.
    """
    if plan.format is not Format.PARQUET or plan.envelope is not None or key_needed(plan):
        return False
    if any(f.kind not in _FIELD_KINDS for f in plan.layout.selection.fields):
        return False
    if canonical_converter(value_settings) != JSON:
        return False
    enabled = value_settings.settings.get("schemas.enable", "true")
    text = enabled.reveal() if isinstance(enabled, Secret) else enabled
    return text.strip().lower() == "false"


def write_rows(
    batch: pa.RecordBatch,
    writer: RangeWriter,
    *,
    floor: int | None,
    source: TopicPartition,
    transforms: ColumnarChain | None = None,
) -> EncodedLines | None:
    """Write the batch's records above ``floor`` into ``writer``'s files, columnar.

    ``source`` is the batch's topic-partition; ``writer`` writes the topic the ``transforms``
    (if any) route it to. Returns the kept records' offsets and timestamps (as for the JSON-lines
    path), or None, having written nothing, when the batch must go record by record.

    The per-record path decodes each value with ``json.loads``, infers the schema of a file's first
    record, checks every later record :func:`~lakesink.domain.schema.fits` it (else the file rolls)
    and converts the rows to Arrow. This does the same work a batch at a time:
    ``pyarrow.json.read_json`` over the values joined by newlines with the schema a file would have
    (``explicit_schema``, extra fields an error), the partition values rendered once per distinct
    value by the per-record code itself
    (:meth:`~lakesink.domain.layout.naming.KeyLayout.partition_values` on one decoded
    representative), and files cut where the per-record path would
    (:meth:`~lakesink.adapters.formats.range_writer.RangeWriter.runs`,
    :mod:`lakesink.adapters.formats.data_size`). With a transform chain that has a columnar form
    (:mod:`.columnar_transforms`), the values are parsed with the schema of the first record as
    read, the chain runs over the columns, and the result must have exactly the file's schema
    (names, order, types, no null in a required column); every check below then reads the records
    as the chain leaves them (the per-record chain run on the few records that start a partition
    value or a file).

    Exactly-once needs a retried task to write the same objects whichever path ran, so the batch
    is taken only when that is provable:

    * every value is a JSON object on one line in valid UTF-8 (line breaks, empty values, a BOM or
      anything before the ``{`` but blanks go record by record), and the parse gives exactly one
      row per value (so a value holding two objects is caught);
    * the parse schema is the open file's (for the first record's partition value) or the first
      record's inferred one, with only boolean/long/double/string fields, records and arrays (a
      ``null``-typed field or an empty object, a map, would not take later values);
    * every file the batch continues has that schema, and every file it starts would get that
      schema from its first record (one ``json.loads`` + inference per file start);
    * pyarrow refuses what ``fits`` refuses: a number into a string column or the reverse, a
      boolean into a number column, a fraction or exponent into a long column, an int beyond
      int64, unknown fields at any depth, duplicate keys, lone surrogates; where pyarrow accepts
      more, the batch is refused here: a double column holding a magnitude of 2**53 or more (an
      integer there would not convert exactly on the per-record path, which fails the file);
    * partition fields resolve to non-null string, long or boolean columns.
    """
    if not _plain_objects(batch.column("value")):
        return None
    lines = encode_lines(batch, Format.JSON, floor=floor)
    if lines is None or not len(lines):
        return lines
    groups = _plan(writer, _Records(lines, source, transforms))
    if groups is None:
        return None
    writer.write_rows(groups)
    return lines


class _Records:
    """The batch's records as the per-record path sees them, built only for the few rows the plan
    checks (the first one, the first of each partition value and of each file)."""

    def __init__(self, lines: EncodedLines, source: TopicPartition, transforms: ColumnarChain | None) -> None:
        self.lines = lines
        self.topic, self.partition = source
        self.transforms = transforms
        self._sources: dict[int, Record | None] = {}

    def source(self, index: int) -> Record | None:
        """Record ``index`` before the transforms; None when its value is not valid JSON."""
        if index not in self._sources:
            value = _decode(self.lines, index)
            stamp = int(self.lines.timestamps[index])
            self._sources[index] = None if value is None else Record(
                self.topic,
                self.partition,
                self.lines.offset(index),
                None if stamp == NO_TIMESTAMP else stamp,
                value=value,
            )
        return self._sources[index]

    def written(self, index: int) -> Record | None:
        """Record ``index`` as the writer gets it; None when it is poison (or a transform drops it)."""
        record = self.source(index)
        if record is None or self.transforms is None:
            return record
        return self.transforms.record(record)

    def rows(self) -> BatchRows:
        return BatchRows(self.partition, self.lines.offsets, self.lines.timestamps)


def _plain_objects(values: pa.Array) -> bool:
    """Every value is valid UTF-8 and starts with ``{`` after blanks (nulls are checked later)."""
    try:
        text = values.cast(pa.string())  # validates UTF-8 (encoded surrogates included)
    except (pa.ArrowInvalid, ValueError):
        return False
    if pc.all(pc.starts_with(text, "{")).as_py() is not False:  # None: all null
        return True  # the usual case, a tenth of the cost of the regex below
    return pc.all(pc.match_substring_regex(text, _OBJECT_LINE)).as_py() is not False


def _plan(writer: RangeWriter, records: _Records) -> list[tuple[PartitionValues, ArrowRows]] | None:
    """The rows of each partition value, or None when some file would differ from the per-record one."""
    lines = records.lines
    first = records.written(0)
    first_values = _partition_values(writer, first)
    if first_values is None:
        return None
    schema = _open_schema(writer, first_values) or _own_schema(first)
    if schema is None or not _parsable(schema):
        return None
    parsed = _parse(lines, schema) if records.transforms is None else _transformed(records, schema)
    if parsed is None:
        return None
    groups = _groups(writer, records, parsed, first_values)
    if groups is None:
        return None
    sizes = row_sizes(parsed)
    planned = []
    for (values, indices), group_batch in zip(groups, _group_batches(parsed, groups), strict=True):
        group_sizes = sizes[indices]
        rows = ArrowRows(
            schema,
            group_batch,
            group_sizes,
            np.cumsum(group_sizes),
            lines.offsets[indices],
            lines.timestamps[indices],
        )
        if not _files_agree(writer, values, rows, records, indices):
            return None
        planned.append((values, rows))
    return planned


def _group_batches(parsed: pa.RecordBatch, groups: list[tuple[PartitionValues, np.ndarray]]) -> list[pa.RecordBatch]:
    """Each group's rows: one ``take`` in group order, then zero-copy slices (a take per group
    cost twice as much for the benchmark's ten countries)."""
    if len(groups) == 1:
        indices = groups[0][1]
        return [parsed if len(indices) == parsed.num_rows else parsed.take(pa.array(indices))]
    grouped = parsed.take(pa.array(np.concatenate([indices for _values, indices in groups])))
    starts = np.cumsum([0] + [len(indices) for _values, indices in groups])
    return [grouped.slice(int(start), int(end - start)) for start, end in zip(starts[:-1], starts[1:], strict=True)]


def _decode(lines: EncodedLines, index: int) -> Any:
    """Record ``index``'s value as ``json.loads`` gives it (what the per-record path sees), or None."""
    try:
        return json.loads(bytes(lines.data(index, index + 1)))
    except ValueError:
        return None


def _partition_values(writer: RangeWriter, record: Record | None) -> PartitionValues | None:
    """The record's partition values by the per-record code, None when it is a poison record."""
    if record is None or not isinstance(record.value, dict):
        return None
    try:
        return writer.plan.layout.partition_values(record)
    except RecordError:
        return None


def _open_schema(writer: RangeWriter, values: PartitionValues) -> Schema | None:
    """The schema of the file open for ``values``; None when none is open or it has no schema yet."""
    file = writer.open_file(values)
    return file.schema if isinstance(file, ParquetWriter) else None


def _own_schema(record: Record | None) -> Schema | None:
    """The schema a file starting with ``record`` gets; None when its value is not an object or is poison."""
    value = None if record is None else record.value
    if not isinstance(value, dict):
        return None
    try:
        schema = infer(value)
    except FormatError:
        return None
    return schema if fits(value, schema) else None


def _parsable(schema: Schema) -> bool:
    """Whether pyarrow enforces ``fits`` for every field of the schema (records, arrays, scalars)."""
    core = non_null(schema)
    if len(core) != 1:
        return False  # a null-typed field, or a union of several types
    type_name = kind(core[0])
    if type_name == "record":
        return bool(core[0]["fields"]) and all(_parsable(field["type"]) for field in core[0]["fields"])
    if type_name == "array":
        return _parsable(core[0]["items"])
    return isinstance(core[0], str) and type_name in _SCALARS


def _parse(lines: EncodedLines, schema: Schema) -> pa.RecordBatch | None:
    """The values parsed with ``schema``; None when pyarrow refuses one or the rows do not match."""
    options = pa_json.ParseOptions(explicit_schema=arrow_schema(schema), unexpected_field_behavior="error")
    # One block for the whole batch: single-threaded (Spark runs a task per core) and measured
    # twice as fast as 1 MiB blocks.
    reading = pa_json.ReadOptions(use_threads=False, block_size=max(_MIN_BLOCK_BYTES, len(lines.buffer) + 1))
    try:
        table = pa_json.read_json(pa.BufferReader(pa.py_buffer(lines.buffer)), read_options=reading, parse_options=options)
    except (pa.ArrowException, ValueError):
        return None
    if table.num_rows != len(lines):
        return None  # a value held several objects
    batch = table.combine_chunks().to_batches()[0]
    return None if any(_inexact(column) for column in batch.columns) else batch


def _transformed(records: _Records, schema: Schema) -> pa.RecordBatch | None:
    """The values parsed with their own schema, through the transforms' columnar form, as rows of
    ``schema`` (the file's); None when some row must go record by record."""
    assert records.transforms is not None
    first = records.source(0)
    source_schema = _own_schema(first)
    if first is None or source_schema is None or not _parsable(source_schema):
        return None
    parsed = _parse(records.lines, source_schema)
    if parsed is None:
        return None
    columns = records.transforms.apply(dict(zip(parsed.schema.names, parsed.columns, strict=True)), first, records.rows())
    return None if columns is None else _conformed(columns, schema)


def _conformed(columns: Columns, schema: Schema) -> pa.RecordBatch | None:
    """The columns as a batch of ``schema``'s Arrow schema, or None when their names, order, types
    or nulls say some row would not fit it."""
    target = arrow_schema(schema)
    if list(columns) != target.names:
        return None
    for field, column in zip(target, columns.values(), strict=True):
        if column.type != field.type or (column.null_count and not field.nullable):
            return None
    return pa.RecordBatch.from_arrays(list(columns.values()), schema=target)


def _inexact(array: pa.Array) -> bool:
    """Whether a double somewhere in ``array`` is too large to be sure an integer converts exactly."""
    if pa.types.is_float64(array.type):
        return bool(pc.any(pc.greater_equal(pc.abs(array), _EXACT_DOUBLE_LIMIT)).as_py())
    if pa.types.is_struct(array.type):
        return any(_inexact(pc.struct_field(array, [i])) for i in range(array.type.num_fields))
    if pa.types.is_list(array.type):
        return _inexact(array.flatten())
    return False


def _groups(
    writer: RangeWriter, records: _Records, parsed: pa.RecordBatch, first_values: PartitionValues
) -> list[tuple[PartitionValues, np.ndarray]] | None:
    """Row indices per partition value, each ascending, ordered by their first row."""
    paths = [f.path for f in writer.plan.layout.selection.fields if f.kind is FieldKind.VALUE]
    if not paths:  # topic and partition only: every record has the first one's values
        return [(first_values, np.arange(parsed.num_rows))]
    codes = np.zeros(parsed.num_rows, dtype=np.int64)
    for path in paths:
        column = _partition_column(parsed, path)
        if column is None:
            return None
        encoded = pc.dictionary_encode(column)
        combined = codes * len(encoded.dictionary) + encoded.indices.to_numpy(zero_copy_only=False)
        codes = np.unique(combined, return_inverse=True)[1].astype(np.int64)
    order = np.argsort(codes, kind="stable")
    splits = np.split(order, np.cumsum(np.bincount(codes))[:-1])
    by_values: dict[PartitionValues, list[np.ndarray]] = {}
    for indices in splits:
        values = _partition_values(writer, records.written(int(indices[0])))
        if values is None:
            return None
        by_values.setdefault(values, []).append(indices)  # distinct raw values may render alike
    groups = [(values, np.sort(np.concatenate(parts))) for values, parts in by_values.items()]
    return sorted(groups, key=lambda group: int(group[1][0]))


def _partition_column(parsed: pa.RecordBatch, path: tuple[str, ...]) -> pa.Array | None:
    """The column at ``path`` when it is a scalar one with no null (else the per-record path decides)."""
    index = parsed.schema.get_field_index(path[0])
    if index < 0:
        return None
    column = parsed.column(index)
    for name in path[1:]:
        if not pa.types.is_struct(column.type) or column.type.get_field_index(name) < 0:
            return None
        column = pc.struct_field(column, [column.type.get_field_index(name)])
    if column.type not in _PARTITION_TYPES or column.null_count:
        return None
    return column


def _files_agree(
    writer: RangeWriter, values: PartitionValues, rows: ArrowRows, records: _Records, indices: np.ndarray
) -> bool:
    """Whether every file the rows go to has, or would get from its first record, ``rows.schema``."""
    for run in writer.runs(values, rows.ends):
        if run.continues:
            schema = _open_schema(writer, values)
            if schema is not None:
                if schema != rows.schema:
                    return False
                continue
        if _own_schema(records.written(int(indices[run.start]))) != rows.schema:
            return False
    return True
