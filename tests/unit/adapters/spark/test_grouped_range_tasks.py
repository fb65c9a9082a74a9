"""A task writing several ranges: each range made durable on its own, a failure reported for every range it stopped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from lakesink.adapters.spark.sink_task import run_range_task
from lakesink.domain.errors import TransientStorageError
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import iter_objects
from tests.support.sink_batches import BUCKET, SELECT, TOPIC, kafka_batch, task_spec

RANGES = (OffsetRange(TOPIC, 0, 0, 5), OffsetRange(TOPIC, 1, 10, 13), OffsetRange(TOPIC, 2, 0, 4))


class Reader:
    """The range reader's one method, over made-up records; the partitions in ``failing`` raise."""

    def __init__(self, failing: frozenset[int] = frozenset()) -> None:
        self.failing = failing
        self.read_ranges: list[OffsetRange] = []

    def read(self, offset_range: OffsetRange) -> Iterator[pa.RecordBatch]:
        self.read_ranges.append(offset_range)
        if offset_range.partition in self.failing:
            raise TransientStorageError("store unavailable (test)")
        values = [b'{"n": %d}' % offset for offset in range(offset_range.start, offset_range.end)]
        yield kafka_batch(values, partition=offset_range.partition, first_offset=offset_range.start)


def test_each_range_of_a_task_gets_its_own_result_and_objects(tmp_path: Path) -> None:
    spec = task_spec(f"{SELECT} STOREAS `JSON`", tmp_path, floor=None)

    results = run_range_task(spec, Reader(), RANGES, iter([(0, 1, 2)]))  # type: ignore[arg-type]

    assert [(r.partition, r.first, r.last, r.records, r.failure) for r in results] == [
        (0, 0, 4, 5, None), (1, 10, 12, 3, None), (2, 0, 3, 4, None)]
    keys = {info.key for info in iter_objects(spec.store, BUCKET, "out/")}
    assert {key for r in results for key in r.files} == keys and len(keys) == 3


def test_a_failed_range_is_reported_with_every_range_after_it_and_the_ones_before_stay_durable(tmp_path: Path) -> None:
    spec = task_spec(f"{SELECT} STOREAS `JSON`", tmp_path, floor=None)
    reader = Reader(failing=frozenset({1}))

    results = run_range_task(spec, reader, RANGES, iter([(0, 1, 2)]))  # type: ignore[arg-type]

    assert reader.read_ranges == list(RANGES[:2])  # nothing read past the failure
    assert [(r.partition, r.last) for r in results] == [(0, 4), (1, -1), (2, -1)]
    assert results[0].failure is None
    assert all(type(r.failure.error()) is TransientStorageError for r in results[1:])  # type: ignore[union-attr]
