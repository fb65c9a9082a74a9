"""Header converters: Kafka header bytes to typed values and back, as Kafka Connect applies them.

The sink turns each header into a value and its Avro schema (:meth:`HeaderConverter.to_connect`);
the restore turns a stored value back into bytes (:meth:`HeaderConverter.from_connect`). Where
lakesink deviates, no header is lost: bytes that are not valid text stay bytes (Connect: U+FFFD),
and a bytes value is written back as the bytes under every converter.
See docs/formats.md, "Envelope headers", and docs/restore.md, "Records".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from lakesink.adapters.formats.jsoncodec import dumps
from lakesink.adapters.kafka.converters import JsonConverter, setting_text
from lakesink.domain.config.converter_classes import (
    BYTE_ARRAY,
    JSON,
    SIMPLE_HEADER,
    STRING,
    canonical_name,
    supported_names,
)
from lakesink.domain.config.secret import Secret
from lakesink.domain.config.values import as_bool
from lakesink.domain.errors import ConfigError
from lakesink.domain.schema.headers import header_schema
from lakesink.domain.schema.model import Schema, is_nullable, kind, logical, non_null
from lakesink.domain.schema.resolve import schema_for
from lakesink.domain.transforms.header_values import convert_to_string, parse_string

Converted = tuple[Any, Schema]
"""A header's value and the Avro schema of it (``"null"`` for a null header)."""

_NULL: Converted = (None, "null")
_CACHE_LIMIT = 4096
_CACHED_BYTES = 256  # longer headers (a payload, a stack trace) are rarely repeated: not kept
_BINARY = (bytes, bytearray, memoryview)


class HeaderConverter(Protocol):
    """Turns one header's bytes into a value and a value back into bytes."""

    name: str

    def to_connect(self, data: bytes | None, *, header: str, record: str) -> Converted:
        """The header's value and its Avro schema; ``header``/``record`` name it in errors.

        Raises:
            RecordError: the bytes are not valid for this converter (JsonConverter only).
        """
        ...

    def from_connect(self, value: Any, schema: Schema | None) -> bytes | None:
        """The bytes Kafka gets for a stored value whose Avro schema (if known) is ``schema``."""
        ...


class SimpleHeaderConverter:
    """UTF-8 text typed by :func:`~lakesink.domain.transforms.header_values.parse_string`.

    Parsing is a few microseconds, and headers repeat (a trace flag, a source name, a schema
    version), so results are kept per distinct bytes of at most :data:`_CACHED_BYTES`, up to
    :data:`_CACHE_LIMIT` of them (about a megabyte); arrays and maps are parsed each time, since a
    record's value must not be shared.
    """

    name = "SimpleHeaderConverter"

    def __init__(self) -> None:
        self._seen: dict[bytes, Converted] = {}
        self._schemas: dict[tuple[str, str | None, str] | None, Schema] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, _state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def to_connect(self, data: bytes | None, *, header: str, record: str) -> Converted:
        if data is None:
            return _NULL
        known = self._seen.get(data)
        if known is not None:
            return known
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return data, "bytes"
        value, connect = parse_string(text)
        if isinstance(value, list | dict):
            return value, header_schema(connect)
        converted = (value, self._scalar_schema(connect))
        if len(data) <= _CACHED_BYTES:
            if len(self._seen) >= _CACHE_LIMIT:
                self._seen.clear()
            self._seen[data] = converted
        return converted

    def _scalar_schema(self, connect: Mapping[str, Any] | None) -> Schema:
        """The Avro schema of a scalar's Connect schema, made once per type (half the cost of a miss)."""
        key = None if connect is None else (connect["type"], connect.get("name"), str(connect.get("parameters")))
        schema = self._schemas.get(key)
        if schema is None:
            schema = self._schemas[key] = header_schema(connect)
        return schema

    def from_connect(self, value: Any, schema: Schema | None) -> bytes | None:
        exact = type(value)
        if exact is str:  # the usual header, as Values.convertToString writes it: itself
            return value.encode("utf-8")
        if exact is int:  # not bool, a subclass written true/false
            return str(value).encode("ascii")
        if value is None or isinstance(value, _BINARY):
            return _bytes(value)
        text = convert_to_string(value, _connect_hint(schema))
        return None if text is None else text.encode("utf-8")


