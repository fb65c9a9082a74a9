"""A task's result row counts why each of its files closed, and the store calls it made, the same
on the columnar paths as record by record (the ``lakesink_files_rolled_total`` and
``lakesink_store_requests_total`` metrics add these up)."""

from __future__ import annotations

import json
from pathlib import Path

from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.spark.task_results import result_of
from lakesink.domain.flush.rolls import RollReason, add_rolls
from tests.support.sink_batches import SELECT, Rows, Spy, both_paths, kafka_batch, task_spec


def _documents(rows: int, start: int = 0) -> list[bytes | None]:
    return [json.dumps({"id": i, "region": f"r{i % 2}", "pad": "x" * (i % 13)}).encode() for i in range(start, start + rows)]


def _rolls(rows: Rows) -> dict[RollReason, int]:
    return {reason: count for reason, count in add_rolls(result_of(row).rolls for row in rows).items() if count}


def test_json_files_roll_by_count_then_at_the_end_of_the_batch(tmp_path: Path, columnar_calls: Spy) -> None:
    batches = [kafka_batch(_documents(700)), kafka_batch(_documents(650, 700), first_offset=700)]

    def make(root: Path) -> SinkTaskSpec:
        return task_spec(f"{SELECT} STOREAS JSON PROPERTIES('flush.count'=300)", root)

    fast, fast_rows, slow, slow_rows = both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True, True]
    assert len(slow) == 5  # 1345 records after the floor: 300 × 4 + 145
    assert _rolls(fast_rows) == _rolls(slow_rows) == {RollReason.COUNT: 4, RollReason.END_OF_BATCH: 1}
    # the lock read (still the owner?), the plan, then one upload per file
    assert [row["requests"] for row in fast_rows] == [row["requests"] for row in slow_rows] == [1 + 1 + 5]


def test_parquet_files_per_partition_value_roll_by_size_and_at_the_end(tmp_path: Path, columnar_calls: Spy) -> None:
    batches = [kafka_batch(_documents(600))]

    def make(root: Path) -> SinkTaskSpec:
        return task_spec(f"{SELECT} PARTITIONBY _value.region STOREAS PARQUET PROPERTIES('flush.size'=4000)", root)

    fast, fast_rows, slow, slow_rows = both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True]
    rolls = _rolls(slow_rows)
    assert _rolls(fast_rows) == rolls
    assert rolls[RollReason.END_OF_BATCH] == 2  # one open file per region when the range ended
    assert rolls[RollReason.SIZE] == len(slow) - 2 > 0
    assert sum(rolls.values()) == len(slow)


def test_a_record_of_another_shape_rolls_the_file_for_its_schema(tmp_path: Path, columnar_calls: Spy) -> None:
    values = [json.dumps({"id": i}).encode() for i in range(10)] + [json.dumps({"name": "x"}).encode()] * 3
    rows = both_paths(
        lambda root: task_spec(f"{SELECT} STOREAS AVRO", root, floor=None), [kafka_batch(values)], tmp_path, columnar_calls
    )[3]

    assert _rolls(rows) == {RollReason.SCHEMA_CHANGE: 1, RollReason.END_OF_BATCH: 1}
