"""AVRO object container files through fastavro, streamed block by block.

Blocks are written every :data:`SYNC_INTERVAL` bytes (Lenses flushes every record); rows are
encoded by a compiled encoder (:mod:`.avro_rows`, :mod:`.avro_encoder`) into fastavro's
``Writer.write_block``, so files are byte for byte fastavro's. The sync marker is derived from the
schema and no time is stored, so equal records give equal files. See docs/formats.md, "Per format".
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import fastavro
from fastavro.write import Writer

from lakesink.adapters.formats.avro_rows import RowEncode, row_encoder
from lakesink.adapters.formats.structured import StructuredFile
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import SUPPORTED_CODECS, CompressionCodec, Format
from lakesink.domain.records import Record
from lakesink.domain.schema import Schema, name_records
from lakesink.domain.schema.envelope import record_from_envelope
from lakesink.domain.schema.envelope_fields import EnvelopeFields
from lakesink.domain.schema.headers import header_names
from lakesink.domain.schema.model import canonical_json

LEVEL_REQUIRED = "No or invalid compressionCodec specified - does codec require a level?"
SYNC_INTERVAL = 64 << 10
CODEC_NAMES = {
    CompressionCodec.UNCOMPRESSED: "null",
    CompressionCodec.SNAPPY: "snappy",
    CompressionCodec.BZIP2: "bzip2",
    CompressionCodec.DEFLATE: "deflate",
    CompressionCodec.XZ: "xz",
    CompressionCodec.ZSTD: "zstandard",
}
DEFAULT_LEVELS = {CompressionCodec.DEFLATE: 6, CompressionCodec.XZ: 6, CompressionCodec.ZSTD: 3}
LEVEL_RANGES = {CompressionCodec.DEFLATE: (0, 9), CompressionCodec.XZ: (0, 9), CompressionCodec.ZSTD: (1, 22)}


def sync_marker(schema: Schema) -> bytes:
    """The file's sync marker: derived from the schema, so files are reproducible."""
    return hashlib.md5(canonical_json(schema).encode("utf-8"), usedforsecurity=False).digest()


@dataclass(frozen=True, slots=True)
class _Block:
    """What fastavro's ``Writer.write_block`` reads of a block: its record count and bytes."""

    num_records: int
    bytes_: io.BytesIO


class AvroWriter(StructuredFile):
    """Streams rows into an Avro object container file."""

    def __init__(
        self,
        path: Path | str,
        *,
        codec: CompressionCodec = CompressionCodec.UNCOMPRESSED,
        level: int | None = None,
        envelope: EnvelopeFields | None = None,
    ) -> None:
        if codec not in SUPPORTED_CODECS[Format.AVRO]:
            raise FormatError(f"{codec.value} is not an Avro codec; use UNCOMPRESSED, SNAPPY, BZIP2, DEFLATE, XZ or ZSTD")
        if codec in LEVEL_RANGES:
            level = DEFAULT_LEVELS[codec] if level is None else level
            low, high = LEVEL_RANGES[codec]
            if not low <= level <= high:
                raise FormatError(f"{LEVEL_REQUIRED} ({codec.value} level {level} is outside {low}-{high})")
        else:
            level = None
        super().__init__(path, envelope=envelope)
        self._codec = CODEC_NAMES[codec]
        self._level = level
        self._writer: Writer | None = None
        self._encode: RowEncode | None = None
        self._block = bytearray()
        self._block_records = 0

    @property
    def bytes_written(self) -> int:
        """File bytes plus the uncompressed bytes of the block not yet written."""
        if self._writer is None:
            pending = 0
        else:
            pending = len(self._block) if self._encode is not None else self._writer.io.tell()
        return self._segment_bytes + self._raw.count + pending

    def _open(self, schema: Schema) -> None:
        named = name_records(schema)
        try:
            parsed = fastavro.parse_schema(named)
        except (fastavro.schema.SchemaParseException, ValueError, TypeError) as error:
            raise FormatError(f"invalid Avro schema for {self.path}: {error}") from error
        self._writer = Writer(
            self._raw,
            parsed,
            codec=self._codec,
            sync_interval=SYNC_INTERVAL,
            sync_marker=sync_marker(named),
            compression_level=self._level,
        )
        self._encode = row_encoder(schema, self._envelope)

    def _put(self, record: Record) -> bool:
        if self._encode is None:
            return super()._put(record)
        block = self._block
        mark = len(block)
        try:
            fits = self._encode(record, block)
        except BaseException:
            del block[mark:]
            raise
        if not fits:
            del block[mark:]
            return False
        self._block_records += 1
        if len(block) >= SYNC_INTERVAL:  # where fastavro's own write cuts a block
            self._write_block()
        return True

    def _write_block(self) -> None:
        assert self._writer is not None
        self._writer.write_block(_Block(self._block_records, io.BytesIO(self._block)))
        self._block.clear()
        self._block_records = 0

    def _append(self, row: Any) -> None:
        assert self._writer is not None
        self._writer.write(row)

    def _end_segment(self) -> None:
        if self._writer is not None:
            if self._block_records:
                self._write_block()
            self._writer.flush()

    def _reset_format(self) -> None:
        self._writer = None
        self._encode = None

    def _read_segment(self, path: Path) -> Iterator[Record]:
        return read_avro(path, envelope=True)


def open_avro_reader(data: BinaryIO, path: Path) -> fastavro.reader:
    """A fastavro reader over ``data`` (the open file ``path``).

    Raises:
        FormatError: the file is not an Avro object container file.
    """
    try:
        return fastavro.reader(data)
    except ValueError as error:
        raise FormatError(f"{path} is not an Avro file: {error}") from error


def read_avro(path: Path, *, envelope: bool) -> Iterator[Record]:
    """Yield the records of an Avro file; the writer schema comes along as the value schema.

    Raises:
        FormatError: the file is not an Avro object container file.
    """
    with open(path, "rb") as data:
        reader = open_avro_reader(data, path)
        schema = reader.writer_schema
        parts: dict[str, Any] = {}
        if envelope and isinstance(schema, dict):
            fields = {field["name"]: field["type"] for field in schema.get("fields", ())}
            parts = {
                "key_schema": fields.get("key"),
                "value_schema": fields.get("value"),
                "header_names": header_names(fields.get("headers", "null")),
            }
        for index, row in enumerate(reader):
            if envelope:
                yield record_from_envelope(row, index=index, **parts)
            else:
                yield Record(topic="", partition=0, offset=index, value=row, value_schema=schema)
