"""Confluent's rotation, format, compression and record settings as Lenses settings (``config convert``).

Each function reads the validated :class:`~lakesink.domain.dialects.confluent.sink_config.ConfluentSinkConfig`
(and, where a value is copied, the file's raw text, so a provider reference stays one) and
returns a :class:`Piece`: the Lenses settings it gives, the (Confluent key, why) notes for what
converts only approximately or not at all, and the Confluent keys it accounted for.
:mod:`lakesink.domain.dialects.confluent.convert` puts the pieces together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from lakesink.domain.config.lenses_conversion import Piece, flag
from lakesink.domain.dialects.confluent.naming import ConfluentFormat
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.formats import CompressionCodec, Format

#: STOREAS of each ``format.class``.
FORMATS = {
    ConfluentFormat.AVRO: Format.AVRO,
    ConfluentFormat.JSON: Format.JSON,
    ConfluentFormat.PARQUET: Format.PARQUET,
    ConfluentFormat.BYTEARRAY: Format.BYTES,
}
#: Lenses pads offsets to at most this many digits (``padding.length.offset``).
MAX_PADDING = 64
_PARQUET_CODECS = {
    "snappy": CompressionCodec.SNAPPY,
    "gzip": CompressionCodec.GZIP,
    "brotli": CompressionCodec.BROTLI,
    "zstd": CompressionCodec.ZSTD,
    "lz4": CompressionCodec.LZ4,
    "lz4_raw": CompressionCodec.LZ4,
}
_AVRO_CODECS = {
    "deflate": CompressionCodec.DEFLATE,
    "snappy": CompressionCodec.SNAPPY,
    "bzip2": CompressionCodec.BZIP2,
}
_DETECTORS = {"BACKWARD": "version", "FULL": "version", "FORWARD": "compatibility"}


def flush_properties(config: ConfluentSinkConfig) -> Piece:
    """``'flush.count'``, ``'flush.interval'`` and ``'padding.length.offset'`` of every statement."""
    piece = Piece({"flush.count": str(config.flush_size)}, handled={"flush.size", "format.class"})
    scheduled = config.rotate_schedule_interval_ms > 0
    if config.format is ConfluentFormat.BYTEARRAY:
        piece.properties["flush.count"] = "1"
        if config.flush_size != 1:
            piece.note("flush.size", "Lenses' BYTES format stores one record per object ('flush.count'=1)")
    else:
        piece.note(
            "flush.size",
            "converted to 'flush.count', which Lenses counts per file (Confluent per topic-partition, "
            "across its open files); Lenses also rolls files at 'flush.size' bytes (default 500000000)"
            + ("" if scheduled else " and 'flush.interval' seconds (default 3600)"),
        )
    if scheduled:
        seconds = math.ceil(config.rotate_schedule_interval_ms / 1000)
        piece.properties["flush.interval"] = str(seconds)
        piece.note(
            "rotate.schedule.interval.ms",
            f"converted to 'flush.interval'={seconds} (seconds, rounded up), counted from when each file "
            "opened, not aligned to the clock in timezone as Confluent does",
        )
        piece.handled.add("timezone")  # the schedule's zone: see the note above
    width = config.layout.zero_pad_width
    if width <= MAX_PADDING:
        piece.properties["padding.length.offset"] = str(width)
        piece.handled.add("filename.offset.zero.pad.width")
    else:
        piece.note("filename.offset.zero.pad.width", f"Lenses pads offsets to at most {MAX_PADDING} digits")
    return piece


def envelope_properties(config: ConfluentSinkConfig) -> Piece:
    """``.keys`` / ``.headers`` sibling files as the value files' envelope (KCQL PROPERTIES)."""
    piece = Piece(
        handled={"store.kafka.keys", "store.kafka.headers", "keys.format.class", "headers.format.class"}
    )
    stored = [(which, view) for which, view in (("keys", config.keys), ("headers", config.headers)) if view]
    if not stored:
        return piece
    if config.format is ConfluentFormat.BYTEARRAY:
        for which, _ in stored:
            piece.note(
                f"store.kafka.{which}",
                "Lenses' BYTES files hold only the value; store.envelope needs JSON, AVRO or PARQUET",
            )
        return piece
    for which, view in stored:
        other = "" if view.format is config.format else f" (not {view.format.name}, {which}.format.class)"
        piece.note(
            f"store.kafka.{which}",
            f"Lenses writes no .{which} sibling files: the {which} are stored in each value file's "
            f"envelope (store.envelope), in {FORMATS[config.format].value}{other}",
        )
    piece.properties.update(
        {
            "store.envelope": "true",
            "store.envelope.fields.key": flag(config.keys is not None),
            "store.envelope.fields.value": "true",
            "store.envelope.fields.metadata": "false",
            "store.envelope.fields.headers": flag(config.headers is not None),
        }
    )
    return piece


