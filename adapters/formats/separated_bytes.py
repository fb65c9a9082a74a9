"""Confluent's ByteArrayFormat: each record's bytes followed by a separator (default ``\\n``).

The value (or key) is written as the ByteArrayConverter gives it: ``bytes`` as they are, text as
UTF-8; anything else is a poison record naming the converter to use. GZIP (``s3.compression.type``)
writes the whole file as one gzip stream with ``mtime=0``, so equal records give equal bytes.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from lakesink.adapters.formats.json_lines import DEFAULT_GZIP_LEVEL
from lakesink.adapters.formats.staging import LineFile
from lakesink.domain.formats import CompressionCodec
from lakesink.domain.records import Record, poison

NOT_BYTES = (
    "ByteArrayFormat writes byte values; set the converter to "
    "org.apache.kafka.connect.converters.ByteArrayConverter (or StringConverter)."
)


class SeparatedBytesWriter(LineFile):
    """Writes ``value + separator`` per record, optionally as one gzip stream."""

    def __init__(
        self,
        path: Path | str,
        *,
        separator: bytes,
        codec: CompressionCodec = CompressionCodec.UNCOMPRESSED,
        level: int | None = None,
    ) -> None:
        super().__init__(path)
        self._separator = separator
        if codec is CompressionCodec.GZIP:
            self._out = gzip.GzipFile(
                filename="",
                fileobj=self._raw,
                mode="wb",
                compresslevel=DEFAULT_GZIP_LEVEL if level is None else level,
                mtime=0,
            )

    def _write(self, record: Record) -> None:
        value = record.value
        if isinstance(value, str):
            value = value.encode("utf-8")
        if not isinstance(value, bytes | bytearray | memoryview):
            raise poison(record, NOT_BYTES)
        self._out.write(value)
        self._out.write(self._separator)

    def _finish(self) -> None:
        if self._out is not self._raw:
            self._out.close()

    _discard = _finish
