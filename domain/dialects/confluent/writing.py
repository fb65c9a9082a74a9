"""How a Confluent S3 sink config writes: files, keys, rotation and null values, for the sink's writers.

Built once on the driver with a validated config (``ConfluentSinkConfig.writing``) and shipped to the
executors, where :class:`~lakesink.adapters.dialects.confluent.cycle_writer.CycleWriter` applies it
record by record (formats: :func:`file_format`). See docs/dialects.md, "Running a Confluent config".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from lakesink.domain.dialects.confluent.naming import (
    ConfluentFormat,
    ConfluentKeyLayout,
    RecordView,
    view_object_key,
)
from lakesink.domain.dialects.confluent.partitioners import (
    DefaultPartitioner,
    TimeBasedPartitioner,
    checked_partition,
)
from lakesink.domain.dialects.confluent.rotation import CycleEnd, RotationRules
from lakesink.domain.dialects.confluent.schemas import SchemaCompatibility
from lakesink.domain.dialects.confluent.timestamps import ExtractorKind
from lakesink.domain.dialects.kafka_connect.config_def import Settings, string_setting
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.formats import CompressionCodec, DecimalFormat, Format
from lakesink.domain.records import Record

_FORMATS = {
    ConfluentFormat.JSON: Format.JSON,
    ConfluentFormat.AVRO: Format.AVRO,
    ConfluentFormat.PARQUET: Format.PARQUET,
    ConfluentFormat.BYTEARRAY: Format.BYTES,
}
_AVRO_CODECS = {
    "null": CompressionCodec.UNCOMPRESSED,
    "deflate": CompressionCodec.DEFLATE,
    "snappy": CompressionCodec.SNAPPY,
    "bzip2": CompressionCodec.BZIP2,
}
_PARQUET_CODECS = {
    "none": CompressionCodec.UNCOMPRESSED,
    "snappy": CompressionCodec.SNAPPY,
    "gzip": CompressionCodec.GZIP,
    "zstd": CompressionCodec.ZSTD,
    "brotli": CompressionCodec.BROTLI,
    "lz4": CompressionCodec.LZ4,
    "lz4_raw": CompressionCodec.LZ4,
    "lzo": CompressionCodec.LZO,
}
NULL_VALUE_ERROR = (
    "Null valued records are not writeable with current behavior.on.null.values 'fail' setting "
    "(set behavior.on.null.values=ignore to skip them, or write with store.kafka.keys=true)."
)
#: Avro schema of one record's headers view (Confluent's array of key/value string structs).
HEADERS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "record",
        "name": "ConnectDefault",
        "namespace": "io.confluent.connect.avro",
        "fields": [{"name": "key", "type": "string"}, {"name": "value", "type": "string"}],
    },
}


class NullValues(Enum):
    """``behavior.on.null.values``."""

    FAIL = "fail"
    IGNORE = "ignore"
    WRITE = "write"


@dataclass(frozen=True, slots=True)
class FileFormat:
    """The format of one kind of Confluent file (values, keys or headers) as lakesink writes it."""

    format: Format
    extension: str
    codec: CompressionCodec = CompressionCodec.UNCOMPRESSED
    compression_level: int | None = None
    separator: bytes = b"\n"
    """ByteArrayFormat's record separator."""
    decimals: DecimalFormat = DecimalFormat.BASE64
    """JsonFormat's ``json.decimal.format``: how a Struct's decimals are written."""


