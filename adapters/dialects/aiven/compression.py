"""The compressed streams Aiven's sinks wrap around a file (``CompressionType#compress``).

Each stream ends a file as Aiven's ``flush()`` then ``close()`` does, framing byte-exact
(:func:`compressed`). See docs/dialects.md, "File contents (Aiven's writers, byte for byte)".
"""

from __future__ import annotations

import gzip
import struct
import sys
import zlib
from typing import BinaryIO, Protocol

import cramjam

from lakesink.domain.dialects.aiven.naming import AivenCompression

if sys.version_info >= (3, 14):
    from compression.zstd import ZstdCompressor
else:
    from backports.zstd import ZstdCompressor

#: Java's ``GZIPOutputStream`` header (JDK 16+: OS byte 255, "unknown").
GZIP_HEADER = bytes((0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF))
#: ``SnappyCodec.currentHeader``: magic, version 1, minimum compatible version 1.
SNAPPY_HEADER = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
SNAPPY_BLOCK = 32 * 1024
ZSTD_LEVEL = 3


class CompressedStream(Protocol):
    """What a format writer needs of the stream over its staging file."""

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Compress and append ``data``."""
        ...

    def flush(self) -> None:
        """Java's ``flush()``: push out what is buffered (a sync-flush block, a snappy block...)."""
        ...

    def close(self) -> None:
        """Aiven's ``flush()`` then ``close()``: the stream ends; the staging file stays open."""
        ...

    def seekable(self) -> bool:
        """Never: fastavro must not take the stream for a file to append to."""
        ...


class _Plain:
    """No compression: bytes go to the file as they are."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw

    def write(self, data: bytes | bytearray | memoryview) -> int:
        return self._raw.write(data)

    def flush(self) -> None:
        """Nothing buffered here (the staging file buffers, and is flushed by its owner)."""

    def close(self) -> None:
        """Nothing to end: the staging file is closed by its owner."""

    def seekable(self) -> bool:
        return False


class _JavaGzip(_Plain):
    """``GZIPOutputStream(out, syncFlush=true)``."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__(raw)
        self._deflate = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -zlib.MAX_WBITS)
        self._crc = 0
        self._size = 0
        raw.write(GZIP_HEADER)

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self._crc = zlib.crc32(data, self._crc)
        self._size += len(data)
        self._raw.write(self._deflate.compress(data))
        return len(data)

    def flush(self) -> None:
        self._raw.write(self._deflate.flush(zlib.Z_SYNC_FLUSH))

    def close(self) -> None:
        self.flush()
        self._raw.write(self._deflate.flush(zlib.Z_FINISH))
        self._raw.write(struct.pack("<II", self._crc, self._size & 0xFFFFFFFF))


class _SnappyJava(_Plain):
    """snappy-java's ``SnappyOutputStream``: 32 KiB input blocks, each ``length + raw snappy``."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__(raw)
        self._pending = bytearray()
        raw.write(SNAPPY_HEADER)

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self._pending += data
        while len(self._pending) >= SNAPPY_BLOCK:
            self._block(bytes(self._pending[:SNAPPY_BLOCK]))
            del self._pending[:SNAPPY_BLOCK]
        return len(data)

    def _block(self, data: bytes) -> None:
        compressed = bytes(cramjam.snappy.compress_raw(data))
        self._raw.write(struct.pack(">i", len(compressed)) + compressed)

    def flush(self) -> None:
        if self._pending:
            self._block(bytes(self._pending))
            self._pending.clear()

    def close(self) -> None:
        self.flush()


class _ZstdJni(_Plain):
    """zstd-jni's ``ZstdOutputStream`` at its defaults."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__(raw)
        self._zstd = ZstdCompressor(level=ZSTD_LEVEL)

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self._raw.write(self._zstd.compress(bytes(data), ZstdCompressor.CONTINUE))
        return len(data)

    def flush(self) -> None:
        self._raw.write(self._zstd.compress(b"", ZstdCompressor.FLUSH_BLOCK))

    def close(self) -> None:
        self.flush()
        self._raw.write(self._zstd.flush(ZstdCompressor.FLUSH_FRAME))


def compressed(compression: AivenCompression, raw: BinaryIO) -> CompressedStream:
    """The stream ``compression`` wraps around ``raw``; a gzip or snappy header is written at once.

    (snappy-java writes its header at the first block or flush, which comes before any other byte
    of a file Aiven writes, so the file is the same.)

    Aiven's ``OutputWriter#close`` calls ``flush()`` before ``close()``; each stream writes what that
    pair writes. ``gzip``: ``GZIPOutputStream(out, syncFlush=true)``, a 10-byte header with no name,
    mtime 0, XFL 0 and OS 255 (JDK 16 and later; Java 11 writes OS 0), raw deflate at zlib's default
    level, then at close a ``Z_SYNC_FLUSH`` and a ``Z_FINISH`` block, then CRC-32 and size,
    little-endian. ``snappy``: snappy-java's ``SnappyOutputStream`` (not the framing format of
    ``SnappyFramedOutputStream``, not Hadoop's): the header ``0x82 SNAPPY 0x00`` + version 1 +
    compatible version 1 (big-endian int32 each), then per 32 KiB of input (and whatever is buffered
    at a flush) a big-endian int32 length and one raw snappy block. ``zstd``: zstd-jni's
    ``ZstdOutputStream``, one frame at level 3 without checksum or content size; the flush ends a
    block, the close ends the frame.

    The framing is byte-exact. gzip and zstd payloads equal the Java classes' for the test data
    (``tests/support/AivenGolden.java``: the same zlib and libzstd compress alike; another version
    may not). snappy blocks are cramjam's (Rust snap), which can differ from google snappy's by a few
    bytes while decoding to the same data; no Python package here binds google snappy.
    """
    if compression is AivenCompression.GZIP:
        return _JavaGzip(raw)
    if compression is AivenCompression.SNAPPY:
        return _SnappyJava(raw)
    if compression is AivenCompression.ZSTD:
        return _ZstdJni(raw)
    return _Plain(raw)


def decompressed(compression: AivenCompression, data: bytes) -> bytes:
    """The content of a file written through :func:`compressed` (the restore reads it back).

    snappy is snappy-java's stream (header, then length-prefixed raw blocks; a reader may also find
    concatenated streams, each with its header, as ``SnappyInputStream`` accepts).

    Raises:
        ValueError: the data is not such a stream (a truncated or foreign file).
    """
    if compression is AivenCompression.GZIP:
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise ValueError(f"not gzip data: {error}") from None
    if compression is AivenCompression.SNAPPY:
        return _snappy_java_content(data)
    if compression is AivenCompression.ZSTD:
        try:
            return bytes(cramjam.zstd.decompress(data))
        except cramjam.DecompressionError as error:
            raise ValueError(f"not zstd data: {error}") from None
    return data


def _snappy_java_content(data: bytes) -> bytes:
    out = bytearray()
    position = 0
    while position < len(data):
        if data.startswith(SNAPPY_HEADER[:8], position):
            position += len(SNAPPY_HEADER)
            continue
        if position + 4 > len(data):
            raise ValueError("a truncated snappy-java block length")
        (length,) = struct.unpack_from(">i", data, position)
        block = data[position + 4 : position + 4 + length]
        if length < 0 or len(block) != length:
            raise ValueError("a truncated snappy-java block")
        try:
            out += cramjam.snappy.decompress_raw(block)
        except cramjam.DecompressionError as error:
            raise ValueError(f"not snappy data: {error}") from None
        position += 4 + length
    return bytes(out)
