"""Aiven's S3 sink files: framing per format, the compressed streams, Avro and Parquet read back.

Expected file texts come from Aiven's tests (named per test); compressed bytes from the Java
classes Aiven uses, printed by ``tests/support/AivenGolden.java`` (JDK 17, snappy-java 1.1.10.8,
zstd-jni 1.5.7-7, Jackson 2.21). Compressed files are read back with decoders that are not the
encoder (the stdlib's gzip, cramjam's zstd, a small snappy block decoder below).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import struct
from pathlib import Path

import cramjam
import fastavro
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.dialects.aiven.compression import SNAPPY_HEADER, compressed
from lakesink.adapters.dialects.aiven.writers import open_aiven_writer, preview
from lakesink.domain.dialects.aiven.naming import AivenCompression, AivenFormat
from lakesink.domain.dialects.aiven.output import AivenOutput
from lakesink.domain.dialects.aiven.sink_config import OutputField
from lakesink.domain.errors import RecordError, SchemaChangedError
from lakesink.domain.records import Record

STRUCT = {"type": "struct", "fields": [{"field": "name", "type": "string", "optional": False}]}
SMALL = b"dGVzdC12YWx1ZQ==,dGVzdC1rZXk=,1000,0\ndGVzdC12YWx1ZQ==,dGVzdC1rZXk=,1000,1"
LARGE = b"".join(b"dGVzdC12YWx1ZQ==,dGVzdC1rZXk=,1000,%d\n" % i for i in range(5000))

#: tests/support/AivenGolden.java: GZIPOutputStream(out, true), write, flush(), close() on JDK 17.
GZIP_SMALL = bytes.fromhex(
    "1f8b08000000000000ff4a710fab4a7136348a0caf308c0ab4b5d549810814454564dbea181a1818e81870a510566408000000ffff03002679599d49000000"
)
#: snappy-java 1.1.10.8 SnappyOutputStream (its blocks are google snappy's; cramjam's differ, see below).
SNAPPY_SMALL = bytes.fromhex(
    "82534e415050590000000001000000010000002b49446447567a64433132595778315a513d3d2c64091130725a586b3d2c313030302c300a0d146e25000031"
)
#: zstd-jni 1.5.7-7 ZstdOutputStream.
ZSTD_SMALL = bytes.fromhex(
    "28b52ffd0058440100f86447567a64433132595778315a513d3d2c725a586b3d2c313030302c300a31020090223fb97309010000"
)
#: Length and SHA-256 of each stream over LARGE (5000 lines, 192 KB). snappy-java's is 25755 bytes.
LARGE_DIGESTS = {
    AivenCompression.GZIP: (12303, "f24ff74cf1f9bd408b3e5c49e24cd9bbbaf02cce8d019d6133252a5fc5efeae6"),
    AivenCompression.ZSTD: (4147, "e386a18c568e36e5b36242492b6f4d2661dd37d96fbfe771f4ba5e5a70d770ea"),
}


def fields(text: str, encoding: str = "base64") -> tuple[OutputField, ...]:
    return tuple(
        OutputField(name, encoding if name in ("key", "value") else "none") for name in text.split(",")
    )


def write(path: Path, out: AivenOutput, records: list[Record]) -> bytes:
    writer = open_aiven_writer(out, path)
    for record in records:
        writer.write(record)
    assert writer.record_count == len(records)
    writer.close()
    return path.read_bytes()


def snappy_java_decode(data: bytes) -> bytes:
    """snappy-java's stream format read with a minimal raw-snappy block decoder (not cramjam)."""
    assert data[:16] == SNAPPY_HEADER
    position, out = 16, bytearray()
    while position < len(data):
        (length,) = struct.unpack(">i", data[position : position + 4])
        out += _snappy_block(data[position + 4 : position + 4 + length])
        position += 4 + length
    return bytes(out)


