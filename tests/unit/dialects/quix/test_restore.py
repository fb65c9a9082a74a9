"""Quix Streams FileSink objects restored: keys parsed back, rows read as Quix wrote them."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.dialects.quix.restore_batches import quix_batches
from lakesink.application.restore import load_plan
from lakesink.domain.dialects.quix.restore_keys import QuixLayout, parse_quix_key
from lakesink.domain.errors import ConfigError, FormatError
from lakesink.domain.formats import Format
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.parsed_key import ParsedKey
from lakesink.domain.restore.plan import RestoreRoot


@pytest.mark.parametrize(
    ("key", "parsed"),
    [
        ("orders/3/0000000000000000042.jsonl", ParsedKey("orders", 3, 42)),
        ("my_topic.v2/0/0000000000000000000.jsonl.gz", ParsedKey("my_topic.v2", 0, 0)),
        ("a b/12/9223372036854775807.parquet", ParsedKey("a b", 12, 9223372036854775807)),
    ],
)
def test_quix_keys_parse_to_topic_directory_partition_and_first_offset(key: str, parsed: ParsedKey) -> None:
    assert parse_quix_key(key) == parsed


@pytest.mark.parametrize(
    "key",
    [
        "orders/3/42.jsonl",  # not 19 digits
        "orders/3/0000000000000000042.json",  # not a Quix extension
        "x/orders/3/0000000000000000042.jsonl",  # one level too many (the prefix is matched off first)
        "orders/p3/0000000000000000042.jsonl",
        "../3/0000000000000000042.jsonl",
        "or-ders/3/0000000000000000042.jsonl",  # Quix turns '-' into '_'
    ],
)
def test_other_keys_are_not_quix_objects(key: str) -> None:
    assert parse_quix_key(key) is None


def _root(fmt: Format) -> RestoreRoot:
    return RestoreRoot(0, "bkt", "backup/", "target", fmt, layout=QuixLayout())


def _entry(key: str) -> IndexEntry:
    return IndexEntry(0, key, 1, "target", 2, 40, "", "orders")


def _messages(root: RestoreRoot, key: str, path: Path) -> list[tuple[Any, ...]]:
    return [
        row
        for batch in quix_batches(root, _entry(key), path)
        for row in zip(batch.keys, batch.values, batch.timestamps, batch.partitions, strict=True)
    ]


ROWS = [
    {"_timestamp": 1700000000000, "_key": "k1", "_value": {"id": 1, "name": "a"}},
    {"_timestamp": 1700000001000, "_key": None, "_value": {"id": 2}},
]


@pytest.mark.parametrize("gzipped", [False, True])
def test_json_lines_come_back_as_key_value_and_timestamp(tmp_path: Path, gzipped: bool) -> None:
    data = b"".join(json.dumps(row, separators=(",", ":")).encode() + b"\n" for row in ROWS)
    path = tmp_path / "object"
    path.write_bytes(gzip.compress(data) if gzipped else data)
    key = "backup/orders/2/0000000000000000040.jsonl" + (".gz" if gzipped else "")
    assert _messages(_root(Format.JSON), key, path) == [
        (b"k1", b'{"id":1,"name":"a"}', 1700000000000, 2),
        (None, b'{"id":2}', 1700000001000, 2),
    ]


def test_parquet_rows_come_back_without_the_nulls_quix_filled_in(tmp_path: Path) -> None:
    out = io.BytesIO()
    pq.write_table(
        pa.Table.from_pylist(
            [
                {"_timestamp": 1700000000000, "_key": "k1", "id": 1, "name": "a"},
                {"_timestamp": 1700000001000, "_key": "k2", "id": 2, "name": None},
            ]
        ),
        out,
    )
    path = tmp_path / "object"
    path.write_bytes(out.getvalue())
    assert _messages(_root(Format.PARQUET), "backup/orders/2/0000000000000000040.parquet", path) == [
        (b"k1", b'{"id":1,"name":"a"}', 1700000000000, 2),
        (b"k2", b'{"id":2}', 1700000001000, 2),
    ]


def test_a_line_that_is_not_a_quix_row_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "object"
    path.write_bytes(b'{"id":1}\n')
    with pytest.raises(FormatError, match="not a Quix row"):
        _messages(_root(Format.JSON), "backup/orders/2/0000000000000000040.jsonl", path)


def _config(statement: str) -> dict[str, str]:
    return {
        "name": "quix-restore",
        "connect.s3.aws.region": "us-east-1",
        "connect.s3.kcql": statement,
        "bootstrap.servers": "127.0.0.1:9092",
    }


def test_the_source_statement_selects_the_quix_layout_for_json_and_parquet_only() -> None:
    plan = load_plan(
        _config(
            "INSERT INTO orders SELECT * FROM bkt:backup STOREAS `JSON` PROPERTIES('store.layout'='quix')"
        )
    )
    assert isinstance(plan.roots[0].layout, QuixLayout) and plan.roots[0].list_prefix == "backup/"
    with pytest.raises(ConfigError, match="store.layout"):
        load_plan(
            _config(
                "INSERT INTO orders SELECT * FROM bkt:backup STOREAS `AVRO` PROPERTIES('store.layout'='quix')"
            )
        )
    with pytest.raises(ConfigError, match="store.layout"):
        load_plan(
            _config(
                "INSERT INTO orders SELECT * FROM bkt:backup STOREAS `JSON` "
                "PROPERTIES('store.layout'='quix', 'store.envelope'=true)"
            )
        )
