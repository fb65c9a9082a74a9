"""Aiven's format, compression, output fields, flush and error settings as Lenses settings (``config convert``).

Each function reads the validated :class:`~lakesink.domain.dialects.aiven.sink_config.AivenSinkConfig`
(and the file's raw text where a value is copied, so a provider reference stays one) and returns a
:class:`~lakesink.domain.config.lenses_conversion.Piece`: the Lenses settings, the (Aiven key, why)
notes, and the Aiven keys it accounted for. Aiven's and Lenses' writers differ in layout even for
the same data, so most pieces carry a note saying exactly how (:mod:`lakesink.domain.dialects.aiven.convert`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from lakesink.domain.config.lenses_conversion import Piece, flag
from lakesink.domain.dialects.aiven.naming import AivenCompression, AivenFormat
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.formats import SUPPORTED_CODECS, CompressionCodec, Format

#: STOREAS of each ``format.output.type`` (json and csv with a note: see :func:`format_notes`).
FORMATS = {
    AivenFormat.CSV: Format.CSV,
    AivenFormat.JSON: Format.JSON,
    AivenFormat.JSONL: Format.JSON,
    AivenFormat.AVRO: Format.AVRO,
    AivenFormat.PARQUET: Format.PARQUET,
}
_STREAM_CODECS = {
    AivenCompression.NONE: None,
    AivenCompression.GZIP: CompressionCodec.GZIP,
    AivenCompression.SNAPPY: CompressionCodec.SNAPPY,
    AivenCompression.ZSTD: CompressionCodec.ZSTD,
}
_AVRO_CODECS = {
    "null": None,
    "deflate": CompressionCodec.DEFLATE,
    "snappy": CompressionCodec.SNAPPY,
    "bzip2": CompressionCodec.BZIP2,
    "xz": CompressionCodec.XZ,
    "zstandard": CompressionCodec.ZSTD,
}
_COMPRESSION_KEYS = ("file.compression.type", "output_compression")
_FIELD_KEYS = ("format.output.fields", "output_fields")
_LENSES_ENVELOPE = (
    "Lenses' envelope is {key, value, headers, metadata}: Aiven's offset and timestamp are top-level "
    "fields, Lenses' are metadata.offset and metadata.timestamp (epoch millis, next to metadata.topic "
    "and metadata.partition); headers are one field per header name (Aiven: a list of key/value pairs "
    "in JSON, a map in Avro/Parquet); the fields come in Lenses' order, not the configured one"
)
CSV_NOTE = (
    "csv converted to STOREAS CSV, which differs: Lenses' CSV writes the value's top-level fields as "
    "quoted columns (a struct value), where Aiven writes the configured fields (key, value, offset, "
    "timestamp, headers) as unquoted cells, key and value in Base64; for format.output.fields=value with "
    "format.output.fields.value.encoding=none, STOREAS `TEXT` writes the same lines (plus a final newline)"
)


def format_notes(config: AivenSinkConfig) -> Piece:
    """STOREAS is :data:`FORMATS`; what the Lenses writer does differently for json and csv."""
    piece = Piece(handled={"format.output.type"})
    if config.format is AivenFormat.JSON:
        piece.note(
            "format.output.type",
            "json converted to STOREAS JSON, which writes one object per line (Aiven's jsonl); Aiven's json "
            "writes one array per file ([ records ])",
        )
    elif config.format is AivenFormat.CSV:
        piece.note("format.output.type", CSV_NOTE)
    return piece


def compression(config: AivenSinkConfig, raw: Mapping[str, str]) -> Piece:
    """``connect.s3.compression.codec`` from the stream compression, Parquet's codec or ``avro.codec``."""
    piece = Piece(handled={*_COMPRESSION_KEYS, "avro.codec"})
    stored = FORMATS[config.format]
    given = next((key for key in _COMPRESSION_KEYS if key in raw), None)
    shown = given or "file.compression.type"
    if config.format is AivenFormat.PARQUET:
        codec = _STREAM_CODECS[config.parquet_codec]
        if "output_compression" in raw:
            piece.note(
                "output_compression", "Aiven's Parquet reads only file.compression.type (no effect there)"
            )
    elif config.format is AivenFormat.AVRO:
        codec = _AVRO_CODECS[config.avro_codec]
        if config.compression is not AivenCompression.NONE:
            default = "" if given else " (Aiven's default when no compression key is set)"
            piece.note(
                shown,
                f"Aiven {config.compression.value}-compresses the whole .avro file{default}; Lenses writes "
                "plain Avro files, compressed per block by avro.codec (connect.s3.compression.codec)",
            )
    else:
        codec = _STREAM_CODECS[config.compression]
        if given == "file.compression.type" and "output_compression" in raw:
            piece.note("output_compression", "overridden by file.compression.type (as in Aiven)")
        if codec is not None and stored is Format.CSV:
            default = "" if given else " (Aiven's default when no compression key is set)"
            piece.note(
                shown,
                f"Lenses' CSV files are never compressed: Aiven's {codec.value.lower()}{default} is dropped",
            )
            codec = None
        elif codec is not None and codec not in SUPPORTED_CODECS[stored]:
            piece.note(
                shown, f"Lenses' {stored.value} files are compressed only with GZIP: written uncompressed"
            )
            codec = None
    if "avro.codec" in raw and config.format is not AivenFormat.AVRO:
        piece.note("avro.codec", "only used with format.output.type=avro (no effect in Aiven either)")
    if codec is not None:
        piece.properties["connect.s3.compression.codec"] = codec.value
    return piece


