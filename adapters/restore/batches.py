"""Reading a downloaded object as message batches (:class:`~lakesink.domain.restore.batch.MessageBatch`).

Restore throughput is bounded by the Python work per record, so no Record or Message is built per
row: Avro and Parquet objects are read into columns (:mod:`.avro_batches`, :mod:`.parquet_batches`)
converted as the schema says once per file, line and bytes objects batched from their values; the
JSON envelope goes through the record reader. Every path gives the bytes of
:func:`~lakesink.adapters.restore.messages.read_messages` (tested per format).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import TypeVar

from lakesink.adapters.collector import collector_paused
from lakesink.adapters.restore.messages import Message, decompressed, read_messages, stored_values
from lakesink.domain.formats import Format
from lakesink.domain.restore.batch import MessageBatch, kafka_timestamp
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot

BATCH_ROWS = 4096
"""Rows per batch: large enough that per-batch work vanishes, small enough to bound memory."""

_T = TypeVar("_T")


def read_batches(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
    """The messages of one downloaded object, in file order, in batches of up to :data:`BATCH_ROWS`.

    Raises:
        FormatError: the file is not valid for the root's format.
    """
    yield from _collector_paused(_batches(root, entry, path))


def _batches(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
    if root.envelope and (root.format is Format.JSON or root.topic_from_envelope):
        # The record reader: JSON envelopes base64-decode per part anyway; and only it reads the
        # envelope's topic (the columnar Avro/Parquet readers do not, yet).
        for chunk in _chunked(read_messages(root, entry, path)):
            yield _from_messages(chunk, topics=root.topic_from_envelope)
        return
    source = decompressed(root, path)
    if root.format is Format.AVRO:
        from lakesink.adapters.restore.avro_batches import avro_batches

        yield from avro_batches(root, entry, source, BATCH_ROWS)
    elif root.format is Format.PARQUET:
        from lakesink.adapters.restore.parquet_batches import parquet_batches

        yield from parquet_batches(root, entry, source, BATCH_ROWS)
    else:
        key = entry.key.encode("utf-8") if root.key_from_object_key else None
        for values in _chunked(stored_values(root, entry, source)):
            yield MessageBatch.of_values(values, key=key, partition=entry.partition)


def _collector_paused(batches: Iterator[MessageBatch]) -> Iterator[MessageBatch]:
    """Each batch is read with the cyclic garbage collector paused (:mod:`lakesink.adapters.collector`);
    it runs between batches."""
    while True:
        with collector_paused():
            batch = next(batches, None)
        if batch is None:
            return
        yield batch


def _chunked(items: Iterable[_T]) -> Iterator[list[_T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, BATCH_ROWS)):
        yield chunk


def _from_messages(messages: Sequence[Message], *, topics: bool) -> MessageBatch:
    return MessageBatch(
        keys=[m.key for m in messages],
        values=[m.value for m in messages],
        headers=[list(m.headers) if m.headers else None for m in messages],
        timestamps=[kafka_timestamp(m.timestamp) for m in messages],
        partitions=[m.partition for m in messages],
        topics=[m.topic for m in messages] if topics else None,
    )
