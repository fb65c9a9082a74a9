"""What Aiven's S3 sink writes for each record: the fields, their order and encodings, per format.

Aiven's ``commons/.../output`` writers as data and pure functions, each citing the Aiven code and
test it follows; the adapters (:mod:`lakesink.adapters.dialects.aiven.writers`) only stream and
compress the bytes. See docs/dialects.md, "File contents (Aiven's writers, byte for byte)".
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from lakesink.domain.dialects.aiven.naming import AivenCompression, AivenFormat
from lakesink.domain.errors import FormatError, RecordError
from lakesink.domain.records import Record
from lakesink.domain.schema import Schema, adapt, name_records, schema_for
from lakesink.domain.schema.connect import time_of_day_millis
from lakesink.domain.schema.decimal_bytes import unscaled_bytes
from lakesink.domain.transforms.kafka_numbers import java_double_text

#: JSON members in the order Jackson writes Aiven's ``HashMap<String, OutputFieldBuilder>``
#: (``JsonOutputFieldComposer``): bucket ``hash ^ hash >>> 16 & 15`` of each name is headers 1,
#: offset 4, value 13, key 14, timestamp 15 (``JsonOutputWriterTest#jsonValueWithAllMetadata``).
JSON_ORDER = ("headers", "offset", "value", "key", "timestamp")

#: The Avro namespace of the ``connector_records`` schema (``AvroSchemaBuilder`` / ``ParquetSchemaBuilder``).
NAMESPACES = {
    AivenFormat.AVRO: "io.aiven.avro.output.schema",
    AivenFormat.PARQUET: "io.aiven.parquet.output.schema",
}
RECORD_NAME = "connector_records"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_DATE = date(1970, 1, 1)
_BYTES = (bytes, bytearray, memoryview)
_SHORT_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


@dataclass(frozen=True, slots=True)
class OutputField:
    """One ``format.output.fields`` entry and its encoding (``base64`` or ``none``)."""

    name: str
    encoding: str


@dataclass(frozen=True, slots=True)
class Framing:
    """What ``OutputStreamWriter`` writes before the first record, between records and at close."""

    start: bytes
    separator: bytes
    end: bytes


#: ``PlainOutputStreamWriter`` (csv), ``JsonOutputStreamWriter`` (json), ``JsonLinesOutputStreamWriter``
#: (jsonl): no trailing newline after the last record (``JsonOutputWriterTest#jsonValueWithSingleField``
#: writes ``[\n{"name":"John"}\n]``; ``JsonLinesOutputWriterTest#jsonValueWithSingleField`` ``{"name":"John"}``).
FRAMING = {
    AivenFormat.CSV: Framing(b"", b"\n", b""),
    AivenFormat.JSON: Framing(b"[\n", b",\n", b"\n]"),
    AivenFormat.JSONL: Framing(b"", b"\n", b""),
}


@dataclass(frozen=True, slots=True)
class AivenOutput:
    """What a file of an Aiven config holds and how it is compressed.

    Attributes:
        fields: ``format.output.fields`` in config order with their encodings.
        compression: the stream wrapped around csv/json/jsonl/avro files (``OutputWriter.Builder#build``);
            always none for parquet, which compresses its pages with ``parquet_codec`` instead.
        avro_codec: the Avro container codec (``avro.codec``).
    """

    format: AivenFormat
    fields: tuple[OutputField, ...]
    envelope: bool = True
    compression: AivenCompression = AivenCompression.NONE
    parquet_codec: AivenCompression = AivenCompression.NONE
    avro_codec: str = "null"

    @property
    def json_fields(self) -> tuple[str, ...]:
        """The JSON members of a record: each configured name once, in :data:`JSON_ORDER`."""
        names = {item.name for item in self.fields}
        return tuple(name for name in JSON_ORDER if name in names)


# --- csv ----------------------------------------------------------------------------------------


def csv_line(record: Record, fields: Sequence[OutputField]) -> bytes:
    """One CSV record as ``PlainOutputStreamWriter#writeOneRecord`` writes it (no line break).

    ``S3SinkTaskTest#testAivenKafkaConnectS3SinkTask`` splits such lines on ``,`` and the headers
    cell on ``;`` and ``:``; an all-null record is ``,,,10`` (``GcsSinkTaskTest#nullKeyValueAndTimestamp``).

    Raises:
        RecordError: a value that is not bytes, a key that is neither bytes nor text, a header
            value that is not bytes (Aiven's ``DataException`` / NullPointerException).
    """
    return b",".join(_csv_cell(record, item) for item in fields)


def _csv_cell(record: Record, item: OutputField) -> bytes:
    if item.name == "key":
        key = record.key
        if key is None:
            return b""
        if isinstance(key, str):
            return base64.b64encode(_utf8(record, key))
        if isinstance(key, _BYTES):
            return base64.b64encode(key)  # KeyPlainWriter: Base64 whatever the encoding setting
        raise _aiven_error(
            record, f"Record key schema type must be BYTES or STRING, {_connect_type(key)} given"
        )
    if item.name == "value":
        value = record.value
        if value is None:
            return b""
        if not isinstance(value, _BYTES):
            raise _aiven_error(
                record, f"Record value schema type must be BYTES, {_connect_type(value)} given"
            )
        return base64.b64encode(value) if item.encoding == "base64" else bytes(value)
    if item.name == "offset":
        return str(record.offset).encode("ascii")
    if item.name == "timestamp":
        return b"" if record.timestamp is None else str(record.timestamp).encode("ascii")
    return b"".join(_csv_header(record, name, value) for name, value in record.headers)


def _csv_header(record: Record, name: str, value: Any) -> bytes:
    """``HeadersPlainWriter``: ``b64(name) + ":" + b64(ByteArrayConverter.fromConnectHeader(value)) + ";"``."""
    if not isinstance(value, _BYTES):
        problem = (
            "a null value (Aiven fails with a NullPointerException)"
            if value is None
            else f"Invalid schema type for ByteArrayConverter: {_connect_type(value)}"
        )
        raise _aiven_error(
            record, f"header {name!r}: {problem}; csv headers need header.converter=ByteArrayConverter"
        )
    return base64.b64encode(_utf8(record, name)) + b":" + base64.b64encode(value) + b";"


# --- json / jsonl -------------------------------------------------------------------------------


def json_document(record: Record, output: AivenOutput) -> bytes:
    """One record's JSON as ``AbstractJsonOutputStreamWriter#writeOneRecord`` writes it (compact, UTF-8).

    With the envelope the members follow :data:`JSON_ORDER` (``{"value":"value0","key":"key0"}``,
    ``S3SinkTaskTest#supportStringValuesForJsonL``); without it the single field is written bare
    (``{"name":"name0"}``, ``S3SinkTaskTest#supportUnwrappedJsonEnvelopeForStructAndClassicJson``).
    The value encoding setting plays no part: bytes are Base64 text as ``JsonConverter`` writes them.

    Raises:
        RecordError: a value JSON cannot hold, or a null header value (Aiven fails on it).
    """
    builders = {
        "headers": _json_headers,
        "offset": lambda item: item.offset,
        "value": lambda item: _json_data(item, item.value),
        "key": lambda item: _json_data(item, item.key),
        "timestamp": lambda item: None if item.timestamp is None else iso_instant(item, item.timestamp),
    }
    if output.envelope:
        document: Any = {name: builders[name](record) for name in output.json_fields}
    else:
        document = builders[output.fields[0].name](record)
    return jackson_text(record, document).encode("utf-8")


def _json_headers(record: Record) -> list[dict[str, Any]]:
    """``HeaderBuilder``: ``[{"key":name,"value":<JsonConverter header>}]``, ``[]`` without headers."""
    headers = []
    for name, value in record.headers:
        if value is None:
            # JsonConverter returns null bytes for a schemaless null; Jackson's readTree(null) throws.
            raise _aiven_error(
                record, f"header {name!r} has a null value, which Aiven's JSON writer fails on"
            )
        headers.append({"key": name, "value": _json_data(record, value)})
    return headers


def _json_data(record: Record, value: Any) -> Any:
    """Connect data as ``JsonConverter`` (schemas off, ``decimal.format=BASE64``) gives it to Jackson."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, _BYTES):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        delta = aware - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
    if isinstance(value, date):
        return (value - _EPOCH_DATE).days
    if isinstance(value, time):
        return time_of_day_millis(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise _aiven_error(record, f"{value} is not a Connect Decimal")
        return base64.b64encode(unscaled_bytes(value)).decode("ascii")
    if isinstance(value, Mapping):
        return {str(name): _json_data(record, item) for name, item in value.items()}
    if isinstance(value, Sequence):
        return [_json_data(record, item) for item in value]
    raise _aiven_error(record, f"a {type(value).__name__} cannot be written as JSON")


def iso_instant(record: Record, millis: int) -> str:
    """``DateTimeFormatter.ISO_INSTANT`` of epoch millis: ``1970-01-01T00:00:01Z``, with ``.SSS``
    only when the milliseconds are not zero (``JsonOutputWriterTest#jsonValueWithAllMetadata``).

    Raises:
        RecordError: a timestamp outside years 1–9999 (Java prints those differently).
    """
    try:
        moment = _EPOCH + timedelta(milliseconds=millis)
    except OverflowError:
        raise _aiven_error(record, f"timestamp {millis} is outside years 1-9999") from None
    fraction = millis % 1000
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
        + (f".{fraction:03d}" if fraction else "")
        + "Z"
    )


def jackson_text(record: Record, value: Any) -> str:
    """Compact JSON as Jackson's ``ObjectMapper`` writes a tree read back from ``JsonConverter``.

    Strings: ``"``, ``\\`` and control characters are escaped (``\\b \\t \\n \\f \\r``, else
    ``\\u00XX`` in upper-case hex), and so is a character outside the BMP, as its two UTF-16
    halves (``\\uD83D\\uDE00``); everything else is raw UTF-8. Numbers: integers as they are,
    doubles as Java's ``Double.toString`` (``1.0E10``).

    Raises:
        RecordError: NaN or infinity (``JsonConverter`` writes them as strings only with a schema).
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _aiven_error(record, f"{value} cannot be written as a JSON number")
        return java_double_text(value)
    if isinstance(value, str):
        return _jackson_string(record, value)
    if isinstance(value, Mapping):
        members = (
            f"{_jackson_string(record, name)}:{jackson_text(record, item)}" for name, item in value.items()
        )
        return "{" + ",".join(members) + "}"
    return "[" + ",".join(jackson_text(record, item) for item in value) + "]"


def _jackson_string(record: Record, text: str) -> str:
    _utf8(record, text)
    out = []
    for char in text:
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif char < " ":
            out.append(f"\\u{ord(char):04X}")
        elif char > "\uffff":
            # UTF8JsonGenerator escapes both halves of a surrogate pair (COMBINE_UNICODE_SURROGATES_IN_UTF8 off).
            code = ord(char) - 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


# --- avro / parquet -----------------------------------------------------------------------------


def avro_schema(record: Record, output: AivenOutput) -> Schema:
    """The schema ``SinkSchemaBuilder#buildSchema`` gives ``record`` (the first of a file fixes it).

    With the envelope: record ``connector_records`` in the format's namespace, one field per output
    field in config order, no defaults; key/value take their converter's schema (inferred when it
    gave none: Aiven refuses a schemaless key or value), offset and timestamp are ``long``, headers
    ``map<header schema>`` or ``null`` when the record has none. Without it: a record value keeps
    its own schema, a map becomes one field per map entry, anything else the single field.

    Raises:
        RecordError: headers of different types (Aiven's ``DataException`` text).
    """
    namespace = NAMESPACES[output.format]
    if output.envelope:
        fields = [{"name": item.name, "type": _field_schema(record, item.name)} for item in output.fields]
        return name_records({"type": "record", "name": RECORD_NAME, "namespace": namespace, "fields": fields})
    name = output.fields[0].name
    schema = _field_schema(record, name)
    if isinstance(schema, dict) and schema.get("type") == "record":
        return name_records(schema)
    if isinstance(schema, dict) and schema.get("type") == "map":
        value = _field_value(record, name)
        fields = [{"name": str(key), "type": schema["values"]} for key in value]
    else:
        fields = [{"name": name, "type": schema}]
    return name_records({"type": "record", "name": RECORD_NAME, "namespace": namespace, "fields": fields})


def avro_datum(record: Record, output: AivenOutput, schema: Schema) -> dict[str, Any]:
    """The ``GenericRecord`` ``SinkRecordConverter#convert`` builds for ``record`` under ``schema``.

    Raises:
        RecordError: no timestamp for a ``timestamp`` field (Aiven's ``long`` is not nullable), or
            a value that does not fit the file's schema.
    """
    if output.envelope:
        datum = {item.name: _field_value(record, item.name) for item in output.fields}
    else:
        value = _field_value(record, output.fields[0].name)
        datum = dict(value) if isinstance(value, Mapping) else {output.fields[0].name: value}
    try:
        adapted = adapt(datum, schema)
    except FormatError as error:
        raise _aiven_error(record, f"does not fit the file's schema: {error}") from error
    assert isinstance(adapted, dict)
    return adapted


def _field_schema(record: Record, name: str) -> Schema:
    if name in ("offset", "timestamp"):
        return "long"
    if name == "key":
        return schema_for(record.key, record.key_schema)
    if name == "value":
        return schema_for(record.value, record.value_schema)
    if not record.headers:
        return "null"
    schemas = [
        schema_for(value, hint)
        for (_, value), hint in zip(record.headers, record.aligned_header_schemas(), strict=True)
    ]
    first = schemas[0]
    for (header, _), schema in zip(record.headers, schemas, strict=True):
        if _type_of(schema) != _type_of(first):
            raise _aiven_error(
                record,
                f"Header schema {schema} for '{header}' is not the same as the already defined map type: {first}. "
                "To force the same type, consider using StringConverter or similar.",
            )
    return {"type": "map", "values": first}


def _field_value(record: Record, name: str) -> Any:
    if name == "offset":
        return record.offset
    if name == "timestamp":
        if record.timestamp is None:
            raise _aiven_error(
                record, "no timestamp, but the timestamp field is a non-null long in Aiven's schema"
            )
        return record.timestamp
    if name == "key":
        return record.key
    if name == "value":
        return record.value
    return dict(record.headers) if record.headers else None  # a HashMap: the last value of a name wins


def _type_of(schema: Schema) -> str:
    core = [branch for branch in schema if branch != "null"] if isinstance(schema, list) else [schema]
    head = core[0] if core else "null"
    return str(head.get("type")) if isinstance(head, dict) else str(head)


# --- shared -------------------------------------------------------------------------------------


def _utf8(record: Record, text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise _aiven_error(record, "text with a lone surrogate cannot be written as UTF-8") from None


def _connect_type(value: Any) -> str:
    """The Connect schema type a converter would give ``value`` (for Aiven's messages)."""
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "INT64"
    if isinstance(value, float):
        return "FLOAT64"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, Mapping):
        return "STRUCT"
    if isinstance(value, Sequence):
        return "ARRAY"
    return type(value).__name__.upper()


def _aiven_error(record: Record, reason: str) -> RecordError:
    return RecordError(f"record {record.describe()}: {reason}")