def _snappy_block(block: bytes) -> bytes:
    position, shift, size = 0, 0, 0
    while True:
        byte = block[position]
        position += 1
        size |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            break
    out = bytearray()
    while position < len(block):
        tag = block[position]
        position += 1
        kind = tag & 3
        if kind == 0:
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                length = int.from_bytes(block[position : position + extra], "little")
                position += extra
            length += 1
            out += block[position : position + length]
            position += length
            continue
        if kind == 1:
            length = ((tag >> 2) & 7) + 4
            offset = ((tag >> 5) << 8) | block[position]
            position += 1
        else:
            width = 2 if kind == 2 else 4
            length = (tag >> 2) + 1
            offset = int.from_bytes(block[position : position + width], "little")
            position += width
        for _ in range(length):
            out.append(out[-offset])
    assert len(out) == size
    return bytes(out)


DECODERS = {
    AivenCompression.NONE: lambda data: data,
    AivenCompression.GZIP: gzip.decompress,
    AivenCompression.SNAPPY: snappy_java_decode,
    AivenCompression.ZSTD: lambda data: bytes(cramjam.zstd.decompress(data)),
}


# --- text formats -------------------------------------------------------------------------------


def batch_record(offset: int) -> Record:
    """S3SinkTaskTest#createBatchOfRecord."""
    headers = (("test-header-key-1", b"test-header-value-1"), ("test-header-key-2", b"test-header-value-2"))
    return Record("test-topic", 0, offset, 1000, b"test-key", b"test-value", headers)


def test_csv_file_has_no_trailing_newline_and_parses_back(tmp_path: Path) -> None:
    out = AivenOutput(AivenFormat.CSV, fields("value,key,timestamp,offset"))
    data = write(tmp_path / "f.csv", out, [batch_record(0), batch_record(1)])
    assert data == SMALL
    rows = list(csv.reader(io.StringIO(data.decode("ascii"))))
    assert rows == [["dGVzdC12YWx1ZQ==", "dGVzdC1rZXk=", "1000", str(i)] for i in range(2)]


def test_json_file_is_an_array_with_a_record_per_line(tmp_path: Path) -> None:
    # JsonOutputWriterTest#multiStringJsonValueWithOneFieldAndValue; exact framing from
    # JsonOutputWriterTest#jsonValueWithSingleField ("[\n{...}\n]").
    records = [
        Record("topic0", 0, 1, 1000, "key0", {"name": name}, value_schema=STRUCT)
        for name in ("John", "Pekka")
    ]
    out = AivenOutput(AivenFormat.JSON, fields("value,key"))
    data = write(tmp_path / "f.json", out, records)
    assert data == b'[\n{"value":{"name":"John"},"key":"key0"},\n{"value":{"name":"Pekka"},"key":"key0"}\n]'
    assert json.loads(data)[1] == {"value": {"name": "Pekka"}, "key": "key0"}
    single = write(
        tmp_path / "g.json", AivenOutput(AivenFormat.JSON, fields("value"), envelope=False), records[:1]
    )
    assert single == b'[\n{"name":"John"}\n]'


def test_jsonl_file_has_no_trailing_newline(tmp_path: Path) -> None:
    # JsonLinesOutputWriterTest#multiStringJsonValueWithOneFieldAndValue.
    records = [
        Record("topic0", 0, 1, 1000, "key0", {"name": n}, value_schema=STRUCT) for n in ("John", "Pekka")
    ]
    data = write(tmp_path / "f.jsonl", AivenOutput(AivenFormat.JSONL, fields("value,key")), records)
    assert data == b'{"value":{"name":"John"},"key":"key0"}\n{"value":{"name":"Pekka"},"key":"key0"}'


def test_a_poison_record_leaves_no_byte(tmp_path: Path) -> None:
    writer = open_aiven_writer(AivenOutput(AivenFormat.CSV, fields("value")), tmp_path / "f")
    writer.write(batch_record(0))
    with pytest.raises(RecordError, match="must be BYTES"):
        writer.write(Record("t", 0, 1, value="text"))
    writer.write(batch_record(2))
    assert writer.record_count == 2
    writer.close()
    assert (tmp_path / "f").read_bytes() == b"dGVzdC12YWx1ZQ==\ndGVzdC12YWx1ZQ=="


