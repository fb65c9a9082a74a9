"""Header converters × envelope formats: what lands in the file, read by independent readers,
and what a restore produces from it (the seed's example: h1="record1-header1", h2="1")."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import fastavro
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.formats import open_writer
from lakesink.adapters.formats.record_decoding import Converters, RawRow
from lakesink.adapters.restore.batches import read_batches
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.formats import Format
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot
from lakesink.domain.schema.envelope_fields import EnvelopeFields, HeadersLayout

SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
JSON = "org.apache.kafka.connect.json.JsonConverter"

#: The Kafka header bytes each converter is fed (JsonConverter needs JSON text), and what the
#: JSON envelope must hold, what Avro type the field gets and what Parquet gives back.
CASES: dict[str, dict[str, Any]] = {
    SIMPLE: {
        "raw": (b"record1-header1", b"1"),
        "json": {"h1": "record1-header1", "h2": 1},
        "avro": ["null", {"type": "int", "connect.type": "int8"}],
        "parquet": {"h1": "record1-header1", "h2": 1},
    },
    STRING: {
        "raw": (b"record1-header1", b"1"),
        "json": {"h1": "record1-header1", "h2": "1"},
        "avro": ["null", "string"],
        "parquet": {"h1": "record1-header1", "h2": "1"},
    },
    BYTES: {
        "raw": (b"record1-header1", b"1"),
        "json": {"h1": base64.b64encode(b"record1-header1").decode(), "h2": "MQ=="},
        "avro": ["null", "bytes"],
        "parquet": {"h1": b"record1-header1", "h2": b"1"},
    },
    JSON: {
        "raw": (b'"record1-header1"', b"1"),
        "json": {"h1": "record1-header1", "h2": 1},
        "avro": ["null", "long"],
        "parquet": {"h1": "record1-header1", "h2": 1},
    },
}
SETTINGS = {JSON: {"schemas.enable": "false"}}


def _write(tmp_path: Path, converter: str, fmt: Format, layout: HeadersLayout = HeadersLayout.STRUCT) -> Path:
    h1, h2 = CASES[converter]["raw"]
    converters = Converters.create(
        ConverterSettings("bytes"), ConverterSettings("bytes"), ConverterSettings(converter, SETTINGS.get(converter, {}))
    )
    envelope = EnvelopeFields(headers_layout=layout)
    rows = [RawRow("myTopic", 1, offset, 10_000 + offset, b"k", b"v", (("h1", h1), ("h2", h2))) for offset in (1, 2)]
    path = tmp_path / f"out.{fmt.value.lower()}"
    writer = open_writer(fmt, path, envelope=envelope)
    for row in rows:
        writer.write(
            row.to_record(converters, decode_key=False, decode_value=False, decode_headers=layout is HeadersLayout.STRUCT)
        )
    writer.close()
    return path


def _restored_headers(path: Path, fmt: Format, converter: str) -> list[Any]:
    root = RestoreRoot(
        0, "b", "", "t", fmt, envelope=True, header_converter=ConverterSettings(converter, SETTINGS.get(converter, {}))
    )
    entry = IndexEntry(0, "p/myTopic/1/000000000002.x", 1, "t", None, 2)
    return [headers for batch in read_batches(root, entry, path) for headers in batch.headers]


@pytest.mark.parametrize("converter", list(CASES), ids=lambda name: name.rsplit(".", 1)[1])
def test_json_envelope_headers_are_what_lenses_writes(tmp_path: Path, converter: str) -> None:
    lines = _write(tmp_path, converter, Format.JSON).read_text().splitlines()
    document = json.loads(lines[0])
    assert document["headers"] == CASES[converter]["json"]
    assert ("headersIsArray" in document) == (converter == BYTES)
    assert document["metadata"] == {"timestamp": 10_001, "topic": "myTopic", "partition": 1, "offset": 1}


@pytest.mark.parametrize("converter", list(CASES), ids=lambda name: name.rsplit(".", 1)[1])
def test_avro_envelope_header_types_follow_the_converter_schema(tmp_path: Path, converter: str) -> None:
    with open(_write(tmp_path, converter, Format.AVRO), "rb") as data:
        reader = fastavro.reader(data)
        headers = next(f for f in reader.writer_schema["fields"] if f["name"] == "headers")["type"][1]
        rows = list(reader)
    assert {f["name"]: f["type"] for f in headers["fields"]}["h2"] == CASES[converter]["avro"]
    assert rows[0]["headers"] == CASES[converter]["parquet"]


@pytest.mark.parametrize("converter", list(CASES), ids=lambda name: name.rsplit(".", 1)[1])
def test_parquet_envelope_headers_read_by_pyarrow(tmp_path: Path, converter: str) -> None:
    table = pq.read_table(_write(tmp_path, converter, Format.PARQUET))
    assert table.column("headers").to_pylist()[0] == CASES[converter]["parquet"]


@pytest.mark.parametrize("fmt", [Format.JSON, Format.AVRO, Format.PARQUET], ids=lambda f: f.value)
@pytest.mark.parametrize("converter", list(CASES), ids=lambda name: name.rsplit(".", 1)[1])
def test_the_restore_with_the_same_converter_gives_the_header_bytes_back(tmp_path: Path, converter: str, fmt: Format) -> None:
    h1, h2 = CASES[converter]["raw"]
    assert _restored_headers(_write(tmp_path, converter, fmt), fmt, converter) == [[("h1", h1), ("h2", h2)]] * 2


@pytest.mark.parametrize("fmt", [Format.JSON, Format.AVRO, Format.PARQUET], ids=lambda f: f.value)
def test_the_list_layout_restores_order_duplicates_and_bytes_whatever_the_converter(tmp_path: Path, fmt: Format) -> None:
    path = _write(tmp_path, SIMPLE, fmt, HeadersLayout.LIST)
    assert _restored_headers(path, fmt, JSON) == [[("h1", b"record1-header1"), ("h2", b"1")]] * 2


def test_simple_converter_reads_zero_padded_numbers_as_numbers_and_keeps_binary_as_bytes() -> None:
    converters = Converters.create(ConverterSettings("bytes"), ConverterSettings("bytes"), ConverterSettings(SIMPLE))
    record = RawRow("t", 0, 0, 1, None, None, (("n", b"01"), ("bad", b"\xff"))).to_record(
        converters, decode_key=False, decode_value=False
    )
    assert record.headers == (("n", 1), ("bad", b"\xff"))
    assert [converters.header.from_connect(value, None) for _, value in record.headers] == [b"1", b"\xff"]


@pytest.mark.parametrize("fmt", [Format.AVRO, Format.PARQUET], ids=lambda f: f.value)
def test_changing_header_names_and_dlq_names_stay_in_one_file_readable_by_other_readers(tmp_path: Path, fmt: Format) -> None:
    converters = Converters.create(ConverterSettings("bytes"), ConverterSettings("bytes"), ConverterSettings(SIMPLE))
    header_sets = [(("a", b"1"),), (("reason-for-dlq", b"poison"), ("original-topic", b"orders")), (), (("a", b"70000"),)]
    path = tmp_path / "one"
    writer = open_writer(fmt, path, envelope=EnvelopeFields())
    for offset, headers in enumerate(header_sets):
        writer.write(RawRow("t", 0, offset, 1, b"k", b"v", headers).to_record(converters, decode_key=False, decode_value=False))
    writer.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one"]  # no segment left behind
    if fmt is Format.AVRO:
        with open(path, "rb") as data:
            rows = [row["headers"] for row in fastavro.reader(data)]
    else:
        rows = pq.read_table(path).column("headers").to_pylist()
    assert rows[1] == {"a": None, "esc__original_2d_topic": "orders", "esc__reason_2d_for_2d_dlq": "poison"}
    assert [row["a"] if row else None for row in rows] == [1, None, None, 70000]
    restored = _restored_headers(path, fmt, SIMPLE)
    assert restored == [[("a", b"1")], [("original-topic", b"orders"), ("reason-for-dlq", b"poison")], None, [("a", b"70000")]]


def test_json_converter_with_schemas_reads_envelopes_and_writes_them_back(tmp_path: Path) -> None:
    settings = ConverterSettings(JSON, {"schemas.enable": "true"})
    converters = Converters.create(ConverterSettings("bytes"), ConverterSettings("bytes"), settings)
    raw = b'{"schema":{"type":"int32","optional":false},"payload":42}'
    record = RawRow("t", 0, 0, 1, None, None, (("n", raw),)).to_record(converters, decode_key=False, decode_value=False)
    assert record.headers == (("n", 42),) and record.header_schemas == ("int",)
    assert json.loads(converters.header.from_connect(42, ["null", "int"])) == json.loads(raw)
