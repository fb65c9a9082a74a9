"""``store.layout=quix`` files hold, byte for byte, what Quix Streams' FileSink formats write.

The expectations are Quix's own serialisers, restated in tests/support/quix_formats.py, over the
same records. Quix's key and value are what its default deserializers give: the key's bytes, the value's
JSON (``orjson.loads``, the same Python values as ``json.loads`` for these documents).
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.formats import open_writer
from lakesink.domain.dialects.quix.naming import StoreLayout
from lakesink.domain.errors import FormatError, RecordError
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.records import Record
from tests.support.quix_formats import SinkItem, quix_json, quix_parquet

DOCUMENTS: list[Any] = [
    {
        "id": 1,
        "name": "Zoë",
        "price": 9.5,
        "tags": ["a", "b"],
        "ok": True,
        "nested": {"x": None, "y": [1, 2]},
    },
    {"id": 2, "name": "日本", "price": 10, "missing": None},
    {"id": 3, "note": 'quote " and \\ and \n newline', "price": 1e-7, "big": 9007199254740993},
    {"ok": False, "name": "", "price": -0.0},
]
KEYS = [b"k1", "clé".encode(), b"", b"with space"]


def quix_items() -> list[SinkItem]:
    return [
        SinkItem(json.loads(json.dumps(document)), key, 1_700_000_000_000 + offset, 100 + offset)
        for offset, (document, key) in enumerate(zip(DOCUMENTS, KEYS, strict=True))
    ]


def records(*, raw: bool) -> list[Record]:
    """The same messages after lakesink's converters: raw bytes (ByteArrayConverter) or parsed
    (JsonConverter with schemas.enable=false); keys as bytes (ByteArrayConverter)."""
    return [
        Record(
            "orders",
            0,
            item.offset,
            item.timestamp,
            key=item.key,
            value=json.dumps(item.value, separators=(", ", ": ")).encode() if raw else item.value,
        )
        for item in quix_items()
    ]


def written(
    tmp_path: Path,
    rows: Iterable[Record],
    format: Format,
    codec: CompressionCodec = CompressionCodec.UNCOMPRESSED,
) -> bytes:
    path = tmp_path / "staging"
    writer = open_writer(format, path, codec=codec, store=StoreLayout.QUIX)
    for record in rows:
        writer.write(record)
    writer.close()
    return path.read_bytes()


@pytest.mark.parametrize("raw", [True, False], ids=["bytes-values", "parsed-values"])
def test_json_lines_are_quix_s_bytes(tmp_path: Path, raw: bool) -> None:
    assert written(tmp_path, records(raw=raw), Format.JSON) == quix_json(quix_items())


def test_gzip_is_quix_s_stream_but_for_the_header_time(tmp_path: Path) -> None:
    ours = written(tmp_path, records(raw=True), Format.JSON, CompressionCodec.GZIP)
    theirs = quix_json(quix_items(), compress=True)
    assert gzip.decompress(ours) == quix_json(quix_items())
    assert ours[4:8] == b"\0\0\0\0", "mtime 0: a retried task writes the same bytes"
    assert ours[:4] + ours[8:] == theirs[:4] + theirs[8:], "same level (9), flags, OS byte and deflate stream"


def test_a_null_key_is_null_not_quix_s_item_repr_and_a_missing_timestamp_is_null(tmp_path: Path) -> None:
    data = written(tmp_path, [Record("t", 0, 5, None, key=None, value=b'{"a":1}')], Format.JSON)
    assert data == b'{"_timestamp":null,"_key":null,"_value":{"a":1}}\n'
    assert "SinkItem object at" in quix_json([SinkItem({"a": 1}, None, 0, 5)]).decode(), (
        "Quix's bug, kept out"
    )


def test_text_keys_and_values_as_converted_are_kept(tmp_path: Path) -> None:
    data = written(tmp_path, [Record("t", 0, 5, 7, key="k", value="text"), Record("t", 0, 6, 8)], Format.JSON)
    assert (
        data == b'{"_timestamp":7,"_key":"k","_value":"text"}\n{"_timestamp":8,"_key":null,"_value":null}\n'
    )


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (Record("t", 0, 5, 1, key=b"\xff", value=b"{}"), "UTF-8"),
        (Record("t", 0, 5, 1, key=42, value=b"{}"), "key converter gave a int"),
        (Record("t", 0, 5, 1, key=b"k", value=b"{not json"), "reads the value as JSON"),
    ],
)
def test_keys_without_their_text_and_values_that_are_not_json_are_poison(
    tmp_path: Path, record: Record, message: str
) -> None:
    writer = open_writer(Format.JSON, tmp_path / "f", store=StoreLayout.QUIX)
    with pytest.raises(RecordError, match=message):
        writer.write(record)
    writer.abort()


@pytest.mark.parametrize("raw", [True, False], ids=["bytes-values", "parsed-values"])
def test_parquet_is_quix_s_table_with_the_columns_in_first_seen_order(tmp_path: Path, raw: bool) -> None:
    ours = written(tmp_path, records(raw=raw), Format.PARQUET, CompressionCodec.SNAPPY)
    assert ours == quix_parquet(quix_items(), columns_in_first_seen_order=True)
    table, quix_table = pq.read_table(io.BytesIO(ours)), pq.read_table(io.BytesIO(quix_parquet(quix_items())))
    names = sorted(table.column_names)
    assert names == sorted(quix_table.column_names)
    assert table.select(names).equals(quix_table.select(names)), (
        "the same columns, types and values in any order"
    )
    assert table.column_names[:5] == ["_timestamp", "_key", "id", "name", "price"]
    assert pq.ParquetFile(io.BytesIO(ours)).metadata.row_group(0).column(0).compression == "SNAPPY"


def test_a_parquet_tombstone_is_a_row_of_nulls_and_a_value_that_is_no_object_is_poison(
    tmp_path: Path,
) -> None:
    path = tmp_path / "f"
    writer = open_writer(Format.PARQUET, path, codec=CompressionCodec.SNAPPY, store=StoreLayout.QUIX)
    writer.write(Record("t", 0, 1, 10, key=b"a", value=b'{"x":1}'))
    writer.write(Record("t", 0, 2, 11, key=b"b", value=None))
    with pytest.raises(RecordError, match="is a list, not an object"):
        writer.write(Record("t", 0, 3, 12, key=b"c", value=b"[1]"))
    writer.close()
    assert pq.read_table(path).to_pylist() == [
        {"_timestamp": 10, "_key": "a", "x": 1},
        {"_timestamp": 11, "_key": "b", "x": None},
    ]


def test_a_field_arrow_cannot_type_fails_the_file_as_it_fails_quix(tmp_path: Path) -> None:
    writer = open_writer(
        Format.PARQUET, tmp_path / "f", codec=CompressionCodec.SNAPPY, store=StoreLayout.QUIX
    )
    writer.write(Record("t", 0, 1, 10, key=b"a", value={"x": 1}))
    writer.write(Record("t", 0, 2, 11, key=b"b", value={"x": "one"}))
    with pytest.raises(FormatError, match="cannot make one Parquet table"):
        writer.close()
    writer.abort()
    with pytest.raises(pa.ArrowException):
        quix_parquet([SinkItem({"x": 1}, b"a", 10, 1), SinkItem({"x": "one"}, b"b", 11, 2)])