def test_abort_deletes_the_file(tmp_path: Path) -> None:
    writer = open_aiven_writer(
        AivenOutput(AivenFormat.JSONL, fields("value"), compression=AivenCompression.GZIP), tmp_path / "f"
    )
    writer.write(batch_record(0))
    writer.abort()
    assert not (tmp_path / "f").exists()


# --- compression --------------------------------------------------------------------------------


def stream_bytes(compression: AivenCompression, data: bytes) -> bytes:
    raw = io.BytesIO()
    stream = compressed(compression, raw)
    stream.write(data)
    stream.close()
    return raw.getvalue()


@pytest.mark.parametrize(
    ("compression", "golden"),
    [(AivenCompression.GZIP, GZIP_SMALL), (AivenCompression.ZSTD, ZSTD_SMALL)],
)
def test_small_streams_equal_the_java_classes_bytes(compression: AivenCompression, golden: bytes) -> None:
    assert stream_bytes(compression, SMALL) == golden
    assert DECODERS[compression](golden) == SMALL


@pytest.mark.parametrize(
    ("compression", "golden"), [(AivenCompression.GZIP, GZIP_SMALL), (AivenCompression.ZSTD, ZSTD_SMALL)]
)
def test_how_the_bytes_are_split_into_writes_does_not_matter(
    compression: AivenCompression, golden: bytes
) -> None:
    # Aiven's writers call write() per field and separator; the golden was written in one call.
    raw = io.BytesIO()
    stream = compressed(compression, raw)
    for start in range(0, len(SMALL), 7):
        stream.write(SMALL[start : start + 7])
    stream.close()
    assert raw.getvalue() == golden


def test_snappy_stream_has_snappy_javas_framing() -> None:
    # The header and the length-prefixed blocks are snappy-java's; the block's bytes are cramjam's
    # (Rust snap), which encodes this input one byte longer than google snappy, and both decode alike.
    ours = stream_bytes(AivenCompression.SNAPPY, SMALL)
    assert ours[:16] == SNAPPY_SMALL[:16] == bytes.fromhex("82534e41505059000000000100000001")
    assert snappy_java_decode(ours) == snappy_java_decode(SNAPPY_SMALL) == SMALL


@pytest.mark.parametrize("compression", [AivenCompression.GZIP, AivenCompression.ZSTD])
def test_large_streams_equal_the_java_classes_bytes(compression: AivenCompression) -> None:
    data = stream_bytes(compression, LARGE)
    assert DECODERS[compression](data) == LARGE
    assert (len(data), hashlib.sha256(data).hexdigest()) == LARGE_DIGESTS[compression]


def test_gzip_has_javas_header_and_sync_flush_before_the_end() -> None:
    data = stream_bytes(AivenCompression.GZIP, SMALL)
    assert data[:10] == bytes.fromhex("1f8b08000000000000ff")
    assert data[-14:-8] == bytes.fromhex(
        "0000ffff0300"
    )  # flush(): an empty stored block; close(): final block
    assert struct.unpack("<I", data[-4:]) == (len(SMALL),)


