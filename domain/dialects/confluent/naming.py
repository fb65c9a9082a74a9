"""Object keys of the Confluent S3 sink (``io.confluent.connect.s3.S3SinkConnector``).

``[topics.dir <d>] topic <d> encodedPartition <d> topic <f> kafkaPartition <f> startOffset ext``,
e.g. ``topics/orders/partition=3/orders+3+0000000042.avro``; keys and headers files go next to it
(:func:`view_object_key`). See docs/dialects.md, "Running a Confluent config".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from lakesink.domain.dialects.confluent.directory_delim import directory_delim, reject_control_characters
from lakesink.domain.dialects.confluent.partitioners import ConfluentPartitioner
from lakesink.domain.dialects.kafka_connect.config_def import Settings, int_setting, string_setting
from lakesink.domain.errors import ConfigError

TOPICS_DIR = "topics.dir"
FILE_DELIM = "file.delim"
ZERO_PAD_WIDTH = "filename.offset.zero.pad.width"
FORMAT_CLASS = "format.class"
COMPRESSION_TYPE = "s3.compression.type"
BYTEARRAY_EXTENSION = "format.bytearray.extension"
PARQUET_CODEC = "parquet.codec"

_FORMAT_PACKAGE = "io.confluent.connect.s3.format."
_LEGAL_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")
_COMPRESSION_EXTENSIONS = {"none": "", "gzip": ".gz"}
#: ``parquet.codec`` values Confluent accepts and Parquet 1.15's ``CompressionCodecName`` extensions.
PARQUET_CODEC_EXTENSIONS = {
    "none": "",
    "snappy": ".snappy",
    "gzip": ".gz",
    "lzo": ".lzo",
    "brotli": ".br",
    "lz4": ".lz4hadoop",
    "zstd": ".zstd",
    "lz4_raw": ".lz4raw",
}


class ConfluentFormat(Enum):
    """The ``format.class`` values of the S3 sink (fully qualified, as Kafka Connect requires)."""

    AVRO = f"{_FORMAT_PACKAGE}avro.AvroFormat"
    JSON = f"{_FORMAT_PACKAGE}json.JsonFormat"
    BYTEARRAY = f"{_FORMAT_PACKAGE}bytearray.ByteArrayFormat"
    PARQUET = f"{_FORMAT_PACKAGE}parquet.ParquetFormat"

    @classmethod
    def from_settings(
        cls, settings: Settings, key: str = FORMAT_CLASS, default: str | None = None
    ) -> ConfluentFormat:
        """The format named by ``key`` (``format.class``, ``keys.format.class``...).

        Raises:
            ConfigError: naming ``key`` when it is missing or not one of the four formats.
        """
        name = string_setting(settings, key, default or "")
        try:
            return cls(name)
        except ValueError:
            raise ConfigError(
                f"Invalid value {name!r} for configuration {key}: expected one of "
                f"{', '.join(member.value for member in cls)}."
            ) from None


class RecordView(Enum):
    """What a file holds; keys and headers files insert their marker before the extension."""

    VALUE = ""
    KEYS = ".keys"
    HEADERS = ".headers"


def format_extension(format: ConfluentFormat, settings: Settings) -> str:
    """The extension files of ``format`` get, as the format's writer provider reports it.

    Reads ``s3.compression.type`` (``none``/``gzip``), ``format.bytearray.extension`` and
    ``parquet.codec``.

    Avro ``.avro`` (``avro.codec`` is not shown); JSON ``.json`` and ByteArray
    ``format.bytearray.extension`` (default ``.bin``), both followed by ``.gz`` when
    ``s3.compression.type=gzip``; Parquet the ``parquet.codec``'s Parquet extension (Parquet 1.15)
    followed by ``.parquet``: ``.snappy.parquet`` (the default), ``.gz.parquet``, ``.zstd.parquet``,
    ``.lz4hadoop.parquet``, ``.lz4raw.parquet``, ``.br.parquet``, ``.lzo.parquet``, and ``.parquet``
    for ``none``.

    Raises:
        ConfigError: an unknown compression type or Parquet codec, or gzip with Avro/Parquet.
    """
    compression = string_setting(settings, COMPRESSION_TYPE, "none")
    if compression not in _COMPRESSION_EXTENSIONS:
        raise ConfigError(
            f"Invalid value {compression} for configuration {COMPRESSION_TYPE}: "
            f"String must be one of: {', '.join(_COMPRESSION_EXTENSIONS)}"
        )
    if compression != "none" and format in (ConfluentFormat.AVRO, ConfluentFormat.PARQUET):
        raise ConfigError(
            f"Compression Type {compression} not valid for {format.value} ({COMPRESSION_TYPE} "
            "applies to JsonFormat and ByteArrayFormat only)."
        )
    if format is ConfluentFormat.AVRO:
        return ".avro"
    if format is ConfluentFormat.JSON:
        return ".json" + _COMPRESSION_EXTENSIONS[compression]
    if format is ConfluentFormat.BYTEARRAY:
        extension = string_setting(settings, BYTEARRAY_EXTENSION, ".bin")
        reject_control_characters(BYTEARRAY_EXTENSION, extension)
        if "/" in extension or "\\" in extension:
            raise ConfigError(
                f"Invalid value {extension!r} for configuration {BYTEARRAY_EXTENSION}: "
                "'/' and '\\' are not allowed in an extension."
            )
        return extension + _COMPRESSION_EXTENSIONS[compression]
    codec = string_setting(settings, PARQUET_CODEC, "snappy")
    if codec not in PARQUET_CODEC_EXTENSIONS:
        raise ConfigError(
            f"Invalid value {codec} for configuration {PARQUET_CODEC}: "
            f"String must be one of: {', '.join(PARQUET_CODEC_EXTENSIONS)}"
        )
    return PARQUET_CODEC_EXTENSIONS[codec] + ".parquet"


def view_object_key(value_key: str, value_extension: str, view: RecordView, view_extension: str) -> str:
    """The key of the keys or headers file that goes with the value file ``value_key``.

    Confluent strips the value format's extension from the file name, then inserts the view
    marker before the view format's extension (``Utils.getAdjustedFilename``); when the stripped
    name already ends with that extension, the marker goes before that occurrence instead.
    """
    stripped = (
        value_key[: len(value_key) - len(value_extension)]
        if value_key.endswith(value_extension)
        else value_key
    )
    if stripped.endswith(view_extension):
        cut = stripped.rfind(view_extension)
        return stripped[:cut] + view.value + view_extension
    return stripped + view.value + view_extension


@dataclass(frozen=True, slots=True)
class ConfluentKeyLayout:
    """Everything that decides Confluent object keys; build it with :meth:`from_settings`.

    Immutable and picklable: built once on the driver and shipped to executors.
    """

    topics_dir: str
    directory_delim: str
    file_delim: str
    zero_pad_width: int
    partitioner: ConfluentPartitioner

    @classmethod
    def from_settings(cls, settings: Settings, partitioner: ConfluentPartitioner) -> ConfluentKeyLayout:
        """Read ``topics.dir``, ``directory.delim``, ``file.delim`` and ``filename.offset.zero.pad.width``.

        Deliberate differences (refusals): ``filename.offset.zero.pad.width=0`` is a ConfigError (Java's
        ``String.format("%00d")`` throws, so Confluent cannot start with it), and so are a ``topics.dir``
        with a ``.``/``..`` segment and control characters in ``topics.dir``, the delimiters or
        ``format.bytearray.extension`` (which may not contain ``/`` or a backslash either); a topic that
        is not a legal Kafka topic name is refused when a key is made.

        Raises:
            ConfigError: naming the key at fault.
        """
        topics_dir = string_setting(settings, TOPICS_DIR, "topics")
        reject_control_characters(TOPICS_DIR, topics_dir)
        if any(segment in (".", "..") for segment in topics_dir.replace("\\", "/").split("/")):
            raise ConfigError(
                f"Invalid value {topics_dir!r} for configuration {TOPICS_DIR}: '.' and '..' segments are not allowed."
            )
        file_delim = string_setting(settings, FILE_DELIM, "+")
        reject_control_characters(FILE_DELIM, file_delim)
        width = int_setting(settings, ZERO_PAD_WIDTH, 10)
        if width < 1:
            raise ConfigError(
                f"Invalid value {width} for configuration {ZERO_PAD_WIDTH}: must be at least 1 "
                "(Confluent accepts 0 but then fails to format any file name)."
            )
        return cls(topics_dir, directory_delim(settings), file_delim, width, partitioner)

    def object_key(
        self, topic: str, partition: int, encoded_partition: str, start_offset: int, extension: str
    ) -> str:
        """The key of the file of ``topic``/``partition`` whose first record has ``start_offset``.

        Raises:
            ValueError: a negative partition or offset.
            ConfigError: ``topic`` is not a legal Kafka topic name.
        """
        if partition < 0 or start_offset < 0:
            raise ValueError(f"Partition {partition} and offset {start_offset} must not be negative.")
        if not _LEGAL_TOPIC.fullmatch(topic) or topic in (".", ".."):
            raise ConfigError(f"Topic {topic!r} is not a legal Kafka topic name and cannot name an object.")
        d, f = self.directory_delim, self.file_delim
        name = f"{topic}{f}{partition}{f}{start_offset:0{self.zero_pad_width}d}{extension}"
        key = f"{topic}{d}{encoded_partition}{d}{name}"
        return f"{self.topics_dir}{d}{key}" if self.topics_dir.strip() else key
