from __future__ import annotations

import base64
import json

import duckdb
import fastavro
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.formats import open_reader, open_writer
from lakesink.domain.errors import FormatError, RecordError, SchemaChangedError
from lakesink.domain.formats import SUPPORTED_CODECS, CompressionCodec, Format
from lakesink.domain.records import Record
from lakesink.domain.schema.envelope_fields import EnvelopeFields

pytestmark = pytest.mark.integration

PARQUET_CODECS = sorted(SUPPORTED_CODECS[Format.PARQUET], key=lambda codec: codec.value)
AVRO_CODECS = sorted(SUPPORTED_CODECS[Format.AVRO], key=lambda codec: codec.value)


def _write(format, path, records, **options):
    writer = open_writer(format, path, **options)
    assert writer.write_many(records) == len(records)
    writer.close()
    return writer


def _with_tombstone(records):
    return [*records, Record("orders", 2, 999, None, key=b"gone", value=None)]


@pytest.mark.parametrize("codec", PARQUET_CODECS, ids=lambda codec: codec.value)
def test_parquet_values_read_back_by_pyarrow_and_duckdb(tmp_path, records, codec):
    path = tmp_path / "out.parquet"
    _write(Format.PARQUET, path, records, codec=codec)
    table = pq.read_table(path)
    assert table.num_rows == len(records)
    assert table.column("price").to_pylist() == [record.value["price"] for record in records]
    assert str(table.schema.field("at").type) == "timestamp[ms, tz=UTC]"
    assert str(table.schema.field("day").type) == "date32[day]"
    assert str(table.schema.field("price").type) == "decimal128(38, 2)"
    rows = duckdb.sql(f"select id, name, day from read_parquet('{path}') order by id").fetchall()
    assert rows == [(r.value["id"], r.value["name"], r.value["day"]) for r in records]
    assert [r.value for r in open_reader(Format.PARQUET, path)] == [r.value for r in records]


@pytest.mark.parametrize("codec", AVRO_CODECS, ids=lambda codec: codec.value)
def test_avro_values_read_back_by_fastavro(tmp_path, records, codec):
    path = tmp_path / "out.avro"
    _write(Format.AVRO, path, records, codec=codec)
    with open(path, "rb") as data:
        reader = fastavro.reader(data)
        assert reader.writer_schema["name"] == "io.confluent.connect.avro.ConnectDefault"
        assert list(reader) == [record.value for record in records]


@pytest.mark.parametrize("format", [Format.PARQUET, Format.AVRO, Format.JSON], ids=lambda f: f.value)
def test_envelope_round_trip_restores_whole_messages(tmp_path, records, format):
    path = tmp_path / "out"
    source = _with_tombstone(records)
    _write(format, path, source, envelope=EnvelopeFields())
    back = list(open_reader(format, path, envelope=True))
    for original, restored in zip(source, back, strict=True):
        assert (restored.topic, restored.partition, restored.offset, restored.timestamp) == (
            original.topic, original.partition, original.offset, original.timestamp)
        assert restored.key == original.key
        headers = dict(original.headers)
        if format is not Format.JSON:  # a null header field is an absent header in Avro/Parquet (schema/headers.py)
            headers = {name: value for name, value in headers.items() if value is not None}
        assert dict(restored.headers) == headers
        if format is not Format.JSON:  # JSON carries logical types as numbers
            assert restored.value == original.value


def test_json_envelope_is_read_by_duckdb_with_lenses_field_names(tmp_path, records):
    path = tmp_path / "out.json"
    _write(Format.JSON, path, records, envelope=EnvelopeFields())
    rows = duckdb.sql(
        f"select key, keyIsArray, metadata.topic, metadata.offset from read_json('{path}', format='newline_delimited')"
    ).fetchall()
    assert rows[1] == (base64.b64encode(b"k1").decode(), True, "orders", 101)