def test_snappy_blocks_hold_32_kib_of_input() -> None:
    data = stream_bytes(AivenCompression.SNAPPY, LARGE)
    position, sizes = 16, []
    while position < len(data):
        (length,) = struct.unpack(">i", data[position : position + 4])
        sizes.append(len(_snappy_block(data[position + 4 : position + 4 + length])))
        position += 4 + length
    assert sizes[:-1] == [32768] * (len(LARGE) // 32768) and sum(sizes) == len(LARGE)


@pytest.mark.parametrize("compression", list(AivenCompression))
@pytest.mark.parametrize("fmt", [AivenFormat.CSV, AivenFormat.JSON, AivenFormat.JSONL])
def test_every_text_format_reads_back_under_every_compression(
    tmp_path: Path, fmt: AivenFormat, compression: AivenCompression
) -> None:
    plain = write(
        tmp_path / "plain", AivenOutput(fmt, fields("key,value,offset")), [batch_record(0), batch_record(1)]
    )
    out = AivenOutput(fmt, fields("key,value,offset"), compression=compression)
    writer = open_aiven_writer(out, tmp_path / "packed")
    writer.write(batch_record(0))
    writer.write(batch_record(1))
    writer.close()
    packed = (tmp_path / "packed").read_bytes()
    assert writer.bytes_written == len(packed)
    assert DECODERS[compression](packed) == plain


# --- avro / parquet -----------------------------------------------------------------------------


def test_avro_file_reads_back_with_aivens_schema(tmp_path: Path) -> None:
    out = AivenOutput(
        AivenFormat.AVRO, fields("key,value,offset,timestamp,headers"), compression=AivenCompression.GZIP
    )
    write(tmp_path / "f.avro", out, [batch_record(0), batch_record(1)])
    reader = fastavro.reader(io.BytesIO(gzip.decompress((tmp_path / "f.avro").read_bytes())))
    schema = reader.writer_schema
    assert isinstance(schema, dict)
    assert schema["name"] == "io.aiven.avro.output.schema.connector_records"
    assert [f["name"] for f in schema["fields"]] == ["key", "value", "offset", "timestamp", "headers"]
    rows = list(reader)
    assert rows[1] == {
        "key": b"test-key",
        "value": b"test-value",
        "offset": 1,
        "timestamp": 1000,
        "headers": {"test-header-key-1": b"test-header-value-1", "test-header-key-2": b"test-header-value-2"},
    }


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy", "zstandard"])
def test_avro_codecs(tmp_path: Path, codec: str) -> None:
    out = AivenOutput(AivenFormat.AVRO, fields("value"), avro_codec=codec)
    write(tmp_path / "f.avro", out, [batch_record(0)])
    with open(tmp_path / "f.avro", "rb") as data:
        reader = fastavro.reader(data)
        assert reader.metadata["avro.codec"] == codec
        assert list(reader) == [{"value": b"test-value"}]


def test_avro_headers_schema_change_starts_a_new_file(tmp_path: Path) -> None:
    writer = open_aiven_writer(AivenOutput(AivenFormat.AVRO, fields("value,headers")), tmp_path / "f")
    writer.write(batch_record(0))
    with pytest.raises(SchemaChangedError):
        writer.write(Record("test-topic", 0, 1, 1000, None, b"v"))
    writer.close()


@pytest.mark.parametrize("codec", list(AivenCompression))
def test_parquet_file_reads_back(tmp_path: Path, codec: AivenCompression) -> None:
    out = AivenOutput(AivenFormat.PARQUET, fields("key,value,offset,timestamp"), parquet_codec=codec)
    write(tmp_path / "f.parquet", out, [batch_record(0), batch_record(1)])
    parquet = pq.ParquetFile(tmp_path / "f.parquet")
    expected = {"NONE": "UNCOMPRESSED"}.get(codec.name, codec.name)
    assert parquet.metadata.row_group(0).column(0).compression == expected
    assert parquet.schema_arrow.names == ["key", "value", "offset", "timestamp"]
    assert parquet.read().to_pylist()[1] == {
        "key": b"test-key",
        "value": b"test-value",
        "offset": 1,
        "timestamp": 1000,
    }
    avro = json.loads(parquet.schema_arrow.metadata[b"parquet.avro.schema"])
    assert avro["namespace"] == "io.aiven.parquet.output.schema"


def test_parquet_headers_are_a_map(tmp_path: Path) -> None:
    out = AivenOutput(AivenFormat.PARQUET, fields("value,headers"))
    write(tmp_path / "f.parquet", out, [batch_record(0)])
    row = pq.read_table(tmp_path / "f.parquet").to_pylist()[0]
    assert row["headers"] == [
        ("test-header-key-1", b"test-header-value-1"),
        ("test-header-key-2", b"test-header-value-2"),
    ]


def test_preview_shows_text_or_the_schema() -> None:
    text = preview(
        AivenOutput(AivenFormat.JSON, fields("value,key"), compression=AivenCompression.GZIP), batch_record(0)
    )
    assert text == '[\n{"value":"dGVzdC12YWx1ZQ==","key":"dGVzdC1rZXk="}\n]'
    avro = preview(AivenOutput(AivenFormat.AVRO, fields("offset")), batch_record(0))
    assert avro.endswith('"fields":[{"name":"offset","type":"long"}]}') and "bytes of avro" in avro
