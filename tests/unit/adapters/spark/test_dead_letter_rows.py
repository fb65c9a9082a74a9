"""A range result's dead letters survive the trip from the executor's Arrow row to the driver."""

from __future__ import annotations

import pyarrow as pa

from lakesink.adapters.spark.task_results import RESULT_SCHEMA, result_of, task_row
from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.dead_letters import DeadLetter, Stage


def test_a_result_with_dead_letters_comes_back_equal() -> None:
    letters = (
        DeadLetter(
            "t",
            2,
            5,
            1_700_000_000_000,
            b"k",
            b"\xff",
            (("h", b"\x00"), ("n", None)),
            Stage.TASK_PUT,
            "w",
            "e",
            "m",
            "Traceback",
        ),
        DeadLetter("t", 2, 6, None, None, None, (), Stage.KEY_CONVERTER, "c", "e", "m"),
    )
    result = RangeResult("t", 2, first=0, last=9, records=8, poison=2, files=("a",), dead_letters=letters)
    batch = pa.RecordBatch.from_pylist([task_row(result)], schema=RESULT_SCHEMA)
    (row,) = batch.to_pylist()
    # Spark's Row.asDict(recursive=True) hands binary back as bytearray
    row["dead_letters"][0]["value"] = bytearray(row["dead_letters"][0]["value"])
    assert result_of(row) == result