def compression(config: ConfluentSinkConfig, raw: Mapping[str, str]) -> Piece:
    """``connect.s3.compression.codec`` (and level) from ``parquet.codec``, ``avro.codec`` or gzip JSON."""
    piece = Piece(handled={"parquet.codec", "avro.codec", "s3.compression.type", "s3.compression.level"})
    codec: CompressionCodec | None = None
    gzip_json = False
    gzip = raw.get("s3.compression.type", "none").strip() == "gzip"
    if config.format is ConfluentFormat.PARQUET:
        name = raw.get("parquet.codec", "snappy").strip()
        codec = _PARQUET_CODECS.get(name)
        if name in ("lz4", "lz4_raw"):
            piece.note(
                "parquet.codec",
                f"{name} is written with Lenses' LZ4 codec (Parquet readers read both framings)",
            )
        elif name == "lzo":
            piece.note(
                "parquet.codec", "lzo is not available in lakesink's Parquet writer: files are uncompressed"
            )
    elif config.format is ConfluentFormat.AVRO:
        codec = _AVRO_CODECS.get(config.avro_codec)
    elif gzip and config.format is ConfluentFormat.JSON:
        codec, gzip_json = CompressionCodec.GZIP, True
    elif gzip:
        piece.note("s3.compression.type", "Lenses' BYTES files are never compressed")
    if codec is not None:
        piece.properties["connect.s3.compression.codec"] = codec.value
    if gzip_json and config.compression_level != -1:
        piece.properties["connect.s3.compression.level"] = raw["s3.compression.level"]
    elif "s3.compression.level" in raw:
        piece.note(
            "s3.compression.level",
            "only used with s3.compression.type=gzip (no effect in Confluent here either)",
        )
    return piece


def record_handling(config: ConfluentSinkConfig, raw: Mapping[str, str]) -> Piece:
    """Null values, schema changes and record errors."""
    piece = Piece(handled={"behavior.on.null.values", "schema.compatibility"})
    if config.null_values == "ignore":
        piece.properties["connect.s3.skip.null.values"] = "true"
    elif config.null_values == "fail":
        piece.note(
            "behavior.on.null.values",
            "fail (the default) has no Lenses equivalent: Lenses writes null values "
            "(connect.s3.skip.null.values=true drops them instead)",
        )
    else:
        piece.note(
            "behavior.on.null.values",
            "write: Confluent writes only the key, under tombstone.encoded.partition; Lenses stores the "
            "record with a null value in the envelope, in the directory its PARTITIONBY gives "
            "(a PARTITIONBY on value fields fails on it)",
        )
    detector = _DETECTORS.get(config.schema_compatibility)
    if detector is not None:
        piece.properties["connect.s3.schema.change.detector"] = detector
        rolls_on = "newer schema version" if detector == "version" else "schema the file's cannot read"
        piece.note(
            "schema.compatibility",
            f"{config.schema_compatibility} converted to connect.s3.schema.change.detector={detector}, the "
            f"nearest rule: Lenses rolls the file on a {rolls_on} and writes other records with the file's "
            "schema, but it does not project records as Confluent does",
        )
    if raw.get("errors.tolerance", "none").strip().lower() == "none":
        piece.handled.add("errors.tolerance")  # what Lenses always does
    return piece
