"""How many records a downloaded object holds, and (for an envelope) their offsets, read as cheaply as the format allows.

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
import json
from collections.abc import Iterator
from pathlib import Path

import fastavro
import pyarrow.parquet as pq

from lakesink.adapters.restore.aiven_batches import aiven_batches
from lakesink.adapters.restore.batches import read_batches
from lakesink.adapters.restore.messages import decompressed
from lakesink.adapters.restore.quix_batches import quix_batches
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import Format
from lakesink.domain.restore.batch import MessageBatch
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot
from lakesink.domain.restore.ports import BatchReader

_OFFSET = ("metadata", "offset")


def record_count(root: RestoreRoot, entry: IndexEntry, path: Path) -> int:
    """The records of one object, from its footer or block headers where the format has them.

    Raises:
        FormatError: the object is not a valid file of the root's format.
    """
    try:
        if root.aiven is None and not root.quix and root.format is Format.PARQUET:
            return int(pq.ParquetFile(path).metadata.num_rows)
        if root.aiven is None and root.format is Format.AVRO:
            with open(decompressed(root, path), "rb") as source:
                return sum(block.num_records for block in fastavro.block_reader(source))
    except (OSError, ValueError, EOFError, KeyError) as error:
        raise FormatError(f"{entry.key} is not a readable {root.format.value} file: {error}") from None
    return sum(len(batch) for batch in _reader(root)(root, entry, path))


def envelope_offsets(root: RestoreRoot, entry: IndexEntry, path: Path) -> list[int]:
    """The ``metadata.offset`` of every record of an envelope object, in file order.

    Raises:
        FormatError: the object is unreadable or a record holds no offset.
    """
    try:
        if root.format is Format.PARQUET:
            column = pq.ParquetFile(path).read(columns=[".".join(_OFFSET)]).column(_OFFSET[0])
            offsets = column.combine_chunks().field(_OFFSET[1]).to_pylist()
        elif root.format is Format.AVRO:
            with open(path, "rb") as source:
                offsets = [row[_OFFSET[0]][_OFFSET[1]] for row in fastavro.reader(source)]
        else:
            opener = gzip.open if _gzipped(path) else open
            with opener(path, "rb") as source:
                offsets = [json.loads(line)[_OFFSET[0]][_OFFSET[1]] for line in source if line.strip()]
    except (OSError, ValueError, EOFError, KeyError, TypeError) as error:
        raise FormatError(f"{entry.key}: cannot read the envelope's metadata.offset: {error}") from None
    if any(not isinstance(offset, int) for offset in offsets):
        raise FormatError(f"{entry.key}: a record's envelope holds no metadata.offset.")
    return offsets


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


def _gzipped(path: Path) -> bool:
    with open(path, "rb") as head:
        return head.read(2) == b"\x1f\x8b"
