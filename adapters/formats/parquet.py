"""PARQUET through pyarrow, with the file's Avro schema kept as parquet-avro does.

Files roll on the rows' data size (:mod:`.data_size`), and row groups are cut at fixed row counts,
so how the rows were buffered never shows in the file. The Avro schema goes into the footer under
``parquet.avro.schema``, so readers recover logical types and record names; pyarrow writes no time
or random value, so files are deterministic. See docs/formats.md, "Per format".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from lakesink.adapters.formats.arrow_schema import arrow_schema
from lakesink.adapters.formats.data_size import value_size
from lakesink.adapters.formats.structured import StructuredFile
from lakesink.domain.errors import FormatError, SchemaChangedError
from lakesink.domain.formats import SUPPORTED_CODECS, CompressionCodec, Format
from lakesink.domain.records import Record
from lakesink.domain.schema import Schema, name_records
from lakesink.domain.schema.envelope import record_from_envelope
from lakesink.domain.schema.envelope_fields import EnvelopeFields
from lakesink.domain.schema.headers import header_names
from lakesink.domain.schema.model import kind, non_null

AVRO_SCHEMA_KEY = b"parquet.avro.schema"
VALUE_COLUMN = "value"
BATCH_ROWS = 4096
ROW_GROUP_BYTES = 64 << 20
_LEVELLED = (CompressionCodec.GZIP, CompressionCodec.BROTLI, CompressionCodec.ZSTD)


def is_record_schema(schema: Schema) -> bool:
    """Whether values of ``schema`` are records (else the file stores them in one ``value`` column)."""
    core = non_null(schema)
    return len(core) == 1 and len(core) == (len(schema) if isinstance(schema, list) else 1) and kind(core[0]) in (
        "record",
        "error",
    )


def parquet_compression(codec: CompressionCodec, level: int | None) -> tuple[str, int | None]:
    """pyarrow's ``compression`` and ``compression_level`` for ``codec`` (the level only where it applies).

    Raises:
        FormatError: ``codec`` is LZO (not in pyarrow) or no Parquet codec.
    """
    if codec is CompressionCodec.LZO:
        raise FormatError("LZO is not supported by the Parquet writer (pyarrow); use SNAPPY, ZSTD, GZIP, LZ4 or BROTLI")
    if codec not in SUPPORTED_CODECS[Format.PARQUET]:
        raise FormatError(f"{codec.value} is not a Parquet codec; use UNCOMPRESSED, SNAPPY, GZIP, LZ4, BROTLI or ZSTD")
    return "NONE" if codec is CompressionCodec.UNCOMPRESSED else codec.value, level if codec in _LEVELLED else None


class ParquetWriter(StructuredFile):
    """Streams rows into a Parquet file in bounded row groups."""

    def __init__(
        self,
        path: Path | str,
        *,
        codec: CompressionCodec = CompressionCodec.UNCOMPRESSED,
        level: int | None = None,
        envelope: EnvelopeFields | None = None,
        row_group_bytes: int = ROW_GROUP_BYTES,
    ) -> None:
        compression, compression_level = parquet_compression(codec, level)
        super().__init__(path, envelope=envelope)
        self._compression = compression
        self._level = compression_level
        self._row_group_bytes = row_group_bytes
        self._writer: pq.ParquetWriter | None = None
        self._arrow: pa.Schema | None = None
        self._wrap = False
        self._rows: list[Any] = []
        self._batches: list[pa.RecordBatch] = []
        self._buffered = 0
        self._data_size = 0

    @property
    def bytes_written(self) -> int:
        """The data size of the rows written so far (:mod:`.data_size`), not a file position: the
        per-record path (:meth:`write`) and the columnar one (:meth:`write_batch`) must roll at the
        same record."""
        return self._data_size

    def write_batch(self, schema: Schema, batch: pa.RecordBatch, sizes: np.ndarray) -> None:
        """Append rows already in Arrow form; the file's schema becomes ``schema`` if not yet fixed.

        The columnar sink path parses a whole slice of JSON values at once; the caller
        guarantees every row fits ``schema`` and ``sizes[i]`` is row ``i``'s data size
        (:func:`~lakesink.adapters.formats.data_size.row_sizes`), so the file is the one
        :meth:`write` would give for the same records.

        Raises:
            SchemaChangedError: the file's schema is another one.
            FormatError: ``schema`` is not a record, or ``batch`` does not have its columns.
        """
        self._check_open()
        if self.schema is None:
            self._start(schema)
        elif self.schema != schema:
            raise SchemaChangedError(f"a batch with another schema cannot be appended to {self.path}")
        assert self._arrow is not None  # set by _start
        if self._wrap or not batch.schema.equals(self._arrow, check_metadata=False):
            raise FormatError(f"the Arrow columns {batch.schema} do not match the schema of {self.path}")
        self._seal()  # rows written one by one go first
        batch = pa.RecordBatch.from_arrays(batch.columns, schema=self._arrow)
        start = 0
        while start < batch.num_rows:
            end = min(batch.num_rows, start + BATCH_ROWS - self._count % BATCH_ROWS)
            self._batches.append(batch.slice(start, end - start))
            added = int(sizes[start:end].sum())
            self._buffered += added
            self._data_size += added
            self._count += end - start
            if self._count % BATCH_ROWS == 0:
                self._cut_row_group()
            start = end

    def _check_representable(self, schema: Schema) -> None:
        """Parquet cannot store a union of several types, an empty struct or a recursive type."""
        arrow_schema(_table_schema(schema))

    def _open(self, schema: Schema) -> None:
        self._wrap = not is_record_schema(schema)
        table_schema = _table_schema(schema)
        named = name_records(schema)
        self._arrow = arrow_schema(table_schema).with_metadata({AVRO_SCHEMA_KEY: json.dumps(named, separators=(",", ":"))})
        self._writer = pq.ParquetWriter(
            self._raw, self._arrow, compression=self._compression, compression_level=self._level
        )

    def _append(self, row: Any) -> None:
        size = value_size(row)
        self._rows.append({VALUE_COLUMN: row} if self._wrap else row)
        self._buffered += size
        self._data_size += size
        if (self._count + 1) % BATCH_ROWS == 0:  # the caller counts this row once it is appended
            self._seal()
            self._cut_row_group()

    def _seal(self) -> None:
        """Turn the rows written one by one into an Arrow batch."""
        if not self._rows:
            return
        try:
            batch = pa.RecordBatch.from_pylist(self._rows, schema=self._arrow)
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as error:
            raise FormatError(f"cannot convert rows for {self.path}: {error}") from error
        self._batches.append(batch)
        self._rows = []

    def _cut_row_group(self) -> None:
        """At a row-group checkpoint: write the buffered rows if they reached ``row_group_bytes``."""
        if self._buffered >= self._row_group_bytes:
            self._flush_row_group()

    def _flush_row_group(self) -> None:
        if not self._batches or self._writer is None:
            return
        table = pa.Table.from_batches(self._batches, schema=self._arrow).combine_chunks()
        self._writer.write_table(table, row_group_size=table.num_rows)
        self._batches = []
        self._buffered = 0

    def _end_segment(self) -> None:
        if self._writer is None:
            return
        self._seal()
        self._flush_row_group()
        self._writer.close()

    def _reset_format(self) -> None:
        self._writer = None
        self._rows, self._batches, self._buffered = [], [], 0

    def _read_segment(self, path: Path) -> Iterator[Record]:
        return read_parquet(path, envelope=True)

    def _discard(self) -> None:
        """Drop the buffers; close pyarrow's writer now, or it writes a footer when collected."""
        self._rows, self._batches = [], []
        if self._writer is not None:
            self._writer.close()


