"""Quix Streams' FileSink serialisers restated, to compare ``store.layout=quix`` files with.

From quixstreams/sinks/community/file/formats/json.py and parquet.py. Quix writes JSON lines
through the ``jsonlines`` package's ``Writer(fp, compact=True)``, which encodes each object with
``json.JSONEncoder(ensure_ascii=False, sort_keys=False, separators=(",", ":")).encode`` and writes
``line.encode("utf-8") + b"\\n"`` to a binary file (read in wbolster/jsonlines, jsonlines.py,
``Writer.__init__`` and ``Writer.write``); jsonlines itself is not a lakesink dependency.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


@dataclass(repr=False)
class SinkItem:
    """Quix's SinkItem (quixstreams/sinks/base/item.py): what its formats read; no repr, as Quix's."""

    value: Any
    key: Any
    timestamp: int
    offset: int


def quix_json(items: Iterable[SinkItem], *, compress: bool = False) -> bytes:
    """JSONFormat.serialize with jsonlines' compact Writer inlined."""
    dumps = json.JSONEncoder(ensure_ascii=False, sort_keys=False, separators=(",", ":")).encode
    with io.BytesIO() as fp:
        for item in items:
            line = dumps(
                {
                    "_timestamp": item.timestamp,
                    "_key": item.key.decode() if isinstance(item.key, bytes) else str(item),
                    "_value": item.value,
                }
            )
            fp.write(line.encode("utf-8"))
            fp.write(b"\n")
        value = fp.getvalue()
    return gzip.compress(value) if compress else value


def quix_parquet(items: Sequence[SinkItem], *, columns_in_first_seen_order: bool = False) -> bytes:
    """ParquetFormat.serialize (compression "snappy"); Quix collects the columns in a ``set``,
    whose order changes between processes: ``columns_in_first_seen_order`` takes lakesink's."""
    columns: Iterable[str]
    if columns_in_first_seen_order:
        columns = list(dict.fromkeys(name for item in items for name in item.value.keys()))
    else:
        columns = set()
        for item in items:
            columns.update(item.value.keys())
    normalized_messages = [
        {
            "_timestamp": item.timestamp,
            "_key": item.key.decode() if isinstance(item.key, bytes) else str(item),
            **{column: item.value.get(column, None) for column in columns},
        }
        for item in items
    ]
    with io.BytesIO() as fp:
        pq.write_table(pa.Table.from_pylist(normalized_messages), fp, compression="snappy")
        return fp.getvalue()
