"""Kafka Connect JSON schemas (``schemas.enable=true``) and their payloads.

A ``JsonConverter`` message is ``{"schema": …, "payload": …}``; the schema maps to Avro as
Confluent's ``AvroData`` maps it (the conversion Lenses runs before writing Avro or Parquet,
:func:`connect_to_avro`), and the payload's logical types are decoded into Python values.
See docs/formats.md, "Values and schemas".
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from lakesink.domain.errors import FormatError
from lakesink.domain.schema.model import (
    DATE,
    DEFAULT_DECIMAL_PRECISION,
    TIME_MILLIS,
    TIMESTAMP_MILLIS,
    Schema,
    decimal,
    optional,
)

TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"
DATE_NAME = "org.apache.kafka.connect.data.Date"
TIME_NAME = "org.apache.kafka.connect.data.Time"
DECIMAL_NAME = "org.apache.kafka.connect.data.Decimal"

_PRIMITIVES = {
    "int8": "int",
    "int16": "int",
    "int32": "int",
    "int64": "long",
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "string": "string",
    "bytes": "bytes",
}
"""Connect's primitive types by the names ``JsonConverter`` writes (``JsonSchema``): FLOAT32 is
``float`` and FLOAT64 ``double``, every other type its ``Schema.Type`` name in lower case."""
_PRIMITIVES.update({"float32": "float", "float64": "double"})  # Schema.Type's names, as hand-written schemas have them
_CONNECT_ONLY = frozenset({"struct", "int8", "int16", "int32", "int64", "float32", "float64"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_DATE = date(1970, 1, 1)


def is_connect_schema(schema: Any) -> bool:
    """Whether a dict is a Connect schema rather than an Avro one (they share some names)."""
    if not isinstance(schema, Mapping):
        return False
    if schema.get("type") in _CONNECT_ONLY or "optional" in schema:
        return True
    if schema.get("type") == "array":
        return is_connect_schema(schema.get("items"))
    if schema.get("type") == "map":
        return is_connect_schema(schema.get("keys")) or is_connect_schema(schema.get("values"))
    return False


def connect_to_avro(schema: Mapping[str, Any]) -> Schema:
    """The Avro schema of a Connect schema; optional types become ``["null", T]``.

    As Confluent's ``AvroData`` maps it: ``org.apache.kafka.connect.data.Timestamp`` → long /
    timestamp-millis (an aware ``datetime`` in Python), ``Date`` → int / date (``date``), ``Time`` →
    int / time-millis (``time``), ``Decimal`` → bytes / decimal with ``connect.decimal.precision``
    when the schema has it, else 38 (``Decimal``).

    Raises:
        FormatError: an unknown Connect type, or a map with non-string keys.
    """
    converted = _convert(schema)
    return optional(converted) if schema.get("optional", False) else converted


def _convert(schema: Mapping[str, Any]) -> Schema:
    type_name = schema.get("type")
    name = schema.get("name")
    if name == TIMESTAMP:
        return dict(TIMESTAMP_MILLIS)
    if name == DATE_NAME:
        return dict(DATE)
    if name == TIME_NAME:
        return dict(TIME_MILLIS)
    if name == DECIMAL_NAME:
        parameters = schema.get("parameters") or {}
        precision = int(parameters.get("connect.decimal.precision", DEFAULT_DECIMAL_PRECISION))
        return decimal(int(parameters.get("scale", 0)), precision)
    if type_name in _PRIMITIVES:
        avro = _PRIMITIVES[type_name]
        return {"type": avro, "connect.type": type_name} if type_name in ("int8", "int16") else avro
    if type_name == "struct":
        return _struct(schema)
    if type_name == "array":
        return {"type": "array", "items": connect_to_avro(schema["items"])}
    if type_name == "map":
        if (schema.get("keys") or {}).get("type") != "string":
            raise FormatError(f"maps with non-string keys are not supported: {dict(schema)!r}")
        return {"type": "map", "values": connect_to_avro(schema["values"])}
    raise FormatError(f"unknown Connect schema type {type_name!r}")


def _struct(schema: Mapping[str, Any]) -> Schema:
    fields = []
    for field in schema.get("fields", ()):
        field_schema = connect_to_avro(field)
        out: dict[str, Any] = {"name": field["field"], "type": field_schema}
        if field.get("optional", False):
            out["default"] = None
        elif "default" in field:
            out["default"] = field["default"]
        if field.get("doc"):
            out["doc"] = field["doc"]
        fields.append(out)
    record: dict[str, Any] = {"type": "record"}
    name = schema.get("name")
    if name:
        namespace, _, short = str(name).rpartition(".")
        record["name"] = short
        if namespace:
            record["namespace"] = namespace
    if schema.get("version") is not None:
        record["connect.version"] = int(schema["version"])
    if schema.get("doc"):
        record["doc"] = schema["doc"]
    record["fields"] = fields
    return record


def decode_connect_payload(schema: Mapping[str, Any] | None, payload: Any) -> Any:
    """A JsonConverter payload as Python data: logical types decoded, base64 bytes decoded.

    Raises:
        FormatError: the payload does not match the schema (names the offending value).
    """
    if payload is None or schema is None:
        return payload
    try:
        return _decode(schema, payload)
    except (KeyError, TypeError, ValueError, binascii.Error) as error:
        raise FormatError(f"Connect payload {payload!r} does not match its schema: {error}") from error


def _decode(schema: Mapping[str, Any], payload: Any) -> Any:
    if payload is None:
        return None
    name = schema.get("name")
    if name == TIMESTAMP:
        return _EPOCH + timedelta(milliseconds=int(payload))
    if name == DATE_NAME:
        return _EPOCH_DATE + timedelta(days=int(payload))
    if name == TIME_NAME:
        return (datetime.min + timedelta(milliseconds=int(payload))).time()
    if name == DECIMAL_NAME:
        scale = int((schema.get("parameters") or {}).get("scale", 0))
        if isinstance(payload, str):  # decimal.format=BASE64 (the default)
            unscaled = int.from_bytes(base64.b64decode(payload), "big", signed=True)
            return Decimal(unscaled).scaleb(-scale)
        return Decimal(str(payload))  # decimal.format=NUMERIC
    type_name = schema.get("type")
    if type_name == "bytes":
        return base64.b64decode(payload)
    if type_name == "struct":
        return {field["field"]: _decode(field, payload.get(field["field"])) for field in schema["fields"]}
    if type_name == "array":
        return [_decode(schema["items"], item) for item in payload]
    if type_name == "map":
        return {key: _decode(schema["values"], item) for key, item in payload.items()}
    return payload


def from_connect_envelope(document: Mapping[str, Any]) -> tuple[Schema | None, Any]:
    """Split a ``{"schema", "payload"}`` message into (Avro schema, decoded value).

    Raises:
        FormatError: the document is not a Connect envelope or its payload does not match.
    """
    if not isinstance(document, Mapping) or set(document) != {"schema", "payload"}:
        raise FormatError('a Connect JSON message with schemas.enable=true needs exactly "schema" and "payload"')
    schema = document["schema"]
    if schema is None:
        return None, document["payload"]
    return connect_to_avro(schema), decode_connect_payload(schema, document["payload"])


def time_of_day_millis(value: time) -> int:
    """Milliseconds since midnight, the Connect/Avro encoding of a time."""
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
