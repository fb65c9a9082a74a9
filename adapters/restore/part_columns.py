"""Columns of stored parts (keys, values, headers, metadata) turned into a :class:`MessageBatch`.

The rules are :func:`~lakesink.adapters.restore.messages.to_bytes`'s, but a file's schema says once
what a column holds (:class:`PartKind`), so a column of strings is one list comprehension instead of
a dispatch per value; :data:`PartKind.ANY` keeps that dispatch for what a schema does not pin down
(multi-type unions, logical types, named references). Headers go row by row through
:class:`~.header_bytes.StoredHeaders` (the restore's header converter).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from lakesink.adapters.formats.jsoncodec import dumps
from lakesink.adapters.restore.header_bytes import StoredHeaders
from lakesink.adapters.restore.messages import to_bytes
from lakesink.domain.restore.batch import MessageBatch


class PartKind(enum.Enum):
    """What every non-null value of a column is, as far as its schema tells."""

    TEXT = "text"
    """``str``: UTF-8 encoded."""
    BYTES = "bytes"
    """``bytes`` (never a bytearray or memoryview: the readers give ``bytes``): produced as they are."""
    JSON = "json"
    """Numbers, booleans, structures: compact JSON."""
    ANY = "any"
    """Not known from the schema: :func:`to_bytes` per value."""


def column_bytes(kind: PartKind, values: Sequence[Any]) -> list[bytes | None]:
    """The Kafka bytes of a column whose values are of ``kind`` (None stays None)."""
    if kind is PartKind.TEXT:
        return [None if value is None else value.encode("utf-8") for value in values]
    if kind is PartKind.BYTES:
        return list(values)  # fastavro and pyarrow give bytes already
    if kind is PartKind.JSON:
        return [None if value is None else dumps(value).encode("utf-8") for value in values]
    return [to_bytes(value) for value in values]


def envelope_batch(
    *,
    keys: Sequence[Any],
    values: Sequence[Any],
    headers: Sequence[Mapping[str, Any] | None],
    metadata: Sequence[Mapping[str, Any] | None],
    key_kind: PartKind,
    value_kind: PartKind,
    stored_headers: StoredHeaders,
    partition: int | None,
) -> MessageBatch:
    """A batch from envelope columns; ``partition`` (the key layout's) wins over ``metadata.partition``.

    Without metadata a record has no timestamp and partition 0, as the record reader has it.
    """
    stamps = [row.get("timestamp") if row else None for row in metadata]
    return MessageBatch(
        keys=column_bytes(key_kind, keys),
        values=column_bytes(value_kind, values),
        headers=stored_headers.rows(headers),
        timestamps=[stamp if stamp is not None and stamp >= 0 else 0 for stamp in stamps],
        partitions=[partition] * len(values)
        if partition is not None
        else [row.get("partition", 0) if row else 0 for row in metadata],
    )