@dataclass(frozen=True, slots=True)
class ConfluentWriting:
    """Everything the writers of a Confluent config need (picklable, built on the driver)."""

    layout: ConfluentKeyLayout
    values: FileFormat
    keys: FileFormat | None
    headers: FileFormat | None
    rotation: RotationRules
    compatibility: SchemaCompatibility
    null_values: NullValues

    @property
    def dialect(self) -> str:
        return "confluent"

    @property
    def decodes_key(self) -> bool:
        return self.keys is not None

    @property
    def decodes_headers(self) -> bool:
        return self.headers is not None

    @property
    def holds_records(self) -> bool:
        """An open cycle waits for the record that ends it (``CycleEnd.WAIT``), held for the next range."""
        return self.rotation.cycle_end is CycleEnd.WAIT

    @property
    def skips_converted_nulls(self) -> bool:
        """``behavior.on.null.values=ignore``: Confluent tests the value after conversion and transforms
        (a JSON null too)."""
        return self.null_values is NullValues.IGNORE

    @property
    def consecutive_files(self) -> bool:
        """Under the DefaultPartitioner (one encoded partition per Kafka partition), unless tombstones
        are written to their own encoded partition and interleave with the other files."""
        return isinstance(self.layout.partitioner, DefaultPartitioner) and self.null_values is not NullValues.WRITE

    @property
    def reads_clock(self) -> bool:
        """Whether the encoded partition reads the batch clock (the Wallclock extractor)."""
        return reads_clock(self.layout)

    def wall_clock_note(self) -> str | None:
        """The one WARN line a run starts with when Confluent's own keys depend on the wall clock, else None.

        Confluent is not exactly-once with the Wallclock extractor or ``rotate.schedule.interval.ms``
        (a replay cuts other files). lakesink still stores every offset once, from batch clocks and
        micro-batch ends recorded in its range plans; only the keys may differ from Confluent's.
        """
        causes = []
        if self.reads_clock:
            causes.append(
                "timestamp.extractor=Wallclock puts records in the time bucket of the micro-batch that reads them"
            )
        if self.rotation.cycle_end is CycleEnd.SEAL:
            causes.append(
                "files rotate at the end of every micro-batch (partitions enter one when flush.size records wait "
                "or the rotation interval passed), not at Confluent's wall-clock instants"
            )
        if not causes:
            return None
        return (
            "Confluent config with wall-clock rules: "
            + "; ".join(causes)
            + ". Every offset is still stored exactly "
            "once, but object keys may differ from those Confluent would write for the same records."
        )

    def time_of(self, record: Record, now_ms: int) -> int | None:
        """The record's time for ``rotate.interval.ms`` (None without a time-based partitioner).

        A tombstone written to the tombstone partition has the record's own timestamp.

        Raises:
            RecordError: the extractor finds no usable time.
        """
        partitioner = self.layout.partitioner
        if not isinstance(partitioner, TimeBasedPartitioner):
            return None
        if record.value is None and self.rotation.tombstone_partition is not None:
            return record.timestamp
        return partitioner.extractor.extract(record, now_ms)

    def check_null(self, record: Record) -> None:
        """Refuse a tombstone under ``behavior.on.null.values=fail`` (checked first, as Confluent's ``put``).

        Raises:
            RecordError: the record's value is null and nulls fail.
        """
        if record.value is None and self.null_values is NullValues.FAIL:
            raise RecordError(NULL_VALUE_ERROR)

    def encoded_partition(self, record: Record, now_ms: int) -> str:
        """The record's encoded partition; tombstones go to the tombstone partition (``write``).

        Raises:
            RecordError: the partitioner cannot place the record.
            ConfigError: a value (not a tombstone) would go to an encoded partition containing
                ``tombstone.encoded.partition``, where Confluent writes no value file (it fails too).
        """
        tombstone = self.rotation.tombstone_partition
        if record.value is None and tombstone is not None:
            return tombstone
        encoded = checked_partition(record, self.layout.partitioner.encode_partition(record, now_ms))
        if tombstone is not None and tombstone in encoded:
            raise ConfigError(
                f"Record {record.describe()} goes to the encoded partition {encoded!r}, which contains "
                f"tombstone.encoded.partition={tombstone!r}: Confluent writes no values there. Choose another "
                "tombstone.encoded.partition."
            )
        return encoded

    def writes_value(self, encoded: str) -> bool:
        """Whether files of ``encoded`` get a value file (not the tombstone partition's)."""
        return encoded != self.rotation.tombstone_partition

    def object_key(self, topic: str, partition: int, encoded: str, start_offset: int) -> str:
        """The key of the value file of ``encoded`` whose first record has ``start_offset``."""
        return self.layout.object_key(topic, partition, encoded, start_offset, self.values.extension)

    def view_key(self, value_key: str, view: RecordView) -> str:
        """The key of the keys or headers file next to the value file ``value_key``."""
        files = self.keys if view is RecordView.KEYS else self.headers
        assert files is not None, f"{view} files are not stored"
        return view_object_key(value_key, self.values.extension, view, files.extension)


