"""Key/value converters: Kafka bytes to Python data plus an optional schema.

Configured like Kafka Connect: ``key.converter`` / ``value.converter`` name a class (the Connect
class name or a short alias) and ``key.converter.<setting>`` / ``value.converter.<setting>``
configure it (:func:`create_converter`). See docs/kafka.md, "Converters".
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Mapping
from typing import Any, Protocol

import fastavro

from lakesink.adapters.kafka.connect_json import ConnectJsonError, decode_payload, split_envelope
from lakesink.adapters.kafka.schema_registry import (
    RegistrySettings,
    SchemaRegistryClient,
    SchemaRegistryError,
)
from lakesink.domain.config.converter_classes import (
    AVRO,
    BYTE_ARRAY,
    JSON,
    STRING,
    canonical_name,
    supported_names,
)
from lakesink.domain.config.secret import Secret
from lakesink.domain.config.values import as_bool
from lakesink.domain.errors import ConfigError, RecordError

_WIRE_HEADER = struct.Struct(">bI")

Decoded = tuple[Any, Any]
"""``(data, schema)``: Python data and the schema that describes it (None when schemaless)."""


class Converter(Protocol):
    """Decodes the key or value bytes of one record."""

    name: str

    def decode(self, data: bytes | None, *, record: str) -> Decoded:
        """``data`` as Python data; ``record`` (``topic-partition@offset``) names it in errors.

        Raises:
            RecordError: the bytes are not valid for this converter.
        """
        ...


class ByteArrayConverter:
    """Passes the bytes through: the cheapest path for BYTES/JSON/TEXT sinks."""

    name = "ByteArrayConverter"

    def decode(self, data: bytes | None, *, record: str) -> Decoded:
        return data, None


class StringConverter:
    """Text in ``converter.encoding`` (UTF-8 unless configured)."""

    name = "StringConverter"

    def __init__(self, encoding: str = "utf-8") -> None:
        self._encoding = encoding

    def decode(self, data: bytes | None, *, record: str) -> Decoded:
        if data is None:
            return None, None
        try:
            return data.decode(self._encoding), None
        except UnicodeDecodeError as exc:
            raise RecordError(f"{record}: {self.name} cannot decode {self._encoding}: {exc.reason}") from None


class JsonConverter:
    """Connect JSON: ``{"schema", "payload"}`` envelopes, or plain JSON with schemas.enable=false."""

    name = "JsonConverter"

    def __init__(self, *, schemas_enable: bool = True) -> None:
        self._schemas_enable = schemas_enable

    def decode(self, data: bytes | None, *, record: str) -> Decoded:
        if data is None:
            return None, None
        try:
            document = _json_document(data)
            if not self._schemas_enable:
                return document, None
            payload, schema = split_envelope(document)
            return decode_payload(payload, schema), schema
        except (ValueError, ConnectJsonError) as exc:
            raise RecordError(f"{record}: {self.name} cannot decode the data: {exc}") from None


_JSON_DECODE = json.JSONDecoder().decode
_OBJECT_OR_ARRAY = (b"{", b"[")


def _json_document(data: bytes) -> Any:
    """``json.loads(data)``, without its encoding detection when the answer is known to be UTF-8.

    ``json.loads`` picks UTF-16/32 only for data starting with a BOM or a NUL in its first two
    bytes; a document that starts with ``{`` or ``[`` followed by anything but NUL is UTF-8, and
    is decoded exactly as ``json.loads`` would (UTF-8 with ``surrogatepass``, default decoder).
    """
    if data[:1] in _OBJECT_OR_ARRAY and data[1:2] != b"\x00":
        return _JSON_DECODE(data.decode("utf-8", "surrogatepass"))
    return json.loads(data)


class AvroConverter:
    """Confluent wire format: magic byte 0, 4-byte schema id, Avro binary without a header."""

    name = "AvroConverter"

    def __init__(self, registry: SchemaRegistryClient) -> None:
        self._registry = registry
        self._parsed: dict[int, Any] = {}

    def __getstate__(self) -> SchemaRegistryClient:
        return self._registry

    def __setstate__(self, registry: SchemaRegistryClient) -> None:
        self._registry = registry
        self._parsed = {}

    def decode(self, data: bytes | None, *, record: str) -> Decoded:
        if data is None:
            return None, None
        if len(data) < _WIRE_HEADER.size or data[0] != 0:
            raise RecordError(f"{record}: {self.name} expects the Confluent wire format (magic byte 0)")
        _magic, schema_id = _WIRE_HEADER.unpack_from(data)
        try:
            writer_schema, parsed = self._schema(schema_id)
        except SchemaRegistryError as exc:
            raise RecordError(f"{record}: {self.name} cannot get schema id {schema_id}: {exc}") from exc
        try:
            body = io.BytesIO(memoryview(data)[_WIRE_HEADER.size :])
            datum = fastavro.schemaless_reader(body, parsed, None)
        except (EOFError, ValueError, IndexError, UnicodeDecodeError, struct.error) as exc:
            raise RecordError(
                f"{record}: {self.name} cannot decode Avro data with schema id {schema_id}: {exc}"
            ) from None
        return datum, writer_schema

    def _schema(self, schema_id: int) -> tuple[Any, Any]:
        writer_schema = self._registry.schema(schema_id)
        parsed = self._parsed.get(schema_id)
        if parsed is None:
            parsed = fastavro.parse_schema(writer_schema)
            self._parsed[schema_id] = parsed
        return writer_schema, parsed


def create_converter(class_name: str, settings: Mapping[str, str | Secret], *, setting: str) -> Converter:
    """The converter named ``class_name`` configured by ``settings`` (prefix already removed).

    ``setting`` is the key that named it (``key.converter``/``value.converter``), for errors.

    ``ByteArrayConverter`` (alias ``bytes``): ``bytes``, no schema; ``StringConverter`` (``string``):
    ``str``, no schema; ``JsonConverter`` (``json``): the payload and its Connect schema;
    ``io.confluent.connect.avro.AvroConverter`` (``avro``): the datum and its Avro schema. Every
    converter turns ``None`` (null key, tombstone) into ``(None, None)`` and raises
    :class:`~lakesink.domain.errors.RecordError` naming the record and the converter when the bytes
    cannot be decoded.
    """
    canonical = canonical_name(class_name)
    if canonical == BYTE_ARRAY:
        return ByteArrayConverter()
    if canonical == STRING:
        return StringConverter(setting_text(settings.get("converter.encoding", "utf-8")))
    if canonical == JSON:
        enabled = as_bool(f"{setting}.schemas.enable", setting_text(settings.get("schemas.enable", "true")))
        return JsonConverter(schemas_enable=enabled)
    if canonical == AVRO:
        return AvroConverter(SchemaRegistryClient(RegistrySettings.from_settings(settings)))
    raise ConfigError(f"Unsupported {setting} {class_name!r}: expected one of {supported_names('value')}.")


def setting_text(value: str | Secret) -> str:
    """A converter setting's text, revealed: converters read it on the executor."""
    return value.reveal() if isinstance(value, Secret) else value
