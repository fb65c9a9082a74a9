"""How many records a stored object holds, and (for an envelope) their offsets, read as cheaply as the format allows.

Either way verify counts what ``lakesink restore`` would produce (:func:`record_count`).
See docs/verify.md, "Speed: 100,000 objects".
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

from lakesink.adapters.dialects.registry import count_reader
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import Format
from lakesink.domain.ports import ObjectStore
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot

_OFFSET = ("metadata", "offset")
_LINES = (Format.JSON, Format.CSV, Format.TEXT)
IN_MEMORY_BYTES = 8 << 20
"""Objects up to this size are read from memory (one GET, no file written); larger ones are downloaded to disk."""


def record_count(store: ObjectStore, root: RestoreRoot, entry: IndexEntry, scratch: Path) -> int:
    """The records of one object, from its footer or block headers where the format has them.

    ``scratch`` is where the object may be downloaded; it is removed again before this returns.

    Parquet: the footer's row count; Avro: the record count of each block header (blocks are not
    decoded); JSON, CSV and TEXT without an envelope: the lines that are not blank (the restore's
    rule); anything else (envelopes, BYTES separators, Aiven and Quix files): the restore's own reader
    of that layout counts what it would produce (tests/unit/adapters/verify/test_contents.py compares the
    short cuts with the restore's readers). A Confluent value object is counted alone: its
    ``.keys`` / ``.headers`` siblings hold the same number of records by construction, and the
    restore checks them when it reads them.

    Raises:
        FormatError: the object is not a valid file of the root's format.
        StorageError: the store failed.
    """
    plain = root.layout is None or root.layout.plain_objects
    if plain and root.format in _LINES and (root.compression in (None, "gzip")) and not root.envelope:
        with _fetched(store, root, entry, scratch) as source:
            return _line_count(root, entry, source)
    if not plain or root.compression is not None or root.format not in (Format.PARQUET, Format.AVRO):
        with _downloaded(store, root, entry, scratch):
            return sum(len(batch) for batch in count_reader(root)(root, entry, scratch))
    with _fetched(store, root, entry, scratch) as source:
        try:
            if root.format is Format.PARQUET:
                return int(pq.ParquetFile(_arrow(source)).metadata.num_rows)
            with _stream(source) as stream:
                return sum(block.num_records for block in fastavro.block_reader(stream))
        except (OSError, ValueError, EOFError, KeyError) as error:
            raise FormatError(f"{entry.key} is not a readable {root.format.value} file: {error}") from None


def envelope_offsets(store: ObjectStore, root: RestoreRoot, entry: IndexEntry, scratch: Path) -> list[int]:
    """The ``metadata.offset`` of every record of an envelope object, in file order.

    Parquet: the one ``metadata.offset`` column; Avro: by decoding; JSON: each line's
    ``metadata.offset``.

    Raises:
        FormatError: the object is unreadable or a record holds no offset.
        StorageError: the store failed.
    """
    with _fetched(store, root, entry, scratch) as source:
        try:
            offsets = _offsets(root.format, source)
        except (OSError, ValueError, EOFError, KeyError, TypeError) as error:
            raise FormatError(f"{entry.key}: cannot read the envelope's metadata.offset: {error}") from None
    if any(not isinstance(offset, int) for offset in offsets):
        raise FormatError(f"{entry.key}: a record's envelope holds no metadata.offset.")
    return [offset for offset in offsets if isinstance(offset, int)]


def _line_count(root: RestoreRoot, entry: IndexEntry, source: bytes | Path) -> int:
    """The records of a JSON, CSV or TEXT object as the restore reads it (``messages.stored_values``):
    one per line that is not blank, after a CSV header; gzipped when the sink's codec made it so."""
    data = source if isinstance(source, bytes) else source.read_bytes()
    if root.compression == "gzip" or (root.format is Format.JSON and entry.key.endswith(".gz")):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise FormatError(f"{entry.key} is not a readable gzip file: {error}") from None
    skip = 1 if root.format is Format.CSV and root.csv_headers else 0
    return sum(1 for line in data.split(b"\n")[skip:] if line.rstrip(b"\r").strip())


def _offsets(format: Format, source: bytes | Path) -> list[object]:
    if format is Format.PARQUET:
        column = pq.ParquetFile(_arrow(source)).read(columns=[".".join(_OFFSET)]).column(_OFFSET[0])
        return list(column.combine_chunks().field(_OFFSET[1]).to_pylist())
    with _stream(source) as stream:
        if format is Format.AVRO:
            return [row[_OFFSET[0]][_OFFSET[1]] for row in fastavro.reader(stream)]
        gzipped = stream.read(2) == b"\x1f\x8b"
        stream.seek(0)
        lines = gzip.GzipFile(fileobj=stream) if gzipped else stream
        return [json.loads(line)[_OFFSET[0]][_OFFSET[1]] for line in lines if line.strip()]


@contextmanager
def _fetched(
    store: ObjectStore, root: RestoreRoot, entry: IndexEntry, scratch: Path
) -> Iterator[bytes | Path]:
    """The object's bytes when small (no file written), else its download at ``scratch``."""
    if entry.size <= IN_MEMORY_BYTES:
        yield store.get(root.bucket, entry.key).data
    else:
        with _downloaded(store, root, entry, scratch):
            yield scratch


@contextmanager
def _downloaded(store: ObjectStore, root: RestoreRoot, entry: IndexEntry, scratch: Path) -> Iterator[None]:
    """The object downloaded to ``scratch``, removed after (and the decompressed copy a reader may make)."""
    try:
        store.download_file(root.bucket, entry.key, scratch)
        yield
    finally:
        for leftover in (scratch, scratch.with_suffix(".decompressed")):
            leftover.unlink(missing_ok=True)


def _arrow(source: bytes | Path) -> pa.BufferReader | str:
    """What pyarrow reads fastest: a buffer over the bytes (a Python file object is several times slower)."""
    return pa.BufferReader(source) if isinstance(source, bytes) else str(source)


def _stream(source: bytes | Path) -> BinaryIO:
    return io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")  # noqa: SIM115 - the caller's ``with``


