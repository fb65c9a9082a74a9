"""The column-wise readers give exactly the record reader's messages, for every format the restore reads."""

from __future__ import annotations

import datetime
import decimal
import gzip
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cramjam
import pytest

from lakesink.adapters.formats import open_writer
from lakesink.adapters.kafka.header_converters import SimpleHeaderConverter
from lakesink.adapters.restore import avro_frames, batches
from lakesink.adapters.restore.batches import read_batches
from lakesink.adapters.restore.header_bytes import StoredHeaders
from lakesink.adapters.restore.messages import Message, decompressed, read_messages, stored_values
from lakesink.application.restore import load_plan
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.records import Record
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import DETECT, RestoreRoot
from lakesink.domain.schema.envelope_fields import EnvelopeFields


def _records(values: Sequence[Any], *, keys: Sequence[Any] | None = None) -> list[Record]:
    headers = [(("origin", b"bench"), ("trace", b"\x00\xff")), (), (("origin", None), ("trace", b"t"))]
    return [
        Record(
            "orders", index % 3, 100 + index, [1_700_000_000_000 + index, None, -5][index % 3],
            key=keys[index] if keys is not None else (None if index % 4 == 1 else f"k-{index}"),
            value=value, headers=headers[index % 3],
        )
        for index, value in enumerate(values)
    ]


def _order(index: int) -> dict[str, Any] | None:
    if index % 5 == 3:
        return None  # a tombstone
    return {
        "id": f"o-{index}",
        "note": ["plain", 'quo"te \\ back', "tab\tnl\nctl\x01", "é 中 😀 \u2028", None][index % 5],
        "amount": [0.0, -0.0, 318.01, 1e-4, 9.5e15][index % 5],
        "items": [1, -(2**62), None, 7, 0][index % 5],
        "paid": index % 2 == 0,
        "customer": None if index % 3 == 0 else {"tier": "gold", "since": 2020 + index},
        "tags": [["a", "b"], [], None, ["c"], ["d", "e", "f"]][index % 5],
    }


def _write(tmp_path: Path, format: Format, records: list[Record], *, envelope: bool, codec: CompressionCodec = CompressionCodec.UNCOMPRESSED) -> Path:
    path = tmp_path / f"object.{format.value.lower()}"
    writer = open_writer(format, path, codec=codec, envelope=EnvelopeFields() if envelope else None)
    writer.write_many(records)
    writer.close()
    return path


def _root(format: Format, *, envelope: bool, **extra: Any) -> RestoreRoot:
    return RestoreRoot(0, "bkt", "", "target", format, envelope=envelope, **extra)


def _entry(partition: int | None = None) -> IndexEntry:
    return IndexEntry(0, "src/orders/0/000000000109_1_2.any", 1, "target", partition, 109)


def _batched(root: RestoreRoot, entry: IndexEntry, path: Path) -> list[Message]:
    """The batches flattened back into messages (headers as tuples, as the record reader has them)."""
    return [
        Message(key, value, tuple(headers or ()), timestamp, partition)
        for batch in read_batches(root, entry, path)
        for key, value, headers, timestamp, partition in zip(
            batch.keys, batch.values, batch.headers, batch.timestamps, batch.partitions, strict=True
        )
    ]


def _reference(root: RestoreRoot, entry: IndexEntry, path: Path) -> list[Message]:
    """The record reader's messages, with the producer's timestamp convention (none → 0)."""
    return [
        Message(m.key, m.value, m.headers, m.timestamp if m.timestamp is not None and m.timestamp >= 0 else 0, m.partition)
        for m in read_messages(root, entry, path)
    ]