def file_format(
    fmt: ConfluentFormat, extension: str, settings: Settings, *, avro_codec: str, compression_level: int
) -> FileFormat:
    """How lakesink writes files of ``fmt`` (values, keys or headers) for a config's ``settings``
    (validated: ``parquet.codec`` is one Confluent accepts; lzo is refused when the sink starts).

    JsonFormat → JSON lines (one compact document and a newline per record, gzip with
    ``s3.compression.type=gzip``, a Struct's decimals as ``json.decimal.format`` says: base64 of the
    unscaled bytes by default, or numbers), AvroFormat → an Avro container (``avro.codec``),
    ParquetFormat → Parquet (``parquet.codec``), ByteArrayFormat → the raw bytes followed by
    ``format.bytearray.separator`` (default a newline) per record. The keys view holds each record's
    key, the headers view an array of ``{key, value}`` strings per record (JSON wraps it as
    ``{"headers": [...]}``), in files named by
    :func:`~lakesink.domain.dialects.confluent.naming.view_object_key`.
    """
    level = None if compression_level < 0 else compression_level
    gzip = string_setting(settings, "s3.compression.type", "none") == "gzip"
    decimals = json_decimal_format(settings)
    if fmt is ConfluentFormat.AVRO:
        return FileFormat(Format.AVRO, extension, _AVRO_CODECS[avro_codec])
    if fmt is ConfluentFormat.PARQUET:
        return FileFormat(
            Format.PARQUET, extension, _PARQUET_CODECS[string_setting(settings, "parquet.codec", "snappy")]
        )
    codec = CompressionCodec.GZIP if gzip else CompressionCodec.UNCOMPRESSED
    separator = settings.get("format.bytearray.separator", "\n")  # as written: Confluent keeps it untrimmed, even empty
    return FileFormat(
        _FORMATS[fmt], extension, codec, level if gzip else None, separator.encode("utf-8"), decimals
    )


def json_decimal_format(settings: Settings) -> DecimalFormat:
    """``json.decimal.format``: BASE64 (default) or NUMERIC, in any case, as Confluent validates it.

    Raises:
        ConfigError: any other value, in Kafka's ``CaseInsensitiveValidString`` words.
    """
    value = string_setting(settings, "json.decimal.format", "BASE64")
    try:
        return DecimalFormat(value.upper())
    except ValueError:
        raise ConfigError(
            f"Invalid value {value} for configuration json.decimal.format: "
            "String must be one of (case insensitive): NUMERIC, BASE64"
        ) from None


def reads_clock(layout: ConfluentKeyLayout) -> bool:
    """Whether ``layout``'s encoded partitions read the clock (a TimeBased partitioner with Wallclock)."""
    partitioner = layout.partitioner
    return isinstance(partitioner, TimeBasedPartitioner) and partitioner.extractor.kind is ExtractorKind.WALLCLOCK


def cycle_end(rotate_schedule_interval_ms: int, rotate_interval_ms: int, reads_clock: bool) -> CycleEnd:
    """Whether a range end seals the open cycle: only when Confluent rotates on the wall clock."""
    if rotate_schedule_interval_ms > 0 or (reads_clock and rotate_interval_ms > 0):
        return CycleEnd.SEAL
    return CycleEnd.WAIT
