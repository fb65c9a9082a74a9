"""The rows of ``store.layout=quix`` files: what Quix Streams' FileSink formats store per message.

JSON lines ``{"_timestamp", "_key", "_value"}``; Parquet ``_timestamp``, ``_key`` and the union
of the batch's value fields. The converters run first: a ``bytes`` value is parsed as JSON, as
Quix would, any other taken as converted. See docs/quix.md, "What a file holds" and "Where
lakesink differs, and why".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lakesink.domain.records import Record, poison

TIMESTAMP_FIELD = "_timestamp"
KEY_FIELD = "_key"
VALUE_FIELD = "_value"
QUIX_GZIP_LEVEL = 9
"""``gzip.compress``'s default level, which Quix's JSONFormat(compress=True) uses."""
_BYTES = (bytes, bytearray, memoryview)


def quix_key(record: Record) -> str | None:
    """The ``_key`` text of ``record``: the key decoded as UTF-8 (Quix's default ``bytes`` key
    deserializer), a ``str`` key kept, a null key ``null`` (Quix writes ``str(item)``, the repr of
    its SinkItem with a memory address in it). A key of another type (a JsonConverter or Avro key)
    is a poison record: its bytes are gone, so the text Quix would store cannot be rebuilt.

    Raises:
        RecordError: the key is bytes that are not UTF-8, or neither bytes, text nor null.
    """
    key = record.key
    if key is None or isinstance(key, str):
        return key
    if isinstance(key, _BYTES):
        try:
            return bytes(key).decode("utf-8")
        except UnicodeDecodeError as error:
            raise poison(
                record, f"store.layout=quix stores the key as UTF-8 text, and it is not: {error}"
            ) from None
    raise poison(
        record,
        f"store.layout=quix stores the key as the text of its bytes, and the key converter gave a "
        f"{type(key).__name__}; use key.converter=ByteArrayConverter (the default) or StringConverter",
    )


def quix_value(record: Record) -> Any:
    """The ``_value`` of ``record``: raw bytes parsed as JSON, anything else as converted.

    Raises:
        RecordError: raw bytes that are not JSON.
    """
    value = record.value
    if not isinstance(value, _BYTES):
        return value
    try:
        return json.loads(bytes(value))
    except ValueError as error:
        raise poison(record, f"store.layout=quix reads the value as JSON, and it is not: {error}") from None


def json_row(record: Record) -> dict[str, Any]:
    """The JSON line's object, fields in Quix's order.

    Raises:
        RecordError: see :func:`quix_key` and :func:`quix_value`.
    """
    return {TIMESTAMP_FIELD: record.timestamp, KEY_FIELD: quix_key(record), VALUE_FIELD: quix_value(record)}


@dataclass(frozen=True, slots=True)
class ParquetItem:
    """What one record contributes to a Parquet file; the row needs the file's columns."""

    timestamp: int | None
    key: str | None
    fields: Mapping[str, Any]


def parquet_item(record: Record) -> ParquetItem:
    """The record's timestamp, key text and value fields (none for a tombstone).

    Raises:
        RecordError: the value is not a mapping (Quix's Parquet rows are the value's fields), or
            see :func:`quix_key` and :func:`quix_value`.
    """
    value = quix_value(record)
    if value is not None and not isinstance(value, Mapping):
        raise poison(
            record,
            f"store.layout=quix with PARQUET stores the value's fields as columns, and the value is a "
            f"{type(value).__name__}, not an object",
        )
    return ParquetItem(record.timestamp, quix_key(record), value or {})


def parquet_rows(items: Iterable[ParquetItem]) -> list[dict[str, Any]]:
    """The rows of one file: ``_timestamp``, ``_key``, then every value field of the file.

    Columns are the union of the items' fields, in first-seen order; a missing field is None. A
    value field called ``_timestamp`` or ``_key`` replaces that column's value, as Quix's
    ``{"_timestamp": ..., "_key": ..., **fields}`` does.
    """
    listed = list(items)
    columns = list(dict.fromkeys(name for item in listed for name in item.fields))
    return [
        {
            TIMESTAMP_FIELD: item.timestamp,
            KEY_FIELD: item.key,
            **{column: item.fields.get(column) for column in columns},
        }
        for item in listed
    ]
