"""Quix Streams FileSink objects read back as message batches (``store.layout=quix``).

Each row is Quix's ``{"_timestamp", "_key", "_value"}``: JSON lines (gzipped when the key ends in
``.gz``) or a Parquet table of ``_timestamp``, ``_key`` and the value's fields (:func:`quix_batches`).
See docs/quix.md, "Restoring a Quix bucket".
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from lakesink.adapters.formats.jsoncodec import dumps
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import Format
from lakesink.domain.restore.batch import MessageBatch, kafka_timestamp
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot

ROWS = 4096
_META = ("_timestamp", "_key")


def quix_batches(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
    """The messages of one downloaded Quix object, in file order.

    The key is ``_key`` as UTF-8 (null stays null); the value ``_value`` as compact JSON (what Quix's
    JSON deserializer read; the original spacing is not stored), or from Parquet the row's other
    columns as a JSON object without the columns that are null in that row (Quix fills a field
    another record of the file had with null: an explicit null field in the original value cannot be
    told apart and is left out); the timestamp ``_timestamp`` (epoch milliseconds); no headers (Quix
    stores none).

    Raises:
        FormatError: a row is not Quix's shape, or the file is not valid JSON lines / Parquet.
    """
    rows = _parquet_rows(path) if root.format is Format.PARQUET else _json_rows(entry.key, path)
    iterator = iter(rows)
    while chunk := list(islice(iterator, ROWS)):
        yield _batch(entry, chunk)


def _json_rows(key: str, path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rb") if key.endswith(".gz") else open(path, "rb") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as error:
                raise FormatError(f"{key} line {number} is not JSON: {error}") from None
            if not isinstance(row, dict) or not {"_timestamp", "_key", "_value"} <= row.keys():
                raise FormatError(f"{key} line {number} is not a Quix row (_timestamp, _key, _value).")
            yield row


def _parquet_rows(path: Path) -> Iterable[dict[str, Any]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as error:  # noqa: BLE001 - pyarrow raises several kinds for a bad file
        raise FormatError(f"{path.name} is not a Parquet file: {error}") from None
    for row in table.to_pylist():
        value = {name: cell for name, cell in row.items() if name not in _META and cell is not None}
        yield {"_timestamp": row.get("_timestamp"), "_key": row.get("_key"), "_value": value}


def _batch(entry: IndexEntry, rows: list[dict[str, Any]]) -> MessageBatch:
    keys = [None if row["_key"] is None else str(row["_key"]).encode("utf-8") for row in rows]
    values = [None if row["_value"] is None else dumps(row["_value"]).encode("utf-8") for row in rows]
    stamps = [
        kafka_timestamp(row["_timestamp"] if isinstance(row["_timestamp"], int) else None) for row in rows
    ]
    return MessageBatch(keys, values, [None] * len(rows), stamps, [entry.partition] * len(rows))
