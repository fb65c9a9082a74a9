"""The files Aiven's S3 sink writes, one writer per ``format.output.type`` (runs on executors).

What a record becomes is the domain's (:mod:`lakesink.domain.dialects.aiven.output`); these put it
in a staging file, framed and compressed as Aiven's ``OutputWriter`` does (:mod:`.compression`).
csv, json and jsonl are byte for byte Aiven's; avro and parquet hold the same schema and data.
See docs/dialects.md, "File contents (Aiven's writers, byte for byte)".
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from fastavro.schema import SchemaParseException, UnknownType
from fastavro.write import Writer

from lakesink.adapters.dialects.aiven.compression import compressed
from lakesink.adapters.formats.arrow_schema import arrow_schema
from lakesink.adapters.formats.avro import sync_marker
from lakesink.adapters.formats.parquet import AVRO_SCHEMA_KEY
from lakesink.adapters.formats.staging import StagingFile
from lakesink.domain.dialects.aiven.naming import AivenCompression, AivenFormat
from lakesink.domain.dialects.aiven.output import (
    FRAMING,
    AivenOutput,
    avro_datum,
    avro_schema,
    csv_line,
    json_document,
)
from lakesink.domain.errors import FormatError, SchemaChangedError
from lakesink.domain.ports import FormatWriter
from lakesink.domain.records import Record
from lakesink.domain.schema import Schema

#: ``DataFileConstants.DEFAULT_SYNC_INTERVAL``: Java's Avro cuts a block past 64000 bytes.
AVRO_SYNC_INTERVAL = 4000 * 16
#: Avro's ``CodecFactory`` default levels (deflate: zlib's default; xz: 6; zstandard: 3).
_AVRO_LEVELS = {"deflate": None, "xz": 6, "zstandard": 3}
_PARQUET_CODECS = {
    AivenCompression.NONE: "NONE",
    AivenCompression.GZIP: "GZIP",
    AivenCompression.SNAPPY: "SNAPPY",
    AivenCompression.ZSTD: "ZSTD",
}


class AivenTextWriter(StagingFile):
    """csv, json or jsonl: records framed by :data:`~lakesink.domain.dialects.aiven.output.FRAMING`."""

    def __init__(self, path: Path | str, output: AivenOutput) -> None:
        super().__init__(path)
        self._output = output
        self._framing = FRAMING[output.format]
        self._out = compressed(output.compression, self._raw)

    def _encode(self, record: Record) -> bytes:
        if self._output.format is AivenFormat.CSV:
            return csv_line(record, self._output.fields)
        return json_document(record, self._output)

    def _write(self, record: Record) -> None:
        line = self._encode(record)  # a poison record raises before a byte of it is written
        self._out.write(self._framing.separator if self._count else self._framing.start)
        self._out.write(line)

    def _finish(self) -> None:
        if self._count:
            self._out.write(self._framing.end)
        self._out.close()

    def _discard(self) -> None:
        """Nothing to release: the compressor's state goes with the deleted file."""


class AivenAvroWriter(StagingFile):
    """An Avro object container file of Aiven's ``connector_records`` (or the unwrapped field).

    Blocks are cut at Avro's default 64000 bytes. Java's sync marker is random and its header's
    metadata and schema text are laid out differently, so the bytes differ while every reader sees
    the same schema and data; the sync marker here comes from the schema (reproducible).
    """

    def __init__(self, path: Path | str, output: AivenOutput) -> None:
        super().__init__(path)
        self._output = output
        self._out = compressed(output.compression, self._raw)
        self._schema: Schema | None = None
        self._writer: Writer | None = None

    def _write(self, record: Record) -> None:
        schema = avro_schema(record, self._output)
        if self._schema is None:
            datum = avro_datum(record, self._output, schema)
            self._open(schema)
        elif schema != self._schema:
            # Aiven fails the whole flush ("Illegal schema change"); the caller skips or reports the record.
            raise SchemaChangedError(
                f"record {record.describe()} has another schema than the file {self.path}"
            )
        else:
            datum = avro_datum(record, self._output, schema)
        assert self._writer is not None
        try:
            self._writer.write(datum)
        except (ValueError, TypeError, OverflowError) as error:
            raise FormatError(f"record {record.describe()} cannot be written as Avro: {error}") from error

    def _open(self, schema: Schema) -> None:
        codec = self._output.avro_codec
        try:
            self._writer = Writer(
                self._out,
                schema,
                codec=codec,
                sync_interval=AVRO_SYNC_INTERVAL,
                sync_marker=sync_marker(schema),
                compression_level=_AVRO_LEVELS.get(codec),
            )
        except (SchemaParseException, UnknownType, ValueError, TypeError) as error:
            raise FormatError(
                f"Aiven's schema for {self.path} is not a valid Avro schema: {error}"
            ) from error
        self._schema = schema

    def _finish(self) -> None:
        if self._writer is not None:
            self._writer.flush()
        self._out.close()

    def _discard(self) -> None:
        """Nothing to release: fastavro holds only buffers."""


