"""Confluent value objects with their stored keys and headers read back as message batches."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.dialects.confluent.restore_batches import confluent_batches
from lakesink.domain.dialects.confluent.restore_keys import ConfluentLayout, StoredViewFile, sibling_path
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import Format
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot
from tests.support.confluent_objects import HEADERS_SCHEMA, avro_bytes, parquet_bytes

KEY = "topics/orders/partition=0/orders+2+0000000040"
ESCAPED = re.escape(KEY)


def _root(format: Format, extension: str, **extra: Any) -> RestoreRoot:
    layout = ConfluentLayout(
        "topics",
        "/",
        "+",
        10,
        extension,
        keys=extra.pop("keys", None),
        headers=extra.pop("headers", None),
    )
    return RestoreRoot(0, "bkt", "topics/", None, format, layout=layout, **extra)


def _read(root: RestoreRoot, path: Path) -> list[tuple[Any, ...]]:
    """(key, value, headers, partition) of every message of the object downloaded to ``path``."""
    assert isinstance(root.layout, ConfluentLayout)
    entry = IndexEntry(0, KEY + root.layout.extension, 1, "orders", 2, 40, "", "orders")
    return [
        row
        for batch in confluent_batches(root, entry, path)
        for row in zip(batch.keys, batch.values, batch.headers, batch.partitions, strict=True)
    ]


@pytest.fixture
def value_path(tmp_path: Path) -> Path:
    return tmp_path / "object"


def test_json_lines_with_avro_keys_and_headers(value_path: Path) -> None:
    value_path.write_bytes(b'{"id":1,"name":"a"}\n"text"\n{"id":3}\n')
    sibling_path(value_path, "keys").write_bytes(avro_bytes("string", ["k1", "k2", "k3"]))
    sibling_path(value_path, "headers").write_bytes(
        avro_bytes(
            HEADERS_SCHEMA,
            [
                [{"key": "trace", "value": "t1"}, {"key": "n", "value": "42"}],
                [{"key": "empty", "value": None}],
                [{"key": "trace", "value": "t3"}],
            ],
        )
    )
    root = _root(
        Format.JSON,
        ".json",
        keys=StoredViewFile(Format.AVRO, ".avro"),
        headers=StoredViewFile(Format.AVRO, ".avro"),
    )
    assert _read(root, value_path) == [
        (b"k1", b'{"id":1,"name":"a"}', [("trace", b"t1"), ("n", b"42")], 2),
        (b"k2", b'"text"', [("empty", None)], 2),
        (b"k3", b'{"id":3}', [("trace", b"t3")], 2),
    ]


def test_gzipped_bytearray_values_split_at_the_separator_with_json_keys_and_headers(value_path: Path) -> None:
    value_path.write_bytes(gzip.compress(b"a\r\n\r\nc\x00\xff\r\n"))
    sibling_path(value_path, "keys").write_bytes(gzip.compress(b'"k1"\n{"id":2}\n"k3"\n'))
    wrapped = [{"headers": [{"key": "h", "value": str(i)}]} for i in range(3)]
    sibling_path(value_path, "headers").write_bytes(
        gzip.compress(b"".join(json.dumps(w).encode() + b"\n" for w in wrapped))
    )
    root = _root(
        Format.BYTES,
        ".bin.gz",
        compression="gzip",
        record_separator=b"\r\n",
        keys=StoredViewFile(Format.JSON, ".json.gz", "gzip"),
        headers=StoredViewFile(Format.JSON, ".json.gz", "gzip"),
    )
    assert _read(root, value_path) == [
        (b'"k1"', b"a", [("h", b"0")], 2),
        (b'{"id":2}', b"", [("h", b"1")], 2),
        (b'"k3"', b"c\x00\xff", [("h", b"2")], 2),
    ]


def test_avro_and_parquet_values_without_siblings(value_path: Path) -> None:
    schema = {
        "type": "record",
        "name": "Order",
        "fields": [{"name": "id", "type": "int"}, {"name": "note", "type": ["null", "string"]}],
    }
    value_path.write_bytes(avro_bytes(schema, [{"id": 1, "note": "x"}, {"id": 2, "note": None}]))
    assert _read(_root(Format.AVRO, ".avro"), value_path) == [
        (None, b'{"id":1,"note":"x"}', None, 2),
        (None, b'{"id":2,"note":null}', None, 2),
    ]
    value_path.write_bytes(parquet_bytes([{"id": 7, "note": "p"}, {"id": 8, "note": None}]))
    assert [row[1] for row in _read(_root(Format.PARQUET, ".snappy.parquet"), value_path)] == [
        b'{"id":7,"note":"p"}',
        b'{"id":8,"note":null}',
    ]


def test_a_keys_object_with_another_record_count_is_an_error_naming_both(value_path: Path) -> None:
    value_path.write_bytes(b'{"id":1}\n{"id":2}\n')
    sibling_path(value_path, "keys").write_bytes(avro_bytes("string", ["only-one"]))
    root = _root(Format.JSON, ".json", keys=StoredViewFile(Format.AVRO, ".avro"))
    with pytest.raises(
        FormatError,
        match=rf"{ESCAPED}\.keys\.avro holds 1 keys but its value object {ESCAPED}\.json holds 2 records",
    ):
        _read(root, value_path)


def test_a_missing_headers_object_is_an_error_naming_both(value_path: Path) -> None:
    value_path.write_bytes(b'{"id":1}\n')
    root = _root(Format.JSON, ".json", headers=StoredViewFile(Format.AVRO, ".avro"))
    with pytest.raises(FormatError, match=rf"{ESCAPED}\.json has no headers object {ESCAPED}\.headers\.avro"):
        _read(root, value_path)


def test_parquet_keys_are_unwrapped_from_confluents_record_key(value_path: Path) -> None:
    value_path.write_bytes(b'{"id":1}\n{"id":2}\n')
    sibling_path(value_path, "keys").write_bytes(parquet_bytes([{"key": "k1"}, {"key": "k2"}]))
    root = _root(Format.JSON, ".json", keys=StoredViewFile(Format.PARQUET, ".snappy.parquet"))
    assert [(key, value) for key, value, _headers, _p in _read(root, value_path)] == [
        (b"k1", b'{"id":1}'),
        (b"k2", b'{"id":2}'),
    ]
