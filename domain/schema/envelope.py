"""The ``store.envelope`` row: key, value, headers and metadata of one Kafka message.

Layout (Lenses §5.3; field names are a compatibility contract)::

    {"key": …, "value": …, "headers": {name: value, … sorted by name},
     "metadata": {"timestamp": ms, "topic": t, "partition": p, "offset": o}}

Avro/Parquet schema of the row: an unnamed record (``ConnectDefault`` once named) with

* ``key`` / ``value``: the part's schema made optional; a null part is ``"null"``;
* ``headers``: a record of optional header fields sorted by name, or ``"null"`` without headers;
* ``metadata``: ``{timestamp: ["null","long"], topic: string, partition: int, offset: long}``.

Deliberate deviations from Lenses, all in favour of a lossless restore:

* the key and value fields are always present when enabled (Lenses leaves out a part that
  has no schema, so a null key or a tombstone changes the schema and rolls the file; here
  the part is nullable and a merged schema keeps one file);
* a Timestamp logical type inside key/value stays ``timestamp-millis`` (Lenses' ``toOptional``
  collapses it to ``long``);
* ``metadata.timestamp`` is nullable (Lenses declares it required and fails on a record
  without a timestamp);
* JSON: bytes headers are base64 and listed in ``headersIsArray`` (Lenses has no way to tell
  a bytes header from a string header); readers that do not know the field ignore it.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any

from lakesink.domain.errors import FormatError
from lakesink.domain.records import Record
from lakesink.domain.schema.envelope_fields import EnvelopeFields
from lakesink.domain.schema.infer import infer
from lakesink.domain.schema.model import Schema, optional, record
from lakesink.domain.schema.resolve import schema_for

METADATA_SCHEMA: Schema = {
    "type": "record",
    "fields": [
        {"name": "timestamp", "type": ["null", "long"], "default": None},
        {"name": "topic", "type": "string"},
        {"name": "partition", "type": "int"},
        {"name": "offset", "type": "long"},
    ],
}
_BYTES = (bytes, bytearray, memoryview)


Part = tuple[str, Callable[[Record], Any]]
"""An envelope field and how to read it from a record."""


def _sorted_headers(item: Record) -> dict[str, Any] | None:
    if not item.headers:
        return None
    return dict(sorted(item.headers_dict().items()))


def _metadata(item: Record) -> dict[str, Any]:
    return {"timestamp": item.timestamp, "topic": item.topic, "partition": item.partition, "offset": item.offset}


def envelope_parts(fields: EnvelopeFields) -> tuple[Part, ...]:
    """The fields of the envelope row in row (and schema) order, each with how to read it.

    The one definition of what a row holds: writers build rows from it (``{name: read(record)}``)
    and the Avro writer encodes records straight from it, without building the row. Writers ask
    once per file and keep the answer.
    """
    parts: list[Part] = []
    if fields.key:
        parts.append(("key", attrgetter("key")))
    if fields.value:
        parts.append(("value", attrgetter("value")))
    if fields.headers:
        parts.append(("headers", _sorted_headers))
    if fields.metadata:
        parts.append(("metadata", _metadata))
    return tuple(parts)


def envelope_schema(item: Record, fields: EnvelopeFields) -> Schema:
    """The Avro schema of this record's envelope row (:func:`envelope_parts`).

    Raises:
        FormatError: the key, value or a header has a type no schema describes.
    """
    parts: list[tuple[str, Schema]] = []
    if fields.key:
        parts.append(("key", optional(schema_for(item.key, item.key_schema))))
    if fields.value:
        parts.append(("value", optional(schema_for(item.value, item.value_schema))))
    if fields.headers:
        headers = _sorted_headers(item)
        if headers is None:
            parts.append(("headers", "null"))
        else:
            header_fields = [(name, infer(value)) for name, value in headers.items()]
            parts.append(("headers", optional(record(header_fields, optional_fields=True))))
    if fields.metadata:
        parts.append(("metadata", METADATA_SCHEMA))
    return record(parts)


def record_from_envelope(
    row: Mapping[str, Any], *, index: int, key_schema: Any = None, value_schema: Any = None
) -> Record:
    """Rebuild a record from an envelope row; ``index`` is the offset when metadata is absent."""
    metadata = row.get("metadata") or {}
    headers = row.get("headers") or {}
    return Record(
        topic=metadata.get("topic", ""),
        partition=metadata.get("partition", 0),
        offset=metadata.get("offset", index),
        timestamp=metadata.get("timestamp"),
        key=row.get("key"),
        value=row.get("value"),
        headers=tuple(headers.items()),
        key_schema=key_schema,
        value_schema=value_schema,
    )


def json_envelope(item: Record, fields: EnvelopeFields) -> dict[str, Any]:
    """The JSON envelope document: top-level bytes become base64 with an ``…IsArray`` flag."""
    document: dict[str, Any] = {}
    for part, enabled, value in (("key", fields.key, item.key), ("value", fields.value, item.value)):
        if not enabled:
            continue
        if isinstance(value, _BYTES):
            document[part] = base64.b64encode(value).decode("ascii")
            document[f"{part}IsArray"] = True
        else:
            document[part] = value
    if fields.headers:
        headers = _sorted_headers(item) or {}
        binary = [name for name, value in headers.items() if isinstance(value, _BYTES)]
        document["headers"] = {
            name: base64.b64encode(value).decode("ascii") if name in binary else value
            for name, value in headers.items()
        }
        if binary:
            document["headersIsArray"] = dict.fromkeys(binary, True)
    if fields.metadata:
        metadata = _metadata(item)
        if metadata["timestamp"] is None:
            del metadata["timestamp"]
        document["metadata"] = metadata
    return document


def record_from_json_envelope(document: Any, *, index: int) -> Record:
    """Rebuild a record from a JSON envelope document (base64 parts decoded).

    Raises:
        FormatError: the document is not an object, or a base64 part does not decode.
    """
    if not isinstance(document, Mapping):
        raise FormatError(f"a JSON envelope must be an object, got {type(document).__name__}")
    row = dict(document)
    try:
        for part in ("key", "value"):
            if row.get(f"{part}IsArray") and row.get(part) is not None:
                row[part] = base64.b64decode(row[part])
        binary = row.get("headersIsArray") or {}
        if binary:
            row["headers"] = {
                name: base64.b64decode(value) if binary.get(name) and value is not None else value
                for name, value in (row.get("headers") or {}).items()
            }
    except ValueError as error:
        raise FormatError(f"JSON envelope record {index}: invalid base64: {error}") from error
    return record_from_envelope(row, index=index)
