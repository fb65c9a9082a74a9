"""The ``store.envelope`` row: key, value, headers and metadata of one Kafka message.

Its field names are a compatibility contract with Lenses; where lakesink deviates, it is for a
lossless restore. See docs/formats.md, "Envelope (``store.envelope=true``; JSON, AVRO, PARQUET)"
and "Deliberate deviations from Lenses".
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from operator import attrgetter
from typing import Any

from lakesink.domain.errors import FormatError
from lakesink.domain.records import Record
from lakesink.domain.schema.envelope_fields import EnvelopeFields, HeadersLayout
from lakesink.domain.schema.headers import HEADER_LIST_SCHEMA, avro_field_name, headers_record
from lakesink.domain.schema.infer import infer
from lakesink.domain.schema.model import Schema, non_null, optional, record
from lakesink.domain.schema.resolve import schema_for
from lakesink.domain.transforms.header_values import convert_to_string, java_float

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
    """Header name → value, the last value of a repeated name, sorted by name (the JSON object)."""
    if not item.headers:
        return None
    return dict(sorted(item.headers_dict().items()))


def _header_fields(item: Record) -> dict[str, Any] | None:
    """The struct layout's row: the Avro field name of each header → its (last) value."""
    if not item.headers:
        return None
    return {avro_field_name(name): value for name, value in sorted(item.headers_dict().items())}


def _header_list(item: Record) -> list[dict[str, Any]]:
    """The list layout's row: every header in order, as bytes."""
    return [{"key": name, "value": _header_bytes(value)} for name, value in item.headers]


def _header_bytes(value: Any) -> bytes | None:
    """A header value as bytes: raw headers are bytes already; one a transform set is written
    as SimpleHeaderConverter would send it."""
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, _BYTES):
        return bytes(value)
    text = value if isinstance(value, str) else convert_to_string(value)
    return None if text is None else text.encode("utf-8")


def _header_schemas(item: Record) -> dict[str, Schema]:
    """Header name → Avro schema of its last value: the converter's, else inferred."""
    return {
        name: infer(value) if schema is None else schema
        for (name, value), schema in zip(item.headers, item.aligned_header_schemas(), strict=True)
    }


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
        parts.append(
            ("headers", _header_list if fields.headers_layout is HeadersLayout.LIST else _header_fields)
        )
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
        if fields.headers_layout is HeadersLayout.LIST:
            parts.append(("headers", HEADER_LIST_SCHEMA))
        elif not item.headers:
            parts.append(("headers", "null"))
        else:
            parts.append(("headers", optional(headers_record(_header_schemas(item)))))
    if fields.metadata:
        parts.append(("metadata", METADATA_SCHEMA))
    return record(parts)


def record_from_envelope(
    row: Mapping[str, Any],
    *,
    index: int,
    key_schema: Any = None,
    value_schema: Any = None,
    header_names: Mapping[str, str] | None = None,
) -> Record:
    """Rebuild a record from an envelope row; ``index`` is the offset when metadata is absent.

    ``header_names`` (field → header name) is given for a file whose schema fixes the header
    fields (Avro, Parquet): there a null field is a header the record did not have, since every
    record of the file has every field (see :mod:`.headers`), and is left out.
    """
    metadata = row.get("metadata") or {}
    return Record(
        topic=metadata.get("topic", ""),
        partition=metadata.get("partition", 0),
        offset=metadata.get("offset", index),
        timestamp=metadata.get("timestamp"),
        key=row.get("key"),
        value=row.get("value"),
        headers=stored_headers(row.get("headers"), header_names),
        key_schema=key_schema,
        value_schema=value_schema,
    )


def _float32_as_written(headers: dict[str, Any], item: Record) -> dict[str, Any]:
    """Float32 headers as their own shortest digits (``3.1415927``, as Jackson writes a Java
    float), not the longer digits of the double that holds them in Python."""
    if not item.header_schemas or not any(type(value) is float for value in headers.values()):
        return headers
    schemas = _header_schemas(item)
    return {
        name: Decimal(java_float(value))
        if type(value) is float and math.isfinite(value) and non_null(schemas[name]) == ["float"]
        else value
        for name, value in headers.items()
    }


def stored_headers(stored: Any, header_names: Mapping[str, str] | None) -> tuple[tuple[str, Any], ...]:
    """The ``(name, value)`` headers of a stored ``headers`` part, in either layout."""
    if not stored:
        return ()
    if isinstance(stored, Mapping):
        if header_names is None:
            return tuple(stored.items())
        return tuple(
            (header_names.get(field, field), value) for field, value in stored.items() if value is not None
        )
    return tuple((pair["key"], pair["value"]) for pair in stored)


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
    if fields.headers and fields.headers_layout is HeadersLayout.LIST:
        document["headers"] = [
            {
                "key": pair["key"],
                "value": None if pair["value"] is None else base64.b64encode(pair["value"]).decode("ascii"),
            }
            for pair in _header_list(item)
        ]
    elif fields.headers:
        headers = _float32_as_written(_sorted_headers(item) or {}, item)
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
        if isinstance(row.get("headers"), list):
            row["headers"] = [
                {
                    "key": pair["key"],
                    "value": None if pair.get("value") is None else base64.b64decode(pair["value"]),
                }
                for pair in row["headers"]
            ]
        binary = row.get("headersIsArray") or {}
        if binary:
            row["headers"] = {
                name: base64.b64decode(value) if binary.get(name) and value is not None else value
                for name, value in (row.get("headers") or {}).items()
            }
    except ValueError as error:
        raise FormatError(f"JSON envelope record {index}: invalid base64: {error}") from error
    return record_from_envelope(row, index=index)
