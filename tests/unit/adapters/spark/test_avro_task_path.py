"""A sink task writes the same AVRO objects with the compiled encoder as with fastavro alone.

The same Kafka batches run through :func:`run_task` twice (:mod:`tests.support.sink_batches`):
as shipped, and with the Avro writer's :func:`row_encoder` answering None (every row written by
fastavro's ``Writer.write``). Objects, keys and result rows must be identical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakesink.adapters.formats import avro
from lakesink.adapters.formats.record_decoding import header_pairs, raw_rows
from tests.support.sink_batches import SELECT, assert_same_objects, kafka_batch, run_batches, task_spec


def _values(rows: int, start: int = 0) -> list[bytes | None]:
    values: list[bytes | None] = []
    for i in range(start, start + rows):
        if i % 37 == 0:
            values.append(None)  # tombstone
        elif 300 <= i < 320:
            values.append(json.dumps({"other": i}).encode())  # another shape: the file rolls, twice
        else:
            order = {"id": i, "customer": {"id": f"c{i % 11}"}, "amount": i * 1.25, "note": "x" * (i % 70),
                     "lines": [i % 3, i % 7]}
            values.append(json.dumps(order).encode())
    return values


@pytest.mark.parametrize("envelope", ["true", "false"])
def test_avro_objects_are_identical_with_and_without_the_compiled_encoder(tmp_path: Path, envelope: str) -> None:
    batches = [kafka_batch(_values(400)), kafka_batch(_values(300, 400), first_offset=400)]
    kcql = f"{SELECT} STOREAS `AVRO` PROPERTIES('store.envelope'={envelope}, 'flush.size'=6000)"
    extra: dict[str, Any] = {"connect.memory.compression.codec": "SNAPPY"}

    fast_objects, fast_rows = run_batches(task_spec(kcql, tmp_path / "fast", **extra), batches)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(avro, "row_encoder", lambda schema, envelope: None)
        slow_objects, slow_rows = run_batches(task_spec(kcql, tmp_path / "slow", **extra), batches)

    assert_same_objects(fast_objects, slow_objects)
    assert fast_rows == slow_rows
    assert len(fast_objects) > 4  # size rolls and schema-change rolls both happened


def _headers_column(rows: list[list[tuple[str, bytes | None]] | None]) -> pa.Array:
    element = pa.struct([("key", pa.string()), ("value", pa.binary())])
    return pa.array(
        [None if row is None else [{"key": name, "value": value} for name, value in row] for row in rows],
        pa.list_(element),
    )


def test_header_pairs_keep_order_duplicates_nulls_and_slicing() -> None:
    rows = [[("a", b"1"), ("b", None), ("a", b"2")], [], None, [("only", b"")], None, [("x", b"y")]]
    column = _headers_column(rows)

    for start, length in ((0, 6), (1, 4), (2, 1), (3, 3), (5, 1)):
        expected = [tuple(row or ()) for row in rows[start : start + length]]
        assert header_pairs(column.slice(start, length)) == expected


def test_raw_rows_carry_the_headers_of_each_message() -> None:
    batch = kafka_batch([b"1", b"2", b"3"], first_offset=10).slice(1, 2)

    rows = list(raw_rows(batch))

    assert [(row.offset, row.headers) for row in rows] == [(11, (("h", b"v"),)), (12, (("h", b"v"),))]
