"""lakesink's Aiven files byte for byte against Aiven's own writers (the code its S3 sink writes every
object with), one JVM run for the whole matrix: ``format.output.type`` csv/json/jsonl x
``file.compression.type`` none/gzip/snappy/zstd x ``format.output.fields`` and their
``format.output.fields.value.encoding`` x the envelope, over records as ByteArrayConverter hands them
(keys and null keys, values and tombstones, headers, unicode, several partitions).

parquet and avro are pinned as what Aiven's writers cannot run without Confluent's
``kafka-connect-avro-data``, which Maven Central does not serve (tools/aiven-commons/pom.xml)."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.dialects.aiven.compression import decompressed
from lakesink.adapters.dialects.aiven.writers import open_aiven_writer
from lakesink.domain.dialects.aiven.naming import AivenCompression, AivenFormat
from lakesink.domain.dialects.aiven.output import AivenOutput, OutputField
from lakesink.domain.records import Record
from tests.support.aiven_oracle.java_side import WRITERS, aiven_oracle_missing_reason, record_json, run_aiven

HEADERS = (("trace-id", b"abc-123"), ("empty", b""), ("ünïcode", "✓ 🙂".encode()))
RECORDS = (
    Record("orders", 0, 0, 1_700_000_000_000, b"key-1", b'{"id":1,"name":"caf\xc3\xa9"}', HEADERS),
    Record("orders", 0, 1, 1_700_000_000_001, None, b"no key", ()),
    Record("orders", 0, 2, 1_700_000_000_002, b"key-1", None, ()),  # a tombstone
    Record("orders", 2, 7, 1_700_000_000_003, "ключ".encode(), "значение 🙂".encode(), HEADERS[:1]),
    Record("orders", 1, 40, 0, b"\x00\xff", b"a,b;c:d\ne", ()),
)
FIELD_SETS = {
    "seed-003-curl": "value,key,timestamp",
    "all": "key,value,offset,timestamp,headers",
    "value": "value",
}
#: Compared after decompression: gzip, because the 0.12.0 commons (Aiven's connector 2.x) wrap
#: ``GZIPOutputStream(out)`` where the 3.x connector, lakesink's reference (tests/support/AivenGolden.java),
#: wraps ``GZIPOutputStream(out, true)``; snappy, because lakesink's blocks are cramjam's (docs/dialects.md).
LOSSLESS_NOT_BYTE_EQUAL = (AivenCompression.GZIP, AivenCompression.SNAPPY)
TEXT_FORMATS = (AivenFormat.CSV, AivenFormat.JSON, AivenFormat.JSONL)
CASES = [
    (fmt, compression, field_set, encoding, envelope)
    for fmt, compression, field_set, encoding, envelope in itertools.product(
        TEXT_FORMATS, AivenCompression, FIELD_SETS, ("base64", "none"), (True, False)
    )
    # Aiven's config refuses envelope=false with more than one field
    if envelope or field_set == "value"
]


def _fields(field_set: str, encoding: str) -> tuple[OutputField, ...]:
    return tuple(
        OutputField(name, encoding if name == "value" else "base64" if name == "key" else "none")
        for name in FIELD_SETS[field_set].split(",")
    )


def _case_id(fmt: AivenFormat, compression: AivenCompression, field_set: str, encoding: str, envelope: bool) -> str:
    return f"{fmt.value}-{compression.value}-{field_set}-{encoding}-{'envelope' if envelope else 'bare'}"


def _aiven_case(case_id: str, fmt: AivenFormat, compression: AivenCompression, fields: tuple[OutputField, ...],
                envelope: bool) -> dict[str, Any]:
    return {
        "id": case_id, "format": fmt.value, "compression": compression.value, "envelope": envelope,
        "fields": [[item.name, item.encoding] for item in fields],
        "records": [record_json(r) for r in RECORDS],
    }


@pytest.fixture(scope="module")
def aiven_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Aiven's file (or error) for every case of the matrix, by case id, from one JVM run."""
    reason = aiven_oracle_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    cases = [
        _aiven_case(_case_id(*case), case[0], case[1], _fields(case[2], case[3]), case[4]) for case in CASES
    ] + [
        _aiven_case(fmt.value, fmt, AivenCompression.NONE, _fields("all", "base64"), True)
        for fmt in (AivenFormat.PARQUET, AivenFormat.AVRO)
    ]
    return run_aiven(WRITERS, cases, tmp_path_factory.mktemp("aiven-oracle"))


@pytest.mark.parametrize("case", CASES, ids=[_case_id(*case) for case in CASES])
def test_lakesink_writes_the_bytes_aivens_writer_writes(
    aiven_files: dict[str, dict[str, Any]], case: tuple[Any, ...], tmp_path: Path
) -> None:
    fmt, compression, field_set, encoding, envelope = case
    aiven = aiven_files[_case_id(*case)]
    output = AivenOutput(fmt, _fields(field_set, encoding), envelope=envelope, compression=compression)
    writer = open_aiven_writer(output, tmp_path / "file")
    writer.write_many(RECORDS)
    writer.close()
    assert "error" not in aiven, aiven.get("error")
    ours, theirs = (tmp_path / "file").read_bytes(), bytes.fromhex(aiven["bytes"])
    if compression in LOSSLESS_NOT_BYTE_EQUAL:
        ours, theirs = decompressed(compression, ours), decompressed(compression, theirs)
    assert ours == theirs


def _one_file(aiven_files: dict[str, dict[str, Any]], compression: AivenCompression, tmp_path: Path) -> tuple[bytes, bytes]:
    """lakesink's and Aiven's jsonl file of every field, base64, compressed with ``compression``."""
    case = (AivenFormat.JSONL, compression, "all", "base64", True)
    writer = open_aiven_writer(AivenOutput(AivenFormat.JSONL, _fields("all", "base64"), compression=compression),
                               tmp_path / "file")
    writer.write_many(RECORDS)
    writer.close()
    return (tmp_path / "file").read_bytes(), bytes.fromhex(aiven_files[_case_id(*case)]["bytes"])


def test_gzip_is_the_3x_connectors_framing_not_the_0_12_commons(
    aiven_files: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    ours, theirs = _one_file(aiven_files, AivenCompression.GZIP, tmp_path)
    sync_flush = b"\x00\x00\xff\xff"  # the empty stored block GZIPOutputStream(out, true).flush() writes
    assert sync_flush in ours and sync_flush not in theirs
    assert gzip.decompress(ours) == gzip.decompress(theirs)


def test_snappy_blocks_frame_alike_and_may_differ_inside(
    aiven_files: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    ours, theirs = _one_file(aiven_files, AivenCompression.SNAPPY, tmp_path)
    assert ours[:16] == theirs[:16]  # snappy-java's stream header: magic, version 1, compatible 1
    assert ours != theirs  # cramjam's (Rust snap) block encoder is not google snappy's
    assert decompressed(AivenCompression.SNAPPY, ours) == decompressed(AivenCompression.SNAPPY, theirs)


@pytest.mark.parametrize(("fmt", "missing"), [
    (AivenFormat.PARQUET, "io/confluent/connect/avro/AvroData"),
    (AivenFormat.AVRO, "org/apache/avro/io/DatumWriter"),
])
def test_parquet_and_avro_do_not_run_without_confluents_avro_data(
    aiven_files: dict[str, dict[str, Any]], fmt: AivenFormat, missing: str
) -> None:
    assert aiven_files[fmt.value] == {"error": f"java.lang.NoClassDefFoundError: {missing}"}