def envelope_properties(config: AivenSinkConfig, raw: Mapping[str, str]) -> Piece:
    """``format.output.fields`` / ``format.output.envelope`` as Lenses' envelope (KCQL PROPERTIES)."""
    piece = Piece(handled={*_FIELD_KEYS, "format.output.envelope", "format.output.fields.value.encoding"})
    names = {item.name for item in config.output_fields}
    fields_key = next((key for key in _FIELD_KEYS if key in raw), "format.output.fields")
    if fields_key == "format.output.fields" and "output_fields" in raw:
        piece.note("output_fields", "overridden by format.output.fields (as in Aiven)")
    if "format.output.fields.value.encoding" in raw:
        piece.note(
            "format.output.fields.value.encoding",
            "no Lenses equivalent: Aiven Base64-encodes only csv cells (the key always, the value when "
            "base64); Lenses never does (its JSON writes bytes as Base64 text, as Aiven's JsonConverter does)",
        )
    if names == {"value"}:
        if config.envelope and config.format is not AivenFormat.CSV:
            piece.note(
                "format.output.envelope",
                'Aiven wraps the value in an envelope with one field, value ({"value": …} in JSON, a '
                "connector_records record in Avro/Parquet); Lenses writes the value itself "
                "('store.envelope'=true with only store.envelope.fields.value=true would wrap it)",
            )
        return piece
    if not FORMATS[config.format].supports_envelope:
        piece.note(
            fields_key,
            "Lenses' CSV holds only the value: key, offset, timestamp and headers are not written "
            "(Lenses' envelope needs JSON, AVRO or PARQUET)",
        )
        return piece
    metadata = names & {"offset", "timestamp"}
    extra = {"offset", "timestamp"} - metadata
    why = f"converted to Lenses' envelope ('store.envelope'=true); {_LENSES_ENVELOPE}"
    if metadata and extra:
        why += f"; metadata also holds {extra.pop()}, topic and partition"
    piece.note(fields_key, why)
    if not config.envelope:
        piece.note(
            "format.output.envelope",
            "false: Aiven writes the single field bare; Lenses holds it in the envelope",
        )
    piece.properties.update(
        {
            "store.envelope": "true",
            "store.envelope.fields.key": flag("key" in names),
            "store.envelope.fields.value": flag("value" in names),
            "store.envelope.fields.metadata": flag(bool(metadata)),
            "store.envelope.fields.headers": flag("headers" in names),
        }
    )
    return piece


def flush_properties(config: AivenSinkConfig, raw: Mapping[str, str]) -> Piece:
    """``'flush.interval'`` from Kafka Connect's flush period, ``'flush.count'`` from ``file.max.records``."""
    seconds = max(1, math.ceil(config.flush_interval_ms / 1000))
    piece = Piece({"flush.interval": str(seconds)}, handled={"offset.flush.interval.ms", "file.max.records"})
    if "offset.flush.interval.ms" in raw:
        piece.note(
            "offset.flush.interval.ms",
            f"converted to 'flush.interval'={seconds} (seconds, rounded up): Lenses closes a file that long "
            "after it opened; Aiven writes every file it buffered at each Kafka Connect flush",
        )
    limit = config.naming.max_records
    if limit > 0:
        piece.properties["flush.count"] = str(limit)
        piece.note(
            "file.max.records",
            "converted to 'flush.count'; Lenses also rolls files at 'flush.size' bytes (default 500000000)",
        )
    elif "file.max.records" in raw:
        piece.note(
            "file.max.records",
            "0 (no limit) has no Lenses equivalent: Lenses rolls a file at 'flush.count' records (default 50000)",
        )
    return piece


def error_policy(raw: Mapping[str, str]) -> Piece:
    """``errors.tolerance``: ``all`` is Lenses' ``connect.s3.error.policy=NOOP``; ``none`` its default THROW."""
    piece = Piece(handled={"errors.tolerance"})
    if raw.get("errors.tolerance", "none").strip().lower() == "all":
        piece.properties["connect.s3.error.policy"] = "NOOP"
        piece.note(
            "errors.tolerance",
            "all converted to connect.s3.error.policy=NOOP: a record that cannot be converted or written "
            "is skipped (logged); a storage error still stops the sink",
        )
    return piece