class StringHeaderConverter:
    """Text in ``converter.encoding`` (UTF-8 unless configured)."""

    name = "StringConverter"

    def __init__(self, encoding: str = "utf-8") -> None:
        self._encoding = encoding

    def to_connect(self, data: bytes | None, *, header: str, record: str) -> Converted:
        if data is None:
            return _NULL
        try:
            return data.decode(self._encoding), "string"
        except UnicodeDecodeError:
            return data, "bytes"

    def from_connect(self, value: Any, schema: Schema | None) -> bytes | None:
        if value is None or isinstance(value, _BINARY):
            return _bytes(value)
        text = value if isinstance(value, str) else convert_to_string(value, _connect_hint(schema))
        return None if text is None else text.encode(self._encoding)


class ByteArrayHeaderConverter:
    """The raw bytes: what lakesink did before header converters, and Lenses' advice for a restore."""

    name = "ByteArrayConverter"

    def to_connect(self, data: bytes | None, *, header: str, record: str) -> Converted:
        return _NULL if data is None else (data, "bytes")

    def from_connect(self, value: Any, schema: Schema | None) -> bytes | None:
        if value is None or isinstance(value, _BINARY):
            return _bytes(value)
        text = value if isinstance(value, str) else convert_to_string(value, _connect_hint(schema))
        return None if text is None else text.encode("utf-8")


class JsonHeaderConverter:
    """Connect JSON: an envelope with ``schemas.enable=true`` (the default), else plain JSON.

    Written back with schemas enabled, a value gets the Connect schema of its stored type (a
    struct's fields, a Timestamp's name), as Connect's JsonConverter writes it; a null schema (a
    schemaless payload JsonConverter reads) only for a type Connect cannot say (a union).
    """

    name = "JsonConverter"

    def __init__(self, *, schemas_enable: bool = True) -> None:
        self._schemas_enable = schemas_enable
        self._decoder = JsonConverter(schemas_enable=schemas_enable)

    def to_connect(self, data: bytes | None, *, header: str, record: str) -> Converted:
        if data is None:
            return _NULL
        value, connect = self._decoder.decode(data, record=f"{record} header {header!r}")
        return value, schema_for(value, connect)

    def from_connect(self, value: Any, schema: Schema | None) -> bytes | None:
        if value is None or isinstance(value, _BINARY):
            return _bytes(value)
        document = (
            {"schema": _json_schema(value, schema), "payload": value} if self._schemas_enable else value
        )
        return dumps(document).encode("utf-8")


_JSON_PRIMITIVES = {
    "boolean": "boolean",
    "int": "int32",
    "long": "int64",
    "float": "float",  # JsonConverter's names of FLOAT32 and FLOAT64
    "double": "double",
    "string": "string",
    "bytes": "bytes",
}
_JSON_LOGICAL = {
    "timestamp-millis": ("int64", "org.apache.kafka.connect.data.Timestamp"),
    "date": ("int32", "org.apache.kafka.connect.data.Date"),
    "time-millis": ("int32", "org.apache.kafka.connect.data.Time"),
    "decimal": ("bytes", "org.apache.kafka.connect.data.Decimal"),
}
_PYTHON_PRIMITIVES = (
    (bool, "boolean"),
    (int, "int64"),
    (float, "double"),
    (str, "string"),
    (_BINARY, "bytes"),
)