@pytest.fixture(autouse=True)
def _small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 4 rows, so every file spans several batches."""
    monkeypatch.setattr(batches, "BATCH_ROWS", 4)


@pytest.mark.parametrize("format", [Format.AVRO, Format.PARQUET, Format.JSON])
@pytest.mark.parametrize("partition", [None, 2])
def test_envelope_batches_equal_the_record_readers_messages_byte_for_byte(tmp_path: Path, format: Format, partition: int | None) -> None:
    path = _write(tmp_path, format, _records([_order(i) for i in range(11)]), envelope=True)
    root, entry = _root(format, envelope=True), _entry(partition)
    expected = _reference(root, entry, path)
    assert len(expected) == 11
    assert _batched(root, entry, path) == expected


def test_the_benchmark_envelope_goes_through_polars_and_equals_the_record_reader(tmp_path: Path) -> None:
    path = _write(tmp_path, Format.AVRO, _records([_order(i) for i in range(11)]), envelope=True, codec=CompressionCodec.SNAPPY)
    import fastavro

    with open(path, "rb") as data:
        schema = fastavro.reader(data).writer_schema
    plan = avro_frames.frame_plan(schema)
    assert plan is not None and avro_frames.read_frame(path) is not None
    assert _batched(_root(Format.AVRO, envelope=True), _entry(), path) == _reference(_root(Format.AVRO, envelope=True), _entry(), path)


@pytest.mark.parametrize(
    "value",
    [
        {"amount": 1.5e-7},  # Python prints 1.5e-07, polars 0.00000015
        {"amount": 2.5e16},
        {"amount": float("nan")},  # Python writes NaN, polars null
        {"when": datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.UTC)},
        {"price": decimal.Decimal("12.34")},
        {"attributes": {"a": "1", "b": "2"}},
    ],
    ids=["tiny-double", "huge-double", "nan", "timestamp", "decimal", "map"],
)
def test_values_polars_would_render_differently_fall_back_to_fastavro_with_the_same_bytes(tmp_path: Path, value: dict[str, Any]) -> None:
    path = _write(tmp_path, Format.AVRO, _records([value, value]), envelope=True)
    root, entry = _root(Format.AVRO, envelope=True), _entry()
    assert _batched(root, entry, path) == _reference(root, entry, path)


def test_a_double_outside_the_plain_range_makes_polars_decline_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, Format.AVRO, _records([{"amount": 1.0}, {"amount": 1.5e-7}]), envelope=True)
    assert avro_frames.read_frame(path) is None


def test_logical_types_and_maps_are_not_planned_for_polars() -> None:
    def envelope(value: Any) -> dict[str, Any]:
        return {"type": "record", "name": "E", "fields": [{"name": "key", "type": ["null", "string"]}, {"name": "value", "type": value}]}

    record = {"type": "record", "name": "V", "fields": [{"name": "x", "type": ["null", "double"]}]}
    assert avro_frames.frame_plan(envelope(["null", record])) is not None
    assert avro_frames.frame_plan(envelope({"type": "map", "values": "string"})) is None
    assert avro_frames.frame_plan(envelope({"type": "long", "logicalType": "timestamp-millis"})) is None
    assert avro_frames.frame_plan(envelope(["null", "string", "long"])) is None
    assert avro_frames.frame_plan(envelope({"type": "record", "name": "F", "fields": [{"name": "f", "type": "float"}]})) is None


@pytest.mark.parametrize(
    ("format", "values"),
    [
        (Format.AVRO, [_order(i) for i in range(9)]),
        (Format.AVRO, ["text", None, "é"]),
        (Format.PARQUET, [{"id": f"o-{i}", "n": i, "m": {"a": i}} for i in range(9)]),
        (Format.PARQUET, ["text", "é", "x"]),
        (Format.PARQUET, [b"\x00raw", b"", b"\xff"]),
    ],
    ids=["avro-records", "avro-strings", "parquet-records", "parquet-strings", "parquet-bytes"],
)
def test_plain_avro_and_parquet_batches_equal_the_record_readers_messages(tmp_path: Path, format: Format, values: list[Any]) -> None:
    path = _write(tmp_path, format, _records(values), envelope=False)
    root, entry = _root(format, envelope=False, key_from_object_key=True), _entry(1)
    expected = _reference(root, entry, path)
    assert len(expected) == len(values)
    assert _batched(root, entry, path) == expected


@pytest.mark.parametrize(
    ("format", "content", "extra"),
    [
        (Format.TEXT, b"a\n\nb\r\nc", {}),
        (Format.JSON, b'{"a":1}\n{"b":2}\n\n{"c":3}\n', {}),
        (Format.CSV, b"h1,h2\n1,2\n3,4\n", {"csv_headers": True}),
        (Format.BYTES, b"\x00\x01" * 10, {"bytes_chunk_size": 7}),
        (Format.BYTES, b"\x00\x01" * 10, {}),
    ],
    ids=["text", "json", "csv-with-headers", "bytes-chunked", "bytes-whole"],
)
def test_line_and_bytes_batches_equal_the_record_readers_messages(tmp_path: Path, format: Format, content: bytes, extra: dict[str, Any]) -> None:
    path = tmp_path / "object"
    path.write_bytes(content)
    root, entry = _root(format, envelope=False, **extra), _entry(0)
    expected = _reference(root, entry, path)
    assert expected
    assert _batched(root, entry, path) == expected


def test_struct_headers_come_back_under_their_names_without_the_fields_a_record_lacked() -> None:
    schema = ["null", {"type": "record", "fields": [
        {"name": "esc__x_2d_id", "type": ["null", "string"], "lakesink.header.name": "x-id"},
        {"name": "rate", "type": ["null", "float"]},
    ]}]
    stored = StoredHeaders.of(SimpleHeaderConverter(), schema)
    rows = stored.rows([{"esc__x_2d_id": "a7", "rate": 0.10000000149011612}, None, {"esc__x_2d_id": None, "rate": None}])
    assert rows == [[("x-id", b"a7"), ("rate", b"0.1")], None, None]
    # the same records field by field (a null struct has every field null)
    assert stored.columns({"esc__x_2d_id": ["a7", None, None], "rate": [0.10000000149011612, None, None]}) == rows


@pytest.mark.parametrize(("values", "first"), [
    ({"s": ["a", "é"], "n": [7, -(2**62)], "b": [True, False], "d": [0.5, 1e-7], "raw": [b"\x00", b""]},
     [("s", b"a"), ("n", b"7"), ("b", b"true"), ("d", b"0.5"), ("raw", b"\x00")]),
    ({"s": ["a", None], "n": [None, 3], "b": [None, None], "d": [2.0, None], "raw": [None, b"x"]},
     [("s", b"a"), ("d", b"2.0")]),
], ids=["every-header", "some-missing"])
def test_headers_field_by_field_are_the_headers_record_by_record(values: dict[str, list[Any]], first: list[Any]) -> None:
    schema = ["null", {"type": "record", "fields": [
        {"name": "s", "type": ["null", "string"]}, {"name": "n", "type": ["null", "long"]},
        {"name": "b", "type": ["null", "boolean"]}, {"name": "d", "type": ["null", "double"]},
        {"name": "raw", "type": ["null", "bytes"]},
    ]}]
    stored = StoredHeaders.of(SimpleHeaderConverter(), schema)
    records = [dict(zip(values, row, strict=True)) for row in zip(*values.values(), strict=True)]
    assert stored.columns(values) == stored.rows(records)
    assert stored.rows(records)[0] == first


def test_list_headers_come_back_as_stored_and_json_nulls_stay() -> None:
    stored = StoredHeaders.of(SimpleHeaderConverter(), None)
    assert stored.row([{"key": "k", "value": b"\x00"}, {"key": "k", "value": None}]) == [("k", b"\x00"), ("k", None)]
    assert stored.row({"n": 12, "gone": None}) == [("n", b"12"), ("gone", None)]


@pytest.mark.parametrize(
    ("compress", "compression"),
    [(gzip.compress, DETECT), (lambda data: bytes(cramjam.zstd.compress(data)), DETECT), (lambda data: bytes(cramjam.zstd.compress(data)), "zstd"), (lambda d: d, DETECT)],
)
def test_an_unset_compression_is_detected_from_each_objects_magic_bytes(
    tmp_path: Path, compress: Any, compression: str
) -> None:
    """Aiven's sink gzips by default, its source reads as stored by default: detection restores either."""
    path = tmp_path / "object"
    path.write_bytes(compress(b"first\nsecond"))
    root = _root(Format.TEXT, envelope=False, compression=compression)
    assert list(stored_values(root, IndexEntry(0, "k", 1, "t", 0, 0, "", "t"), decompressed(root, path))) == [
        b"first",
        b"second",
    ]


def test_unset_file_compression_type_detects_and_none_reads_as_stored() -> None:
    base = {
        "name": "aiven-restore",
        "connector.class": "io.aiven.kafka.connect.s3.source.S3SourceConnector",
        "aws.s3.bucket.name": "b",
        "topic": "t",
        "file.name.template": "{{topic}}-{{partition}}-{{start_offset}}",
        "bootstrap.servers": "127.0.0.1:9092",
    }
    assert load_plan(base).roots[0].compression == DETECT
    assert load_plan({**base, "file.compression.type": "none"}).roots[0].compression is None
