"""PARQUET under ``store.layout=quix``: Quix Streams' ParquetFormat, one table per file.

The table is built from the file's rows (:mod:`lakesink.domain.dialects.quix.rows`) and written
with the same two pyarrow calls Quix makes, when the file rolls (:class:`QuixParquetWriter`).
See docs/quix.md, "What a file holds".
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from lakesink.adapters.formats.data_size import value_size
from lakesink.adapters.formats.parquet import parquet_compression
from lakesink.adapters.formats.staging import StagingFile
from lakesink.domain.dialects.quix.rows import ParquetItem, parquet_item, parquet_rows
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import CompressionCodec
from lakesink.domain.records import Record


class QuixParquetWriter(StagingFile):
    """Keeps a file's items and writes them as one Parquet table when the file is closed.

    Quix builds each batch with ``pa.Table.from_pylist(rows)`` and writes it with
    ``pq.write_table(table, fp, compression=...)``: the column types are inferred from the whole
    batch and the columns are the union of its value fields, so the file's items are kept in memory
    (bounded by ``flush.count`` / ``flush.size``, as Quix's batch is by its checkpoint) and written
    once, by the same two calls, when the file is rolled; the codec is the connector's
    ``compression.codec`` (Quix's default is snappy). ``bytes_written`` is the items' data size
    (:mod:`lakesink.adapters.formats.data_size`), so ``flush.size`` cuts at the same record on a retry.
    """

    def __init__(self, path: Path | str, *, codec: CompressionCodec, level: int | None = None) -> None:
        self._compression, self._level = parquet_compression(codec, level)
        super().__init__(path)
        self._items: list[ParquetItem] = []
        self._data_size = 0

    @property
    def bytes_written(self) -> int:
        """The data size of the items written so far (nothing is in the file before it closes)."""
        return self._data_size

    def _write(self, record: Record) -> None:
        item = parquet_item(record)
        self._items.append(item)
        self._data_size += value_size(item.timestamp) + value_size(item.key) + value_size(item.fields)

    def _finish(self) -> None:
        """Build and write the table.

        Raises:
            FormatError: Arrow cannot make one column of a field's values (an int in one record,
                text in another...); Quix's ParquetFormat fails on the same batch.
        """
        try:
            table = pa.Table.from_pylist(parquet_rows(self._items))
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as error:
            raise FormatError(
                f"the {len(self._items)} records of {self.path} cannot make one Parquet table (Quix's "
                f"ParquetFormat could not write them either): {error}"
            ) from error
        pq.write_table(table, self._raw, compression=self._compression, compression_level=self._level)
        self._items = []
