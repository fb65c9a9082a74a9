"""Storage formats and compression codecs as the spec names them.

Which codec each format accepts, and the file extension each combination gets, are domain
rules (they decide object keys), so they live here rather than in the format adapters.
"""

from __future__ import annotations

from enum import Enum


class Format(Enum):
    """A ``STOREAS`` storage format."""

    JSON = "JSON"
    AVRO = "AVRO"
    PARQUET = "PARQUET"
    TEXT = "TEXT"
    CSV = "CSV"
    BYTES = "BYTES"

    @property
    def extension(self) -> str:
        """Base file extension (``json``, ``avro``, ...)."""
        return self.value.lower()

    @property
    def supports_envelope(self) -> bool:
        """Only JSON, AVRO and PARQUET can hold the key/value/headers/metadata envelope."""
        return self in (Format.JSON, Format.AVRO, Format.PARQUET)

    @property
    def rolls_on_schema_change(self) -> bool:
        """Formats whose files carry one schema roll to a new file when the schema changes."""
        return self in (Format.AVRO, Format.PARQUET, Format.CSV)


class DecimalFormat(Enum):
    """How JSON writes a Decimal: Kafka JsonConverter's ``decimal.format`` (Confluent's ``json.decimal.format``).

    BASE64: a string, the base64 of the unscaled value's two's-complement big-endian bytes
    (``BigInteger#toByteArray``); NUMERIC: an exact number, as ``BigDecimal#toString`` prints it.
    """

    BASE64 = "BASE64"
    NUMERIC = "NUMERIC"


class CompressionCodec(Enum):
    """``connect.<prefix>.compression.codec`` values."""

    UNCOMPRESSED = "UNCOMPRESSED"
    SNAPPY = "SNAPPY"
    GZIP = "GZIP"
    LZO = "LZO"
    LZ4 = "LZ4"
    BROTLI = "BROTLI"
    BZIP2 = "BZIP2"
    ZSTD = "ZSTD"
    DEFLATE = "DEFLATE"
    XZ = "XZ"

    @property
    def extension(self) -> str | None:
        """The codec's own extension (only JSON files take it, replacing ``json``)."""
        return _CODEC_EXTENSIONS[self]


_CODEC_EXTENSIONS: dict[CompressionCodec, str | None] = {
    CompressionCodec.UNCOMPRESSED: None,
    CompressionCodec.SNAPPY: "sz",
    CompressionCodec.GZIP: "gz",
    CompressionCodec.LZO: "lzo",
    CompressionCodec.LZ4: "lz4",
    CompressionCodec.BROTLI: "br",
    CompressionCodec.BZIP2: "bz2",
    CompressionCodec.ZSTD: "zst",
    CompressionCodec.DEFLATE: "gz",
    CompressionCodec.XZ: "xz",
}

#: Codecs each format accepts. LZO is accepted by Lenses' Parquet writer but not by pyarrow;
#: the Parquet adapter rejects it with a clear error instead of silently ignoring it.
SUPPORTED_CODECS: dict[Format, frozenset[CompressionCodec]] = {
    Format.JSON: frozenset({CompressionCodec.UNCOMPRESSED, CompressionCodec.GZIP}),
    Format.AVRO: frozenset(
        {
            CompressionCodec.UNCOMPRESSED,
            CompressionCodec.SNAPPY,
            CompressionCodec.BZIP2,
            CompressionCodec.DEFLATE,
            CompressionCodec.XZ,
            CompressionCodec.ZSTD,
        }
    ),
    Format.PARQUET: frozenset(
        {
            CompressionCodec.UNCOMPRESSED,
            CompressionCodec.SNAPPY,
            CompressionCodec.GZIP,
            CompressionCodec.LZ4,
            CompressionCodec.BROTLI,
            CompressionCodec.ZSTD,
        }
    ),
    Format.TEXT: frozenset(CompressionCodec),
    Format.CSV: frozenset(CompressionCodec),
    Format.BYTES: frozenset(CompressionCodec),
}
