"""``store.layout=quix`` through the sink's executor task: keys, file boundaries and bytes.

Each case runs the real task (:func:`run_task`) over Kafka batches into an in-memory store and
compares every object with what Quix's serialisers (tests/support/quix_formats.py) give for the
records of that file. The converters are the ones whose batches the columnar paths take under
the Lenses layout (JsonConverter without schemas); a spy on the dispatch proves that quix
batches never take them, and that the same batch under the Lenses layout does.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pytest

from lakesink.adapters.spark import sink_task
from tests.support.quix_formats import SinkItem, quix_json, quix_parquet
from tests.support.sink_batches import BUCKET, JSON_CONVERTER, TOPIC, kafka_batch, run_batches, task_spec

QUIX = "PROPERTIES('store.layout'='quix', 'flush.count'=3)"
FIRST = 10
VALUES = [{"id": i, "name": f"n{i}", **({"even": True} if i % 2 == 0 else {})} for i in range(8)]
BYTES_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"


@pytest.fixture
def columnar(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What the columnar dispatch answered for each batch."""
    answers: list[bool] = []
    dispatch = sink_task.write_lines

    def spy(*args: object) -> bool:
        answers.append(dispatch(*args))  # type: ignore[arg-type]
        return answers[-1]

    monkeypatch.setattr(sink_task, "write_lines", spy)
    return answers


def _batch(values: Sequence[object] = VALUES) -> pa.RecordBatch:
    return kafka_batch([json.dumps(v).encode() for v in values], first_offset=FIRST)


def _items(batch: pa.RecordBatch, start: int, end: int) -> list[SinkItem]:
    """The SinkItems Quix would batch for offsets ``start..end-1`` of ``batch``."""
    window = slice(start - FIRST, end - FIRST)
    millis = [micros // 1000 for micros in batch.column("timestamp").cast(pa.int64()).to_pylist()[window]]
    rows = batch.to_pylist()[window]
    return [
        SinkItem(json.loads(row["value"]), row["key"], ms, row["offset"])
        for row, ms in zip(rows, millis, strict=True)
    ]


def _keys(extension: str) -> dict[str, tuple[int, int]]:
    """flush.count=3 over offsets 10..17: files start at 10, 13 and 16 (the range's end seals the last)."""
    return {
        f"data/{TOPIC}/0/{start:019d}.{extension}": (start, min(start + 3, FIRST + len(VALUES)))
        for start in (10, 13, 16)
    }


@pytest.mark.parametrize("converter", [JSON_CONVERTER, BYTES_CONVERTER])
def test_json_files_are_quix_s_and_never_take_the_columnar_path(
    tmp_path: Path, columnar: list[bool], converter: str
) -> None:
    batch = _batch()
    spec = task_spec(
        f"INSERT INTO {BUCKET}:data SELECT * FROM {TOPIC} STOREAS `JSON` {QUIX}",
        tmp_path,
        converter,
        floor=None,
    )
    objects, rows = run_batches(spec, [batch])
    assert columnar == [False]
    assert objects == {
        key: quix_json(_items(batch, start, end)) for key, (start, end) in _keys("jsonl").items()
    }
    assert (rows[0]["first"], rows[0]["last"], rows[0]["records"]) == (10, 17, 8)


def test_the_lenses_layout_takes_the_columnar_path_for_the_same_batch(
    tmp_path: Path, columnar: list[bool]
) -> None:
    for fmt in ("JSON", "PARQUET"):
        spec = task_spec(
            f"INSERT INTO {BUCKET}:data SELECT * FROM {TOPIC} STOREAS `{fmt}`", tmp_path / fmt, floor=None
        )
        run_batches(spec, [_batch([{"id": i, "name": f"n{i}"} for i in range(8)])])
    assert columnar == [True, True], "the spy sees the columnar path when it is taken"


def test_gzip_gives_jsonl_gz_files_equal_on_every_attempt(tmp_path: Path, columnar: list[bool]) -> None:
    batch = _batch()
    kcql = f"INSERT INTO {BUCKET}:data SELECT * FROM {TOPIC} STOREAS `JSON` {QUIX}"
    attempts = [
        run_batches(
            task_spec(kcql, tmp_path / str(n), floor=None, **{"connect.memory.compression.codec": "GZIP"}),
            [batch],
        )[0]
        for n in range(2)
    ]
    assert attempts[0] == attempts[1], (
        "keys and bytes are a function of the records: a retry writes the same objects"
    )
    assert {key: gzip.decompress(data) for key, data in attempts[0].items()} == {
        key: quix_json(_items(batch, start, end)) for key, (start, end) in _keys("jsonl.gz").items()
    }
    assert columnar == [False, False]


def test_parquet_files_are_quix_s_tables_and_never_take_the_columnar_path(
    tmp_path: Path, columnar: list[bool]
) -> None:
    batch = _batch()
    kcql = f"INSERT INTO {BUCKET}:data SELECT * FROM {TOPIC} STOREAS `PARQUET` {QUIX}"
    spec = task_spec(kcql, tmp_path, floor=None, **{"connect.memory.compression.codec": "SNAPPY"})
    objects, _ = run_batches(spec, [batch])
    assert columnar == [False]
    assert objects == {
        key: quix_parquet(_items(batch, start, end), columns_in_first_seen_order=True)
        for key, (start, end) in _keys("parquet").items()
    }


def test_a_file_is_named_by_its_first_stored_record_when_a_poison_record_opened_it(
    tmp_path: Path, columnar: list[bool]
) -> None:
    batch = kafka_batch([b"{not json", *(json.dumps(v).encode() for v in VALUES[1:4])], first_offset=FIRST)
    kcql = f"INSERT INTO {BUCKET}:data SELECT * FROM {TOPIC} STOREAS `JSON` PROPERTIES('store.layout'='quix')"
    spec = task_spec(kcql, tmp_path, BYTES_CONVERTER, floor=None, **{"connect.memory.error.policy": "NOOP"})
    objects, rows = run_batches(spec, [batch])
    assert objects == {
        f"data/{TOPIC}/0/{FIRST + 1:019d}.jsonl": quix_json(_items(batch, FIRST + 1, FIRST + 4))
    }
    assert (rows[0]["records"], rows[0]["poison"]) == (3, 1)
    assert columnar == [False]
