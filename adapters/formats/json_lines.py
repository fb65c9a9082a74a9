"""JSON lines: one compact JSON document per record, a newline after each (Lenses ``JSON``).

A ``bytes`` value is taken to be the JSON document itself and copied without parsing (Lenses
rejects it) unless it holds a line break. GZIP is one stream with ``mtime=0`` and no file name,
so equal records give equal bytes. ``store.layout=quix`` writes Quix's JSONFormat lines
(:func:`~lakesink.domain.dialects.quix.rows.json_row`). See docs/formats.md, "Per format", and
docs/quix.md.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lakesink.adapters.formats.jsoncodec import dumps
from lakesink.adapters.formats.staging import LineFile
from lakesink.domain.dialects.quix.naming import StoreLayout
from lakesink.domain.dialects.quix.rows import QUIX_GZIP_LEVEL, json_row
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import CompressionCodec, DecimalFormat
from lakesink.domain.records import Record, poison
from lakesink.domain.schema.envelope import json_envelope, record_from_json_envelope
from lakesink.domain.schema.envelope_fields import EnvelopeFields

DEFAULT_GZIP_LEVEL = 6
_BYTES = (bytes, bytearray, memoryview)


class JsonWriter(LineFile):
    """Writes JSON lines, optionally as one gzip stream and optionally as envelopes or Quix rows."""

    def __init__(
        self,
        path: Path | str,
        *,
        codec: CompressionCodec = CompressionCodec.UNCOMPRESSED,
        level: int | None = None,
        envelope: EnvelopeFields | None = None,
        store: StoreLayout = StoreLayout.LENSES,
        decimals: DecimalFormat = DecimalFormat.NUMERIC,
    ) -> None:
        if codec not in (CompressionCodec.UNCOMPRESSED, CompressionCodec.GZIP):
            raise FormatError(f"Invalid or missing `compressionCodec` specified. JSON accepts UNCOMPRESSED or GZIP, not {codec.value}")
        super().__init__(path)
        self._envelope = envelope
        self._quix = store is StoreLayout.QUIX
        self._base64_decimals = decimals is DecimalFormat.BASE64
        if codec is CompressionCodec.GZIP:
            default = QUIX_GZIP_LEVEL if self._quix else DEFAULT_GZIP_LEVEL
            gzip_level = default if level is None else level
            if not 0 <= gzip_level <= 9:
                raise FormatError(f"compression.level {gzip_level} is out of range 0-9 for GZIP")
            self._out = gzip.GzipFile(filename="", fileobj=self._raw, mode="wb", compresslevel=gzip_level, mtime=0)

    def _line(self, record: Record) -> bytes:
        if self._quix:
            document: Any = json_row(record)
        elif self._envelope is not None:
            document = json_envelope(record, self._envelope)
        else:
            value = record.value
            if isinstance(value, _BYTES):
                if value and b"\n" not in value and b"\r" not in value:
                    return bytes(value)
                document = _parse(record, value)
            else:
                document = value
                if self._base64_decimals and _is_struct(value, record.value_schema):
                    return _encoded(record, value, DecimalFormat.BASE64)
        return _encoded(record, document, DecimalFormat.NUMERIC)

    def _write(self, record: Record) -> None:
        self._out.write(self._line(record) + b"\n")

    def write_many(self, records: Sequence[Record]) -> int:
        """Encode the whole batch, then write it in one call (no schema ever rolls JSON)."""
        self._check_open()
        lines = []
        try:
            for record in records:
                lines.append(self._line(record))
        finally:
            if lines:
                lines.append(b"")
                self._out.write(b"\n".join(lines))
                self._count += len(lines) - 1
        return len(records)

    def _finish(self) -> None:
        if self._out is not self._raw:
            self._out.close()

    _discard = _finish


def _encoded(record: Record, document: Any, decimals: DecimalFormat) -> bytes:
    try:
        return dumps(document, decimals=decimals).encode("utf-8")
    except (TypeError, ValueError) as error:
        raise poison(record, f"cannot be written as JSON: {error}") from error


def _is_struct(value: Any, schema: Any) -> bool:
    """Whether Confluent would hand ``value`` to JsonConverter as a Struct: a mapping whose
    schema (Avro or Connect, optional or not) is not a map.

    Only then does ``decimals=BASE64`` (Confluent's JsonFormat under its default
    ``json.decimal.format``) write Decimals as JsonConverter does, base64 strings of their unscaled
    bytes: any other value (a Decimal alone, a Connect Map or Array, schemaless data) goes to
    Jackson's ``ObjectMapper``, which prints a Decimal as a number, so those keep numbers here too.
    """
    if not isinstance(value, Mapping):
        return False
    if isinstance(schema, list):  # an optional Avro value: ["null", <schema>]
        branches = [branch for branch in schema if branch != "null"]
        schema = branches[0] if len(branches) == 1 else None
    return not (isinstance(schema, Mapping) and schema.get("type") == "map")


def _parse(record: Record, value: bytes | bytearray | memoryview) -> Any:
    try:
        return json.loads(bytes(value))
    except ValueError as error:
        raise poison(record, f"the value is not JSON: {error}") from error


def read_json(path: Path, *, envelope: bool, codec: CompressionCodec) -> Iterator[Record]:
    """Yield the records of a JSON-lines file (gzip when ``codec`` is GZIP).

    Raises:
        FormatError: a line is not JSON, or not an envelope when ``envelope`` is set.
    """
    opener = gzip.open if codec is CompressionCodec.GZIP else open
    with opener(path, "rb") as raw:
        for index, line in enumerate(raw):
            try:
                document = json.loads(line)
            except ValueError as error:
                raise FormatError(f"{path} line {index + 1} is not JSON: {error}") from error
            if envelope:
                yield record_from_json_envelope(document, index=index)
            else:
                yield Record(topic="", partition=0, offset=index, value=document)