def _table_schema(schema: Schema) -> Schema:
    """The file's record schema: ``schema``, or a record of one ``value`` column when it is no record."""
    if is_record_schema(schema):
        return schema
    return {"type": "record", "fields": [{"name": VALUE_COLUMN, "type": schema}]}


def open_parquet(path: Path) -> tuple[pq.ParquetFile, Schema | None, bool]:
    """The file, the Avro schema kept in its footer (None without one), and whether its values are
    wrapped in a single ``value`` column (a schema that is not a record).

    Raises:
        FormatError: the file is not Parquet.
    """
    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as error:
        raise FormatError(f"{path} is not a Parquet file: {error}") from error
    metadata = parquet.schema_arrow.metadata or {}
    avro = json.loads(metadata[AVRO_SCHEMA_KEY]) if AVRO_SCHEMA_KEY in metadata else None
    return parquet, avro, avro is not None and not is_record_schema(avro)


def read_parquet(path: Path, *, envelope: bool) -> Iterator[Record]:
    """Yield the rows of a Parquet file as records (envelope rows rebuilt into messages).

    Raises:
        FormatError: the file is not Parquet.
    """
    parquet, avro, wrapped = open_parquet(path)
    fix = _struct_fixer(parquet.schema_arrow)
    part_schemas = _part_schemas(avro) if envelope and avro is not None else {}
    index = 0
    for batch in parquet.iter_batches(batch_size=BATCH_ROWS):
        for row in batch.to_pylist():
            row = fix(row) if fix is not None else row
            if envelope:
                yield record_from_envelope(row, index=index, **part_schemas)
            else:
                yield Record(
                    topic="", partition=0, offset=index, value=row[VALUE_COLUMN] if wrapped else row, value_schema=avro
                )
            index += 1


def _part_schemas(avro: Schema) -> dict[str, Any]:
    fields = {field["name"]: field["type"] for field in avro.get("fields", ())}
    return {
        "key_schema": fields.get("key"),
        "value_schema": fields.get("value"),
        "header_names": header_names(fields.get("headers", "null")),
    }


Fixer = Callable[[Any], Any]


def _struct_fixer(schema: pa.Schema) -> Fixer | None:
    return python_fixer(pa.struct(list(schema)))


def python_fixer(arrow_type: pa.DataType) -> Fixer | None:
    """A function turning pyarrow's Python form back into ours (maps come back as pairs)."""
    if pa.types.is_map(arrow_type):
        item = python_fixer(arrow_type.item_type)
        if item is None:
            return lambda value: None if value is None else dict(value)
        return lambda value: None if value is None else {key: item(entry) for key, entry in value}
    if pa.types.is_struct(arrow_type):
        children = {field.name: python_fixer(field.type) for field in arrow_type}
        children = {name: child for name, child in children.items() if child is not None}
        if not children:
            return None

        def fix_struct(value: Any) -> Any:
            if value is None:
                return None
            for name, child in children.items():
                value[name] = child(value[name])
            return value

        return fix_struct
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        element = python_fixer(arrow_type.value_type)
        if element is None:
            return None
        return lambda value: None if value is None else [element(entry) for entry in value]
    return None