@pytest.mark.parametrize("codec", [CompressionCodec.UNCOMPRESSED, CompressionCodec.GZIP], ids=lambda c: c.value)
def test_json_values_read_back_by_duckdb(tmp_path, records, codec):
    path = tmp_path / ("out.json" if codec is CompressionCodec.UNCOMPRESSED else "out.gz")
    _write(Format.JSON, path, records, codec=codec)
    rows = duckdb.sql(f"select id, name, price from read_json('{path}', format='newline_delimited')").fetchall()
    assert [(row[0], row[1], str(row[2])) for row in rows] == [
        (r.value["id"], r.value["name"], str(r.value["price"])) for r in records
    ]
    assert len(list(open_reader(Format.JSON, path, codec=codec))) == len(records)


def test_json_bytes_values_are_copied_without_parsing(tmp_path):
    raw = b'{"b": 1,   "a":"x"}'
    path = tmp_path / "out.json"
    _write(Format.JSON, path, [Record("t", 0, 0, value=raw), Record("t", 0, 1, value=b'{"a":\n1}')])
    assert path.read_bytes() == raw + b'\n{"a":1}\n'


@pytest.mark.parametrize("headers", [True, False])
def test_csv_read_back_by_duckdb_and_our_reader(tmp_path, headers):
    source = [Record("t", 0, i, value={"name": f'a"{i}', "n": i, "none": None}) for i in range(3)]
    path = tmp_path / "out.csv"
    _write(Format.CSV, path, source, csv_headers=headers)
    rows = duckdb.sql(f"select * from read_csv('{path}', header={str(headers).lower()}, quote='\"', escape='\"')").fetchall()
    assert [row[:2] for row in rows] == [(f'a"{i}', i) for i in range(3)]
    back = [r.value for r in open_reader(Format.CSV, path, csv_headers=headers)]
    expected = [{"name": f'a"{i}', "n": str(i), "none": None} for i in range(3)]
    assert back == (expected if headers else [list(row.values()) for row in expected])


def test_output_is_deterministic_for_the_same_records(tmp_path, records):
    for format in (Format.PARQUET, Format.AVRO, Format.JSON):
        first, second = tmp_path / f"a.{format.value}", tmp_path / f"b.{format.value}"
        codec = CompressionCodec.GZIP if format is Format.JSON else CompressionCodec.SNAPPY
        _write(format, first, records, codec=codec, envelope=EnvelopeFields())
        _write(format, second, records, codec=codec, envelope=EnvelopeFields())
        assert first.read_bytes() == second.read_bytes(), format


@pytest.mark.parametrize("format", [Format.PARQUET, Format.AVRO], ids=lambda f: f.value)
def test_a_conflicting_type_rolls_instead_of_corrupting(tmp_path, format):
    writer = open_writer(format, tmp_path / "out")
    writer.write(Record("t", 0, 0, value={"a": 1}))
    with pytest.raises(SchemaChangedError):
        writer.write(Record("t", 0, 1, value={"a": "text"}))
    writer.write(Record("t", 0, 2, value={"a": 2}))
    writer.close()
    assert [r.value for r in open_reader(format, tmp_path / "out")] == [{"a": 1}, {"a": 2}]


def test_write_many_merges_nullable_and_widening_fields_into_one_file(tmp_path):
    batch = [Record("t", 0, 0, value={"a": 1}), Record("t", 0, 1, value={"a": 2.5, "b": None}),
             Record("t", 0, 2, value={"b": "x"}), Record("t", 0, 3, value={"a": [1]})]
    writer = open_writer(Format.PARQUET, tmp_path / "out.parquet")
    assert writer.write_many(batch) == 3
    writer.close()
    assert pq.read_table(tmp_path / "out.parquet").to_pylist() == [
        {"a": 1.0, "b": None}, {"a": 2.5, "b": None}, {"a": None, "b": "x"}]


def test_bytes_writes_exactly_one_record_per_file(tmp_path):
    writer = open_writer(Format.BYTES, tmp_path / "one.bin")
    writer.write(Record("t", 0, 0, value=b"\x00\x01"))
    with pytest.raises(SchemaChangedError, match="can only write a single record for BYTES type"):
        writer.write(Record("t", 0, 1, value=b"x"))
    writer.close()
    assert [r.value for r in open_reader(Format.BYTES, tmp_path / "one.bin")] == [b"\x00\x01"]


