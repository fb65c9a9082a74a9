"""PARQUET through pyarrow, with the file's Avro schema kept as parquet-avro does.

Rows are buffered as Arrow record batches of :data:`BATCH_ROWS` rows (column-wise) and a row
group is written whenever the buffered batches reach ``row_group_bytes`` (64 MiB by default;
Lenses uses parquet-mr's 128 MiB), so memory stays bounded whatever the file size.
``bytes_written`` is the file position plus the buffered estimate, like parquet-mr's
``getDataSize``.

The Avro schema goes into the footer under ``parquet.avro.schema`` (parquet-avro's key), so
readers recover logical types, record names and whether the value was a record. A value
whose schema is not a record (a string, an array…) is stored in a single column ``value``.

Codecs: UNCOMPRESSED, SNAPPY, GZIP, LZ4, BROTLI, ZSTD (``compression.level`` for GZIP,
BROTLI, ZSTD). LZO is not available in pyarrow and is rejected. Files are deterministic:
pyarrow writes no time or random value into a Parquet file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from lakesink.adapters.formats.arrow_schema import arrow_schema
from lakesink.adapters.formats.structured import StructuredFile
from lakesink.domain.envelope import EnvelopeFields
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import SUPPORTED_CODECS, CompressionCodec, Format
from lakesink.domain.records import Record
from lakesink.domain.schema import Schema, name_records
from lakesink.domain.schema.envelope import record_from_envelope
from lakesink.domain.schema.model import kind, non_null

AVRO_SCHEMA_KEY = b"parquet.avro.schema"
VALUE_COLUMN = "value"
BATCH_ROWS = 4096
ROW_GROUP_BYTES = 64 << 20
_LEVELLED = (CompressionCodec.GZIP, CompressionCodec.BROTLI, CompressionCodec.ZSTD)


def _is_record(schema: Schema) -> bool:
    core = non_null(schema)
    return len(core) == 1 and len(core) == (len(schema) if isinstance(schema, list) else 1) and kind(core[0]) in (
        "record",
        "error",
    )


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
        if codec is CompressionCodec.LZO:
            raise FormatError("LZO is not supported by the Parquet writer (pyarrow); use SNAPPY, ZSTD, GZIP, LZ4 or BROTLI")
        if codec not in SUPPORTED_CODECS[Format.PARQUET]:
            raise FormatError(f"{codec.value} is not a Parquet codec; use UNCOMPRESSED, SNAPPY, GZIP, LZ4, BROTLI or ZSTD")
        super().__init__(path, envelope=envelope)
        self._compression = "NONE" if codec is CompressionCodec.UNCOMPRESSED else codec.value
        self._level = level if codec in _LEVELLED else None
        self._row_group_bytes = row_group_bytes
        self._writer: pq.ParquetWriter | None = None
        self._arrow: pa.Schema | None = None
        self._wrap = False
        self._rows: list[Any] = []
        self._batches: list[pa.RecordBatch] = []
        self._buffered = 0
        self._row_bytes = 0.0

    @property
    def bytes_written(self) -> int:
        """File position plus buffered batches plus an estimate for rows not yet in a batch."""
        return self._raw.count + self._buffered + int(len(self._rows) * self._row_bytes)

    def _open(self, schema: Schema) -> None:
        self._wrap = not _is_record(schema)
        table_schema = {"type": "record", "fields": [{"name": VALUE_COLUMN, "type": schema}]} if self._wrap else schema
        named = name_records(schema)
        self._arrow = arrow_schema(table_schema).with_metadata({AVRO_SCHEMA_KEY: json.dumps(named, separators=(",", ":"))})
        self._writer = pq.ParquetWriter(
            self._raw, self._arrow, compression=self._compression, compression_level=self._level
        )

    def _append(self, row: Any) -> None:
        self._rows.append({VALUE_COLUMN: row} if self._wrap else row)
        if len(self._rows) >= BATCH_ROWS:
            self._seal()

    def _seal(self) -> None:
        if not self._rows:
            return
        try:
            batch = pa.RecordBatch.from_pylist(self._rows, schema=self._arrow)
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as error:
            raise FormatError(f"cannot convert rows for {self.path}: {error}") from error
        self._row_bytes = batch.nbytes / batch.num_rows
        self._batches.append(batch)
        self._buffered += batch.nbytes
        self._rows = []
        if self._buffered >= self._row_group_bytes:
            self._flush_row_group()

    def _flush_row_group(self) -> None:
        if not self._batches or self._writer is None:
            return
        table = pa.Table.from_batches(self._batches, schema=self._arrow)
        self._writer.write_table(table, row_group_size=table.num_rows)
        self._batches = []
        self._buffered = 0

    def _finish(self) -> None:
        if self._writer is None:
            return
        self._seal()
        self._flush_row_group()
        self._writer.close()

    def _discard(self) -> None:
        """Drop the buffers; close pyarrow's writer now, or it writes a footer when collected."""
        self._rows, self._batches = [], []
        if self._writer is not None:
            self._writer.close()


def read_parquet(path: Path, *, envelope: bool) -> Iterator[Record]:
    """Yield the rows of a Parquet file as records (envelope rows rebuilt into messages).

    Raises:
        FormatError: the file is not Parquet.
    """
    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as error:
        raise FormatError(f"{path} is not a Parquet file: {error}") from error
    metadata = parquet.schema_arrow.metadata or {}
    avro = json.loads(metadata[AVRO_SCHEMA_KEY]) if AVRO_SCHEMA_KEY in metadata else None
    wrapped = avro is not None and not _is_record(avro)
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
    return {"key_schema": fields.get("key"), "value_schema": fields.get("value")}


Fixer = Callable[[Any], Any]


def _struct_fixer(schema: pa.Schema) -> Fixer | None:
    return _fixer(pa.struct(list(schema)))


def _fixer(arrow_type: pa.DataType) -> Fixer | None:
    """A function turning pyarrow's Python form back into ours (maps come back as pairs)."""
    if pa.types.is_map(arrow_type):
        item = _fixer(arrow_type.item_type)
        if item is None:
            return lambda value: None if value is None else dict(value)
        return lambda value: None if value is None else {key: item(entry) for key, entry in value}
    if pa.types.is_struct(arrow_type):
        children = {field.name: _fixer(field.type) for field in arrow_type}
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
        element = _fixer(arrow_type.value_type)
        if element is None:
            return None
        return lambda value: None if value is None else [element(entry) for entry in value]
    return None
