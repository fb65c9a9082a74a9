"""How many records a stored object holds, and (for an envelope) their offsets, read as cheaply as the format allows.

* Parquet: the footer's row count; offsets from the one ``metadata.offset`` column.
* Avro: the record count of each block header (blocks are not decoded); offsets by decoding.
* JSON envelope offsets: each line's ``metadata.offset``.
* anything else (JSON, CSV, TEXT and BYTES lines or separators; Confluent, Aiven and Quix
  files): the restore's own reader of that layout counts what it would produce, so verify and
  restore cannot disagree on what an object holds.

A Confluent value object is counted alone: its ``.keys`` / ``.headers`` siblings hold the same
number of records by construction, and the restore checks them when it reads them.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import fastavro
import pyarrow.parquet as pq

from lakesink.adapters.restore.aiven_batches import aiven_batches
from lakesink.adapters.restore.batches import read_batches
from lakesink.adapters.restore.quix_batches import quix_batches
from lakesink.domain.errors import FormatError, StorageError
from lakesink.domain.formats import Format
from lakesink.domain.ports import ObjectStore
from lakesink.domain.restore.batch import MessageBatch
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot
from lakesink.domain.restore.ports import BatchReader

_OFFSET = ("metadata", "offset")
IN_MEMORY_BYTES = 8 << 20
"""Objects up to this size are read from memory (one GET, no file written); larger ones are downloaded to disk."""


def record_count(store: ObjectStore, root: RestoreRoot, entry: IndexEntry, scratch: Path) -> int:
    """The records of one object, from its footer or block headers where the format has them.

    ``scratch`` is where the object may be downloaded (the caller removes it).

    Raises:
        FormatError: the object is not a valid file of the root's format.
        StorageError: the store failed.
    """
    columnar = root.aiven is None and not root.quix and root.compression is None
    try:
        if columnar and root.format is Format.PARQUET:
            with _source(store, root, entry, scratch) as source:
                return int(pq.ParquetFile(source).metadata.num_rows)
        if columnar and root.format is Format.AVRO:
            with _source(store, root, entry, scratch) as source:
                return sum(block.num_records for block in fastavro.block_reader(source))
    except (OSError, ValueError, EOFError, KeyError) as error:
        if isinstance(error, StorageError):
            raise
        raise FormatError(f"{entry.key} is not a readable {root.format.value} file: {error}") from None
    store.download_file(root.bucket, entry.key, scratch)
    return sum(len(batch) for batch in _reader(root)(root, entry, scratch))


def envelope_offsets(store: ObjectStore, root: RestoreRoot, entry: IndexEntry, scratch: Path) -> list[int]:
    """The ``metadata.offset`` of every record of an envelope object, in file order.

    Raises:
        FormatError: the object is unreadable or a record holds no offset.
        StorageError: the store failed.
    """
    try:
        with _source(store, root, entry, scratch) as source:
            offsets = _offsets(root.format, source)
    except (OSError, ValueError, EOFError, KeyError, TypeError) as error:
        if isinstance(error, StorageError):
            raise
        raise FormatError(f"{entry.key}: cannot read the envelope's metadata.offset: {error}") from None
    if any(not isinstance(offset, int) for offset in offsets):
        raise FormatError(f"{entry.key}: a record's envelope holds no metadata.offset.")
    return [offset for offset in offsets if isinstance(offset, int)]


def _offsets(format: Format, source: BinaryIO) -> list[object]:
    if format is Format.PARQUET:
        column = pq.ParquetFile(source).read(columns=[".".join(_OFFSET)]).column(_OFFSET[0])
        return list(column.combine_chunks().field(_OFFSET[1]).to_pylist())
    if format is Format.AVRO:
        return [row[_OFFSET[0]][_OFFSET[1]] for row in fastavro.reader(source)]
    gzipped = source.read(2) == b"\x1f\x8b"
    source.seek(0)
    lines = gzip.GzipFile(fileobj=source) if gzipped else source
    return [json.loads(line)[_OFFSET[0]][_OFFSET[1]] for line in lines if line.strip()]


def _source(store: ObjectStore, root: RestoreRoot, entry: IndexEntry, scratch: Path) -> BinaryIO:
    """The object as a readable file: its bytes when small, else downloaded to ``scratch``."""
    if entry.size <= IN_MEMORY_BYTES:
        return io.BytesIO(store.get(root.bucket, entry.key).data)
    store.download_file(root.bucket, entry.key, scratch)
    return open(scratch, "rb")  # noqa: SIM115 - the caller's ``with`` closes it


def _reader(root: RestoreRoot) -> BatchReader:
    """The restore's batch reader of the root's layout (a Confluent value object read alone)."""
    if root.aiven is not None:
        return aiven_batches
    if root.quix:
        return quix_batches
    return _value_batches if root.confluent is not None else read_batches


def _value_batches(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
    """A Confluent value object's records, without its siblings (which the restore reads with it)."""
    return read_batches(dataclasses.replace(root, confluent=None), entry, path)
