"""A Confluent S3 sink value object, with its stored keys and headers, as message batches.

The ``.keys`` and ``.headers`` siblings must hold as many records as the value file; that is
checked before any record is handed over (:func:`confluent_batches`).
See docs/restore.md, "Config forms".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from lakesink.adapters.formats import open_reader
from lakesink.adapters.restore.batches import read_batches
from lakesink.adapters.restore.messages import decompressed, header_converter, to_bytes
from lakesink.domain.dialects.confluent.restore_keys import ConfluentLayout, StoredViewFile, sibling_path
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import Format
from lakesink.domain.restore.batch import HeaderList, MessageBatch
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot


def confluent_batches(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
    """The records of one value object (downloaded to ``path``, its siblings next to it), in file order.

    The value file is read as any object without an envelope (:func:`lakesink.adapters.restore.batches.read_batches`).
    The ``.keys`` sibling is read the same way in its own format, record by record in the same order;
    the ``.headers`` sibling holds, per record, an array of ``{key, value}`` (as JSON or Parquet
    wrapped in ``{"headers": [...]}``) whose values are ``Values.convertToString`` text, written back
    by the restore's header converter. A sibling that is missing or holds another number of records
    is a FormatError naming both objects, raised before any record of the object is handed over (so
    ``errors.tolerance=all`` skips the whole object): an object with siblings is read whole first
    (it is one flush, ``flush.size`` records).

    Raises:
        FormatError: a file is not valid for its format, a sibling is missing, or a sibling's
            record count differs from the value file's.
    """
    layout = root.layout
    assert isinstance(layout, ConfluentLayout), "a Confluent root"
    values = read_batches(dataclasses.replace(root, layout=None), entry, path)
    if layout.keys is None and layout.headers is None:
        yield from values
        return
    batches = list(values)
    count = sum(len(batch) for batch in batches)
    siblings = dict(layout.siblings(entry.key))
    keys = _stored_keys(root, layout, entry, path, siblings, count) if layout.keys is not None else None
    headers = (
        _stored_headers(root, layout, entry, path, siblings, count) if layout.headers is not None else None
    )
    start = 0
    for batch in batches:
        stop = start + len(batch)
        yield MessageBatch(
            keys=keys[start:stop] if keys is not None else batch.keys,
            values=batch.values,
            headers=headers[start:stop] if headers is not None else batch.headers,
            timestamps=batch.timestamps,
            partitions=batch.partitions,
        )
        start = stop


def _stored_keys(
    root: RestoreRoot,
    layout: ConfluentLayout,
    entry: IndexEntry,
    path: Path,
    siblings: dict[str, str],
    count: int,
) -> list[bytes | None]:
    """The key bytes of the ``.keys`` sibling, read like a value file of its format."""
    assert layout.keys is not None
    key, file = _sibling(entry, path, siblings, "keys")
    view_root = _view_root(root, layout.keys)
    if view_root.format is Format.PARQUET:  # Confluent envelopes Parquet keys: struct RecordKey{key}
        keys = [to_bytes(_enveloped_key(record.value, key)) for record in open_reader(Format.PARQUET, file)]
    else:
        keys = [
            value
            for batch in read_batches(view_root, dataclasses.replace(entry, key=key), file)
            for value in batch.values
        ]
    _check_count(entry, key, "keys", len(keys), count)
    return keys


def _stored_headers(
    root: RestoreRoot,
    layout: ConfluentLayout,
    entry: IndexEntry,
    path: Path,
    siblings: dict[str, str],
    count: int,
) -> list[HeaderList | None]:
    """Each record's headers from the ``.headers`` sibling, converted back by the header converter."""
    assert layout.headers is not None
    key, file = _sibling(entry, path, siblings, "headers")
    view_root = _view_root(root, layout.headers)
    convert = header_converter(root).from_connect
    rows = [
        _header_list(record.value, key)
        for record in open_reader(view_root.format, decompressed(view_root, file))
    ]
    _check_count(entry, key, "headers", len(rows), count)
    return [[(name, convert(value, None)) for name, value in row] or None for row in rows]


def _enveloped_key(stored: Any, key: str) -> Any:
    if not isinstance(stored, dict) or "key" not in stored:
        raise FormatError(f"{key}: a Parquet keys row is not Confluent's RecordKey {{key}}: {str(stored)[:200]}")
    return stored["key"]


def _header_list(stored: Any, key: str) -> Sequence[tuple[str, Any]]:
    """One record's ``[{key, value}, ...]`` (unwrapped from ``{"headers": [...]}``) as (name, value) pairs."""
    if isinstance(stored, dict) and "headers" in stored:
        stored = stored["headers"]
    if not isinstance(stored, list) or not all(
        isinstance(h, dict) and isinstance(h.get("key"), str) for h in stored
    ):
        raise FormatError(
            f"{key}: a record's headers are not an array of {{key, value}}: {str(stored)[:200]}"
        )
    return [(header["key"], header.get("value")) for header in stored]


def _sibling(entry: IndexEntry, path: Path, siblings: dict[str, str], marker: str) -> tuple[str, Path]:
    key, file = siblings[marker], sibling_path(path, marker)
    if not file.exists():
        raise FormatError(f"{entry.key} has no {marker} object {key} (store.kafka.{marker}=true).")
    return key, file


def _view_root(root: RestoreRoot, view: StoredViewFile) -> RestoreRoot:
    """The root a sibling is read with: its own format and compression, no Confluent siblings."""
    return dataclasses.replace(root, format=view.format, compression=view.compression, layout=None)


def _check_count(entry: IndexEntry, key: str, marker: str, found: int, expected: int) -> None:
    if found != expected:
        raise FormatError(
            f"{key} holds {found} {marker} but its value object {entry.key} holds {expected} records."
        )
