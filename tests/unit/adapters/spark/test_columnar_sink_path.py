"""The columnar JSON-lines/TEXT write path gives the same objects, keys and bytes as the
per-record path (both paths run by :mod:`tests.support.sink_batches`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from tests.support.sink_batches import (
    JSON_CONVERTER,
    SELECT,
    STRING_CONVERTER,
    Spy,
)
from tests.support.sink_batches import assert_same_objects as _assert_same
from tests.support.sink_batches import both_paths as _both_paths
from tests.support.sink_batches import kafka_batch as _batch
from tests.support.sink_batches import task_spec as _spec


def _json_values(rows: int, start: int = 0) -> list[bytes | None]:
    documents = ({"id": i, "country": f"c{i % 4}", "pad": "x" * (i % 13)} for i in range(start, start + rows))
    return [json.dumps(document).encode() for document in documents]


def test_json_files_roll_at_the_same_records_by_count(tmp_path: Path, columnar_calls: Spy) -> None:
    batches = [_batch(_json_values(700)), _batch(_json_values(650, 700), first_offset=700)]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(f"{SELECT} STOREAS JSON PROPERTIES('flush.count'=300)", root)

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True, True]
    _assert_same(fast, slow)
    assert len(slow) == 5  # 1346 records after the floor: 300 × 4 + 146
    assert fast_rows == slow_rows
    assert slow_rows[0]["skipped"] == 5 and slow_rows[0]["records"] == 1345


def test_json_files_roll_at_the_same_records_by_size(tmp_path: Path, columnar_calls: Spy) -> None:
    batches = [_batch(_json_values(400)), _batch(_json_values(333, 400), first_offset=400)]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(
            f"{SELECT} STOREAS JSON PROPERTIES('flush.size'=5000)",
            root,
            converter="org.apache.kafka.connect.converters.ByteArrayConverter",
        )

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True, True]
    _assert_same(fast, slow)
    sizes = [len(data) for data in slow.values()]
    last_lines = [len(data.rstrip(b"\n").rsplit(b"\n", 1)[-1]) + 1 for data in slow.values()]
    assert len(sizes) == 7 and all(size - last < 5000 <= size for size, last in zip(sizes[:-1], last_lines[:-1], strict=True))
    assert fast_rows == slow_rows


def test_text_partitioned_by_topic_and_partition_matches_the_record_path(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    values = [f"line {i}\twith\nbreak".encode() if i % 5 == 0 else b"" for i in range(90)]
    batches = [_batch(values[:50]), _batch(values[50:], first_offset=50), _batch(values, partition=1)]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(
            f"{SELECT} PARTITIONBY _topic, _partition STOREAS TEXT "
            "PROPERTIES('flush.count'=20, 'flush.size'=100)",
            root,
            converter="org.apache.kafka.connect.storage.StringConverter",
        )

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True, True, True]
    _assert_same(fast, slow)
    assert any(key.startswith("out/topic=orders/partition=1/") for key in slow)
    assert fast_rows == slow_rows


def test_batches_the_columnar_path_cannot_prove_go_record_by_record(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    multiline = _json_values(30)
    multiline[12] = b'{"id": 12,\n "country": "c0"}'
    with_null = _json_values(30, 30)
    with_null[3] = None
    batches = [_batch(_json_values(30)), _batch(multiline, first_offset=30)]
    batches.append(_batch(with_null, first_offset=60))

    def make(root: Path) -> SinkTaskSpec:
        return _spec(
            f"{SELECT} NOPARTITION STOREAS JSON PROPERTIES('flush.count'=25)",
            root,
        )

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True, False, False]
    _assert_same(fast, slow)
    assert b'{"id":12,"country":"c0"}\n' in b"".join(slow.values())
    assert b"null\n" in b"".join(slow.values())
    assert fast_rows == slow_rows


@pytest.mark.parametrize(
    ("kcql", "converter"),
    [
        (f"{SELECT} PARTITIONBY country STOREAS JSON", JSON_CONVERTER),
        (f"{SELECT} STOREAS JSON PROPERTIES('store.envelope'=true)", JSON_CONVERTER),
        (f"{SELECT} PARTITIONBY _key STOREAS JSON", JSON_CONVERTER),
        (f"{SELECT} PARTITIONBY _date.uuuu STOREAS JSON", JSON_CONVERTER),
        (f"{SELECT} STOREAS JSON", STRING_CONVERTER),
    ],
)
def test_statements_that_decode_or_read_fields_stay_on_the_record_path(
    kcql: str, converter: str, tmp_path: Path, columnar_calls: Spy
) -> None:
    batches = [_batch(_json_values(40))]
    fast, fast_rows, slow, slow_rows = _both_paths(
        lambda root: _spec(kcql, root, converter=converter), batches, tmp_path, columnar_calls
    )

    assert columnar_calls == [False]
    _assert_same(fast, slow)
    assert fast_rows == slow_rows


def test_gzipped_json_stays_on_the_record_path(tmp_path: Path, columnar_calls: Spy) -> None:
    batches = [_batch(_json_values(40))]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(f"{SELECT} STOREAS JSON", root, **{"connect.memory.compression.codec": "GZIP"})

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [False]
    _assert_same(fast, slow)
    assert fast_rows == slow_rows