class AivenParquetWriter(StagingFile):
    """A Parquet file with the schema of the file's first record, written at close.

    ``bytes_written`` stays 0 until then: Aiven's flush rule never reads a size (no byte cap).

    Aiven's schema goes through the Avro → Parquet mapping of the other Parquet files, dictionary
    encoding on, the ``file.compression.type`` codec, one row group per file (Aiven writes a whole
    flush at once too); pyarrow, not parquet-mr, lays out the pages.
    """

    def __init__(self, path: Path | str, output: AivenOutput) -> None:
        super().__init__(path)
        self._output = output
        self._schema: Schema | None = None
        self._rows: list[dict[str, Any]] = []

    def _write(self, record: Record) -> None:
        schema = avro_schema(record, self._output)
        if self._schema is not None and schema != self._schema:
            raise SchemaChangedError(
                f"record {record.describe()} has another schema than the file {self.path}"
            )
        self._rows.append(avro_datum(record, self._output, schema))
        self._schema = schema

    def _finish(self) -> None:
        if self._schema is None:
            return
        arrow = arrow_schema(self._schema).with_metadata(
            {AVRO_SCHEMA_KEY: json.dumps(self._schema, separators=(",", ":"))}
        )
        try:
            table = pa.Table.from_pylist(self._rows, schema=arrow)
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as error:
            raise FormatError(f"cannot convert rows for {self.path}: {error}") from error
        pq.write_table(
            table,
            self._raw,
            compression=_PARQUET_CODECS[self._output.parquet_codec],
            use_dictionary=True,
            row_group_size=max(1, table.num_rows),
        )
        self._rows = []

    def _discard(self) -> None:
        self._rows = []


def open_aiven_writer(output: AivenOutput, path: Path | str) -> FormatWriter:
    """The writer of an Aiven file of ``output`` at the staging path ``path``."""
    if output.format is AivenFormat.AVRO:
        return AivenAvroWriter(path, output)
    if output.format is AivenFormat.PARQUET:
        return AivenParquetWriter(path, output)
    return AivenTextWriter(path, output)


def preview(output: AivenOutput, record: Record) -> str:
    """What a file of only ``record`` holds, uncompressed, for explain: the text of a csv, json or
    jsonl file, or the size and Avro schema of an avro or parquet one.

    Raises:
        RecordError: Aiven's writer would fail the record (the reason is Aiven's).
    """
    plain = dataclasses.replace(output, compression=AivenCompression.NONE)
    with tempfile.TemporaryDirectory(prefix="lakesink-aiven-") as directory:
        path = Path(directory) / "preview"
        writer = open_aiven_writer(plain, path)
        try:
            writer.write(record)
        except BaseException:
            writer.abort()
            raise
        writer.close()
        data = path.read_bytes()
    if output.format in FRAMING:
        return data.decode("utf-8", errors="backslashreplace")
    schema = avro_schema(record, output)
    return f"{len(data)} bytes of {output.format.value}, schema {json.dumps(schema, separators=(',', ':'))}"
