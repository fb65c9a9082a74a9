"""The Parquet metadata a table commit needs of each file: the footer its task kept, else read back."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow.parquet as pq

from lakesink.adapters.formats.parquet_footer import footer_metadata
from lakesink.domain.tables.table_port import DataFile

READERS = 8
"""Files read back at once when their footers were not kept (each read waits on the store)."""


@dataclass(frozen=True, slots=True)
class Footer:
    """One file as a commit adds it: its key, size and Parquet metadata."""

    key: str
    size: int
    metadata: pq.FileMetaData


def footers(files: Sequence[DataFile], read_back: Callable[[DataFile], tuple[int, pq.FileMetaData]]) -> list[Footer]:
    """Each file's footer, in order: the one its task kept, else ``read_back`` (size, metadata) from the store."""
    kept = {f.key: Footer(f.key, f.size, footer_metadata(f.footer)) for f in files if f.footer and f.size}
    missing = [f for f in files if f.key not in kept]
    if missing:
        with ThreadPoolExecutor(min(READERS, len(missing))) as pool:
            for data_file, (size, metadata) in zip(missing, pool.map(read_back, missing), strict=True):
                kept[data_file.key] = Footer(data_file.key, size, metadata)
    return [kept[f.key] for f in files]
