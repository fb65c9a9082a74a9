"""Kafka Connect's JSON envelope (``JsonConverter`` with ``schemas.enable=true``) to Python data.

A message is ``{"schema": <Connect schema>, "payload": <value>}``. The payload alone is not
enough: bytes travel as base64 strings and logical types as numbers (Timestamp = epoch millis,
Date = days, Time = millis of the day, Decimal = base64 two's complement or a number), so the
schema drives the decoding. Maps with non-string keys travel as ``[[key, value], ...]``.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import decimal
from collections.abc import Mapping
from typing import Any

TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"
DATE = "org.apache.kafka.connect.data.Date"
TIME = "org.apache.kafka.connect.data.Time"
DECIMAL = "org.apache.kafka.connect.data.Decimal"

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_DAY = dt.date(1970, 1, 1)


class ConnectJsonError(ValueError):
    """The payload does not match its Connect schema; the converter names the record."""


def split_envelope(document: Any) -> tuple[Any, Mapping[str, Any] | None]:
    """``(payload, schema)`` of an envelope; the schema may be JSON null (schemaless payload)."""
    if not isinstance(document, Mapping) or set(document) != {"schema", "payload"}:
        raise ConnectJsonError(
            'with schemas.enable=true a message must be an object with exactly "schema" and "payload" '
            "(set schemas.enable=false for plain JSON)"
        )
    schema = document["schema"]
    if schema is not None and not isinstance(schema, Mapping):
        raise ConnectJsonError('"schema" must be an object or null')
    return document["payload"], schema


def decode_payload(payload: Any, schema: Mapping[str, Any] | None, path: str = "$") -> Any:
    """``payload`` as Python data, following ``schema`` (None = take the JSON as it is)."""
    if schema is None:
        return payload
    if payload is None:
        if schema.get("optional", False) or "default" in schema:
            return _decode_default(schema, path)
        raise ConnectJsonError(f"{path}: null for a required field")
    logical = schema.get("name")
    if logical in _LOGICAL:
        return _LOGICAL[logical](payload, schema, path)
    kind = schema.get("type")
    decoder = _DECODERS.get(kind)
    if decoder is None:
        raise ConnectJsonError(f"{path}: unknown Connect schema type {kind!r}")
    return decoder(payload, schema, path)


def _decode_default(schema: Mapping[str, Any], path: str) -> Any:
    default = schema.get("default")
    return None if default is None else decode_payload(default, schema, path)


def _struct(payload: Any, schema: Mapping[str, Any], path: str) -> dict[str, Any]:
    if not isinstance(payload, Mapping):
        raise ConnectJsonError(f"{path}: expected an object for a struct")
    return {
        field["field"]: decode_payload(payload.get(field["field"]), field, f"{path}.{field['field']}")
        for field in schema.get("fields", ())
    }


def _array(payload: Any, schema: Mapping[str, Any], path: str) -> list[Any]:
    if not isinstance(payload, list):
        raise ConnectJsonError(f"{path}: expected an array")
    items = schema.get("items")
    return [decode_payload(item, items, f"{path}[{i}]") for i, item in enumerate(payload)]


def _map(payload: Any, schema: Mapping[str, Any], path: str) -> dict[Any, Any]:
    keys, values = schema.get("keys"), schema.get("values")
    if isinstance(payload, Mapping):
        pairs = list(payload.items())
    elif isinstance(payload, list) and all(isinstance(p, list) and len(p) == 2 for p in payload):
        pairs = [(p[0], p[1]) for p in payload]
    else:
        raise ConnectJsonError(f"{path}: expected an object or a list of [key, value] pairs for a map")
    return {
        decode_payload(k, keys, f"{path}.<key>"): decode_payload(v, values, f"{path}[{k!r}]")
        for k, v in pairs
    }


def _integer(payload: Any, schema: Mapping[str, Any], path: str) -> int:
    if isinstance(payload, bool) or not isinstance(payload, int):
        raise ConnectJsonError(f"{path}: expected an integer for {schema.get('type')}")
    return payload


def _number(payload: Any, schema: Mapping[str, Any], path: str) -> float:
    if isinstance(payload, bool) or not isinstance(payload, int | float):
        raise ConnectJsonError(f"{path}: expected a number for {schema.get('type')}")
    return float(payload)


def _boolean(payload: Any, schema: Mapping[str, Any], path: str) -> bool:
    if not isinstance(payload, bool):
        raise ConnectJsonError(f"{path}: expected true or false")
    return payload


def _string(payload: Any, schema: Mapping[str, Any], path: str) -> str:
    if not isinstance(payload, str):
        raise ConnectJsonError(f"{path}: expected a string")
    return payload


def _bytes(payload: Any, schema: Mapping[str, Any], path: str) -> bytes:
    if not isinstance(payload, str):
        raise ConnectJsonError(f"{path}: expected a base64 string for bytes")
    try:
        return base64.b64decode(payload, validate=True)
    except binascii.Error:
        raise ConnectJsonError(f"{path}: invalid base64 for bytes") from None


def _timestamp(payload: Any, schema: Mapping[str, Any], path: str) -> dt.datetime:
    return _EPOCH + dt.timedelta(milliseconds=_integer(payload, schema, path))


def _date(payload: Any, schema: Mapping[str, Any], path: str) -> dt.date:
    return _EPOCH_DAY + dt.timedelta(days=_integer(payload, schema, path))


def _time(payload: Any, schema: Mapping[str, Any], path: str) -> dt.time:
    millis = _integer(payload, schema, path)
    if not 0 <= millis < 86_400_000:
        raise ConnectJsonError(f"{path}: Time must be within one day, got {millis} ms")
    return (dt.datetime.min + dt.timedelta(milliseconds=millis)).time()


def _decimal(payload: Any, schema: Mapping[str, Any], path: str) -> decimal.Decimal:
    try:
        scale = int((schema.get("parameters") or {})["scale"])
    except (KeyError, ValueError):
        raise ConnectJsonError(f"{path}: Decimal schema without an integer 'scale' parameter") from None
    if isinstance(payload, str):  # decimal.format=BASE64 (the default)
        unscaled = int.from_bytes(_bytes(payload, schema, path), "big", signed=True)
        return decimal.Decimal(unscaled).scaleb(-scale)
    if isinstance(payload, int | float) and not isinstance(payload, bool):  # decimal.format=NUMERIC
        return decimal.Decimal(str(payload)).quantize(decimal.Decimal(1).scaleb(-scale))
    raise ConnectJsonError(f"{path}: expected base64 or a number for a Decimal")


_DECODERS = {
    "struct": _struct,
    "array": _array,
    "map": _map,
    "int8": _integer,
    "int16": _integer,
    "int32": _integer,
    "int64": _integer,
    "float": _number,  # FLOAT32 as JsonConverter names it
    "double": _number,  # FLOAT64
    "float32": _number,  # Schema.Type's names, as hand-written schemas have them (JsonConverter refuses them)
    "float64": _number,
    "boolean": _boolean,
    "string": _string,
    "bytes": _bytes,
}
_LOGICAL = {TIMESTAMP: _timestamp, DATE: _date, TIME: _time, DECIMAL: _decimal}