def test_bytes_rejects_non_binary_values_with_the_lenses_message(tmp_path):
    writer = open_writer(Format.BYTES, tmp_path / "one.bin")
    with pytest.raises(RecordError, match=r"Non-binary content received: str.*ByteArrayConverter"):
        writer.write(Record("t", 0, 7, value="text"))
    writer.abort()
    assert not (tmp_path / "one.bin").exists()


def test_a_null_bytes_value_makes_an_empty_file(tmp_path):
    _write(Format.BYTES, tmp_path / "empty.bin", [Record("t", 0, 0, value=None)])
    assert (tmp_path / "empty.bin").read_bytes() == b""


def test_text_rejects_structured_values_with_the_lenses_message(tmp_path):
    writer = open_writer(Format.TEXT, tmp_path / "out.text")
    with pytest.raises(RecordError, match="t-0@5.*Text format is only for output of kafka string values"):
        writer.write(Record("t", 0, 5, value={"a": 1}))
    writer.abort()


def test_csv_rejects_nested_values_naming_the_record(tmp_path):
    writer = open_writer(Format.CSV, tmp_path / "out.csv")
    with pytest.raises(RecordError, match="t-1@9"):
        writer.write(Record("t", 1, 9, value={"a": {"b": 1}}))
    writer.abort()


def test_csv_rolls_when_a_record_has_a_new_column(tmp_path):
    writer = open_writer(Format.CSV, tmp_path / "out.csv")
    writer.write(Record("t", 0, 0, value={"a": 1}))
    with pytest.raises(SchemaChangedError):
        writer.write(Record("t", 0, 1, value={"a": 1, "b": 2}))
    writer.close()


def test_lzo_is_rejected_for_parquet(tmp_path):
    with pytest.raises(FormatError, match="LZO is not supported by the Parquet writer"):
        open_writer(Format.PARQUET, tmp_path / "x", codec=CompressionCodec.LZO)


def test_an_avro_level_out_of_range_gets_the_lenses_message(tmp_path):
    with pytest.raises(FormatError, match="does codec require a level"):
        open_writer(Format.AVRO, tmp_path / "x", codec=CompressionCodec.DEFLATE, level=12)


def test_json_rejects_codecs_other_than_gzip(tmp_path):
    with pytest.raises(FormatError, match="Invalid or missing `compressionCodec` specified."):
        open_writer(Format.JSON, tmp_path / "x", codec=CompressionCodec.SNAPPY)


def test_envelope_is_refused_for_csv(tmp_path):
    with pytest.raises(FormatError):
        open_writer(Format.CSV, tmp_path / "x", envelope=EnvelopeFields())


def test_a_primitive_parquet_value_lands_in_a_value_column(tmp_path):
    _write(Format.PARQUET, tmp_path / "p.parquet", [Record("t", 0, i, value=f"v{i}") for i in range(3)])
    assert pq.read_table(tmp_path / "p.parquet").column_names == ["value"]
    assert [r.value for r in open_reader(Format.PARQUET, tmp_path / "p.parquet")] == ["v0", "v1", "v2"]


def test_parquet_keeps_the_avro_schema_in_the_footer(tmp_path, records):
    _write(Format.PARQUET, tmp_path / "p.parquet", records)
    metadata = pq.read_schema(tmp_path / "p.parquet").metadata
    assert json.loads(metadata[b"parquet.avro.schema"])["name"] == "ConnectDefault"


def test_parquet_bytes_written_grows_before_the_first_row_group(tmp_path, records):
    writer = open_writer(Format.PARQUET, tmp_path / "p.parquet")
    writer.write_many(records * 300)
    assert writer.bytes_written > 0 and writer.record_count == len(records) * 300
    writer.close()


def test_abort_deletes_the_staging_file(tmp_path, records):
    writer = open_writer(Format.AVRO, tmp_path / "a.avro")
    writer.write_many(records)
    writer.abort()
    assert not (tmp_path / "a.avro").exists()
