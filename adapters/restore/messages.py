"""An object's records as Kafka messages: the exact bytes to produce.

Stored parts become bytes by :func:`to_bytes`. Without an envelope, JSON, CSV and TEXT objects give
one message per line, its bytes as stored (byte-exact); BYTES gives the whole object (or Aiven's
chunks, or Confluent's separated records); headers go back through the restore's
``header.converter`` (:mod:`.header_bytes`). See docs/restore.md, "Records".
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from lakesink.adapters.formats import open_reader
from lakesink.adapters.formats.jsoncodec import dumps
from lakesink.adapters.kafka.header_converters import HeaderConverter, create_header_converter
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import DETECT, RestoreRoot

_LINE_FORMATS = (Format.JSON, Format.CSV, Format.TEXT)


@dataclass(frozen=True, slots=True)
class Message:
    """One message to produce; ``partition`` None = the layout names none."""

    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    timestamp: int | None = None
    partition: int | None = None
    topic: str | None = None
    """The topic the envelope names, read only under ``source.topic.from.envelope`` (None: none)."""


def to_bytes(part: Any) -> bytes | None:
    """A stored key, value or header as the bytes Kafka gets.

    ``bytes`` stay the same bytes (a ByteArrayConverter sink with an envelope restores byte-exact;
    the JSON envelope's base64 parts, flagged ``keyIsArray``/``valueIsArray``/``headersIsArray``,
    are decoded back to bytes by the reader); ``str`` is its UTF-8; ``None`` null (a null key, a
    tombstone); anything else (numbers, booleans, structures decoded from JSON/Avro/Parquet) compact
    JSON (:func:`lakesink.adapters.formats.jsoncodec.dumps`: Decimal exact, datetimes as epoch millis).
    """
    if part is None:
        return None
    if isinstance(part, bytes | bytearray | memoryview):
        return bytes(part)
    if isinstance(part, str):
        return part.encode("utf-8")
    return dumps(part).encode("utf-8")


def read_messages(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[Message]:
    """The messages of one downloaded object, in file order.

    Raises:
        FormatError: the file is not valid for the root's format.
    """
    source = decompressed(root, path)
    object_key = entry.key.encode("utf-8") if root.key_from_object_key else None
    if root.envelope:
        convert = header_converter(root).from_connect
        codec = CompressionCodec.GZIP if root.format is Format.JSON and entry.key.endswith(".gz") else CompressionCodec.UNCOMPRESSED
        for record in open_reader(root.format, source, envelope=True, codec=codec):
            yield Message(
                key=to_bytes(record.key),
                value=to_bytes(record.value),
                headers=tuple((name, convert(value, None)) for name, value in record.headers),
                timestamp=record.timestamp,
                partition=entry.partition if entry.partition is not None else record.partition,
                topic=(record.topic or None) if root.topic_from_envelope else None,
            )
        return
    for value in stored_values(root, entry, source):
        yield Message(key=object_key, value=value, partition=entry.partition)


def header_converter(root: RestoreRoot) -> HeaderConverter:
    """The restore's header converter, built where the objects are read."""
    return create_header_converter(root.header_converter.class_name, root.header_converter.settings)


def stored_values(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[bytes | None]:
    """The values of an object read without an envelope (``path`` already decompressed)."""
    if root.format in _LINE_FORMATS:
        gzipped = root.format is Format.JSON and entry.key.endswith(".gz") and root.compression is None
        with gzip.open(path, "rb") if gzipped else open(path, "rb") as lines:
            yield from _lines(lines, skip_header=root.format is Format.CSV and root.csv_headers)
    elif root.format is Format.BYTES and root.record_separator is not None:
        yield from _separated(path, root.record_separator)
    elif root.format is Format.BYTES:
        yield from _chunks(path, root.bytes_chunk_size)
    else:
        for record in open_reader(root.format, path):
            yield to_bytes(record.value)


def _lines(lines: IO[bytes], *, skip_header: bool) -> Iterator[bytes]:
    for number, line in enumerate(lines):
        if skip_header and number == 0:
            continue
        content = line.rstrip(b"\n").rstrip(b"\r")
        if content.strip():
            yield content


def _separated(path: Path, separator: bytes) -> Iterator[bytes]:
    """Confluent's ByteArrayFormat: each record's bytes followed by the separator (so an empty
    record is an empty piece; the piece after the last separator is a record only if not empty)."""
    pieces = path.read_bytes().split(separator)
    if pieces and not pieces[-1]:
        pieces.pop()
    yield from pieces


def _chunks(path: Path, size: int | None) -> Iterator[bytes]:
    with open(path, "rb") as data:
        if size is None:
            whole = data.read()
            if whole:
                yield whole
            return
        while chunk := data.read(size):
            yield chunk


def decompressed(root: RestoreRoot, path: Path) -> Path:
    """Aiven ``file.compression.type``: the whole object decompressed next to the download.

    Unset (``detect``), the object's first bytes decide: gzip's ``1f 8b`` or zstd's ``28 b5 2f fd``
    magic is decompressed, anything else read as stored.
    """
    compression = _detected(path) if root.compression == DETECT else root.compression
    if compression is None:
        return path
    target = path.with_suffix(".decompressed")
    if compression == "gzip":
        with gzip.open(path, "rb") as source, open(target, "wb") as out:
            while block := source.read(1 << 20):
                out.write(block)
    else:  # zstd, with cramjam (a dependency; the object is decompressed in memory)
        import cramjam

        target.write_bytes(bytes(cramjam.zstd.decompress(path.read_bytes())))
    return target


_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\x28\xb5\x2f\xfd", "zstd"))


def _detected(path: Path) -> str | None:
    with open(path, "rb") as head:
        start = head.read(4)
    return next((name for magic, name in _MAGIC if start.startswith(magic)), None)