def _json_schema(value: Any, schema: Schema | None) -> dict[str, Any] | None:
    """The Connect schema of a header value: its stored Avro type's, else its Python primitive's.

    The whole stored type, not only a primitive: Kafka Connect's JsonConverter writes a struct's
    or a Timestamp's schema with it, and a Connect consumer reads ``{"schema": null}`` back as a
    map or a plain int64 (the Connect oracle test caught the difference).
    """
    if schema is not None:
        found = _connect_json(schema)
        # the stored column is nullable because other records lack the header; this one has a value
        return None if found is None else {**found, "optional": False}
    for python_type, connect in _PYTHON_PRIMITIVES:
        if isinstance(value, python_type):
            return {"type": connect, "optional": False}
    return None


def _connect_json(schema: Schema) -> dict[str, Any] | None:
    """An Avro schema as the Connect schema JsonConverter writes; None for a union Connect lacks."""
    core = non_null(schema)
    if len(core) != 1:
        return None
    avro = core[0]
    out: dict[str, Any] | None
    type_name, logical_type = kind(avro), logical(avro)
    if logical_type in _JSON_LOGICAL:
        connect, name = _JSON_LOGICAL[logical_type]
        out = {"type": connect, "name": name}
        if logical_type == "decimal":
            out["parameters"] = {"scale": str(avro.get("scale", 0)), "connect.decimal.precision": str(avro["precision"])}
    elif type_name in _JSON_PRIMITIVES:
        connect_type = avro.get("connect.type") if isinstance(avro, Mapping) else None
        out = {"type": connect_type or _JSON_PRIMITIVES[type_name]}
    elif type_name == "record":
        fields = [_connect_json(field["type"]) for field in avro["fields"]]
        if any(field is None for field in fields):
            return None
        out = {
            "type": "struct",
            "fields": [{**field, "field": spec["name"]} for field, spec in zip(fields, avro["fields"], strict=True)],  # type: ignore[dict-item]
        }
    elif type_name == "array":
        items = _connect_json(avro["items"])
        out = None if items is None else {"type": "array", "items": items}
    elif type_name == "map":
        values = _connect_json(avro["values"])
        out = None if values is None else {"type": "map", "keys": {"type": "string", "optional": False}, "values": values}
    else:
        out = None
    return None if out is None else {**out, "optional": is_nullable(schema)}


def _connect_hint(schema: Schema | None) -> dict[str, Any] | None:
    """What ``convert_to_string`` needs from a stored Avro schema: where the float32s are."""
    core = non_null(schema) if schema is not None else []
    if len(core) != 1:
        return None
    type_name = kind(core[0])
    if type_name == "float":
        return {"type": "float"}
    if type_name == "array":
        return {"type": "array", "items": _connect_hint(core[0]["items"])}
    if type_name == "map":
        return {"type": "map", "values": _connect_hint(core[0]["values"])}
    return None


def _bytes(value: bytes | bytearray | memoryview | None) -> bytes | None:
    return None if value is None else bytes(value)


def create_header_converter(class_name: str | None, settings: Mapping[str, str | Secret]) -> HeaderConverter:
    """The header converter named ``class_name`` (None = SimpleHeaderConverter), ``header.converter.`` removed.

    Raises:
        ConfigError: the class is not a header converter lakesink has.
    """
    canonical = SIMPLE_HEADER if class_name is None else canonical_name(class_name)
    if canonical == SIMPLE_HEADER:
        return SimpleHeaderConverter()
    if canonical == STRING:
        return StringHeaderConverter(setting_text(settings.get("converter.encoding", "utf-8")))
    if canonical == BYTE_ARRAY:
        return ByteArrayHeaderConverter()
    if canonical == JSON:
        enabled = as_bool(
            "header.converter.schemas.enable", setting_text(settings.get("schemas.enable", "true"))
        )
        return JsonHeaderConverter(schemas_enable=enabled)
    raise ConfigError(f"Unsupported header.converter {class_name!r}: expected one of {supported_names('header')}.")
