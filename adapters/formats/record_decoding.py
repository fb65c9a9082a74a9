"""Kafka Arrow rows → :class:`~lakesink.domain.records.Record`, decoding only what is needed.

A statement that only copies values (JSON via ``JsonConverter`` with ``schemas.enable=false`` into
JSON, text via ``StringConverter`` into TEXT; no envelope, no PARTITIONBY on value fields) gets the
raw bytes; otherwise the value converter decodes. Keys are decoded only when something reads them;
headers go through ``header.converter`` when the record is built, except for an envelope in the
``list`` layout, which keeps their bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.compute as pc

from lakesink.adapters.kafka.converters import JSON, STRING, Converter, create_converter
from lakesink.adapters.kafka.header_converters import (
    ByteArrayHeaderConverter,
    HeaderConverter,
    create_header_converter,
)
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.dialects.quix.naming import StoreLayout
from lakesink.domain.formats import Format
from lakesink.domain.layout.partitioning import FieldKind
from lakesink.domain.records import Headers, Record
from lakesink.domain.schema.envelope_fields import HeadersLayout
from lakesink.domain.statement_plan import StatementPlan

_ALIASES = {"json": JSON, "string": STRING}


def canonical_converter(settings: ConverterSettings) -> str | None:
    """The Connect class name of a converter setting (aliases resolved), None when unset."""
    if settings.class_name is None:
        return None
    return _ALIASES.get(settings.class_name.strip().lower(), settings.class_name.strip())


def raw_value_passthrough(plan: StatementPlan, value_converter: ConverterSettings) -> bool:
    """Whether the statement can write the value bytes without decoding them."""
    if plan.envelope is not None or plan.writing is not None:
        return False
    if any(f.kind is FieldKind.VALUE for f in plan.layout.selection.fields):
        return False
    name = canonical_converter(value_converter)
    if name == JSON and plan.format is Format.JSON:
        enabled = value_converter.settings.get("schemas.enable", "true")
        text = enabled.reveal() if isinstance(enabled, Secret) else enabled
        return text.strip().lower() == "false"
    return name == STRING and plan.format is Format.TEXT


def key_needed(plan: StatementPlan) -> bool:
    """Whether keys must be decoded: an envelope, Quix's rows (``_key``), Confluent's keys files or
    an Aiven config's output fields or file names use them, or PARTITIONBY reads them.

    The columnar paths (:mod:`.encoded_lines`, :mod:`.columnar_parquet`) write values only, so a
    True here also keeps every ``store.layout=quix`` batch on the per-record path.
    """
    if plan.writing is not None:
        return plan.writing.decodes_key
    if plan.layout.store is StoreLayout.QUIX:
        return True
    return plan.envelope is not None or any(
        f.kind in (FieldKind.KEY, FieldKind.WHOLE_KEY) for f in plan.layout.selection.fields
    )


def headers_needed(plan: StatementPlan) -> bool:
    """Whether headers are read at all: an envelope stores them or PARTITIONBY reads one.

    When no statement needs them the sink's ranges are read without headers, which spares the
    executors about 40% of their CPU on the JSON passthrough path (a Python tuple per header).
    Confluent's headers files and Aiven's ``headers`` output field need them too.
    """
    if plan.writing is not None:
        return plan.writing.decodes_headers
    return plan.envelope is not None or any(f.kind is FieldKind.HEADER for f in plan.layout.selection.fields)


def headers_decoded(plan: StatementPlan) -> bool:
    """Whether the header converter runs: only where converted headers are written (the struct
    layout of an envelope with headers) or partitioned by (``_header.x`` without an envelope).

    Not for the envelope's ``list`` layout, which stores the bytes Kafka had (PARTITIONBY
    ``_header.x`` then reads the header's text as sent), nor where no header is used: a header
    the converter refuses is then no poison record, whichever write path (per record or
    columnar, which never reads headers) takes the batch. Confluent's headers files hold the
    converted values as text, Aiven's headers field the converted values.
    """
    if plan.writing is not None:
        return plan.writing.decodes_headers
    envelope = plan.envelope
    if envelope is not None and envelope.headers_layout is HeadersLayout.LIST:
        return False
    partitioned = any(field.kind is FieldKind.HEADER for field in plan.layout.selection.fields)
    return partitioned or (envelope is not None and envelope.headers)


@dataclass
class Converters:
    """The key, value and header converters, built once per task from the connector settings."""

    key: Converter
    value: Converter
    header: HeaderConverter

    @classmethod
    def create(
        cls, key: ConverterSettings, value: ConverterSettings, header: ConverterSettings | None = None
    ) -> Converters:
        header = header or ConverterSettings()
        return cls(
            _converter(key, "key.converter"),
            _converter(value, "value.converter"),
            create_header_converter(header.class_name, header.settings),
        )

    def headers(self, headers: Headers, *, record: str) -> tuple[Headers, tuple[Any, ...]]:
        """The headers converted, and the Avro schema of each (none for raw bytes: inferred)."""
        if isinstance(self.header, ByteArrayHeaderConverter):
            return headers, ()
        convert = self.header.to_connect
        converted = [convert(data, header=name, record=record) for name, data in headers]
        return (
            tuple((name, value) for (name, _), (value, _) in zip(headers, converted, strict=True)),
            tuple(schema for _, schema in converted),
        )


def _converter(settings: ConverterSettings, setting: str) -> Converter:
    return create_converter(settings.class_name or "bytes", settings.settings, setting=setting)


class RawRow(NamedTuple):
    """One Kafka message as read, before any converter ran.

    A named tuple rather than a frozen dataclass: one is built per Kafka message, and a frozen
    dataclass's ``__init__`` (one ``object.__setattr__`` per field) cost 1.5 µs of it.
    """

    topic: str
    partition: int
    offset: int
    timestamp: int | None
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, Any], ...]

    def describe(self) -> str:
        return f"{self.topic}-{self.partition}@{self.offset}"

    def to_record(
        self, converters: Converters, *, decode_key: bool, decode_value: bool, decode_headers: bool = True
    ) -> Record:
        """The record the writers see.

        Raises:
            RecordError: a converter cannot decode the key, value or a header (names the record).
        """
        topic, partition, offset, timestamp, raw_key, raw_value, headers = self
        where = self.describe()
        key, key_schema = converters.key.decode(raw_key, record=where) if decode_key else (raw_key, None)
        value, value_schema = converters.value.decode(raw_value, record=where) if decode_value else (raw_value, None)
        header_schemas: tuple[Any, ...] = ()
        if headers and decode_headers:
            headers, header_schemas = converters.headers(headers, record=where)
        # Positional: keywords cost a fifth of the Record's construction, once per Kafka message.
        return Record(topic, partition, offset, timestamp, key, value, headers, key_schema, value_schema, header_schemas)


def raw_rows(batch: pa.RecordBatch) -> Iterator[RawRow]:
    """The rows of one batch of the ``lakesink-kafka`` source, timestamps as epoch millis."""
    if batch.num_rows == 0:
        return iter(())
    micros = pc.cast(batch.column("timestamp"), pa.int64()).to_pylist()
    millis = [None if ts is None else ts // 1000 for ts in micros]
    topics, partitions, offsets, keys, values = (
        batch.column(name).to_pylist() for name in ("topic", "partition", "offset", "key", "value")
    )
    headers = header_pairs(batch.column("headers"))
    return map(RawRow, topics, partitions, offsets, millis, keys, values, headers)


def header_pairs(column: pa.ListArray) -> list[Headers]:
    """Each row's headers as ``(name, value)`` pairs; a null list has none.

    Built from the flat name and value columns: ``to_pylist`` of the list column makes a dict per
    header only to take it apart again, which cost more than half a microsecond per record.
    """
    offsets = column.offsets.to_pylist()  # into column.values, which ignores the column's slicing
    base = offsets[0]
    names, values = column.values.slice(base, offsets[-1] - base).flatten()
    pairs = list(zip(names.to_pylist(), values.to_pylist(), strict=True))
    rows = [tuple(pairs[start - base : end - base]) for start, end in pairwise(offsets)]
    if column.null_count:
        rows = [row if valid else () for row, valid in zip(rows, column.is_valid().to_pylist(), strict=True)]
    return rows
