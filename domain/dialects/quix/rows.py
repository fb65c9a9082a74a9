"""The rows of ``store.layout=quix`` files: what Quix Streams' FileSink formats store per message.

Quix (quixstreams/sinks/community/file/formats/) writes, for each item of a batch:

* JSON: ``{"_timestamp": <ms>, "_key": <key>, "_value": <value>}``, one compact line each;
* Parquet: ``{"_timestamp": <ms>, "_key": <key>, **<the value's fields>}``, where the columns
  are the union of the value fields of the whole batch and a field a value lacks is null.

``_key`` is the key decoded as UTF-8 (Quix's default ``bytes`` key deserializer), ``_value`` the
deserialized value (Quix's default ``json`` deserializer). In lakesink the converters run
first, so: a ``bytes`` value (ByteArrayConverter, lakesink's default) is parsed as JSON, as Quix
would; any other value (JsonConverter's dicts, StringConverter's text...) is taken as the
converter gives it. A ``bytes`` key is decoded as UTF-8 and a ``str`` key kept.

Where lakesink differs from Quix, on purpose (docs/quix.md):

* a null key is ``null``; Quix writes ``str(item)``, the repr of its SinkItem with a memory
  address in it, because it tests ``isinstance(item.key, bytes)`` only;
* a key of another type (a JsonConverter or Avro key) is a poison record: its bytes are gone,
  so the text Quix would store cannot be rebuilt; use ByteArrayConverter or StringConverter;
* Parquet columns come in the order their field first appears in the file (Quix iterates a
  ``set``, so its order changes from one process to the next), and a tombstone gives a row of
  nulls (Quix fails on ``None.keys()``); a value that is no mapping is a poison record (Quix fails
  the whole batch);
* a record without a timestamp has ``_timestamp`` null.
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
    """The ``_key`` text of ``record`` (see the module docstring for non-text keys).

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
