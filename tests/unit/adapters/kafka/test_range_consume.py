"""How ``read_range`` takes messages from the consumer: never waiting on data it already has."""

from __future__ import annotations

import pyarrow as pa
import pytest

from lakesink.adapters.kafka import partition_reader
from lakesink.adapters.kafka.partition_reader import _consume, _to_batch, arrow_schema
from lakesink.domain.offset_range import OffsetRange
from tests.support.kafka_messages import FakeConsumer, record


def _read(consumer: FakeConsumer, rng: OffsetRange, batch_records: int, *, headers: bool = True) -> list[pa.RecordBatch]:
    return list(_consume(consumer, rng, arrow_schema(), batch_records, 60.0, headers))  # type: ignore[arg-type]


def test_a_range_whose_records_are_fetched_is_read_without_blocking_on_the_consumer() -> None:
    consumer = FakeConsumer.with_messages(record(offset) for offset in range(100, 125))

    batches = _read(consumer, OffsetRange("orders", 0, 100, 125), batch_records=10)

    assert [b.num_rows for b in batches] == [10, 10, 5]
    assert consumer.blocked_s == 0.0  # a full-batch consume() would wait out its timeout on the last 5


def test_batches_built_from_small_chunks_equal_one_conversion_of_all_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(partition_reader, "CHUNK_RECORDS", 3)
    messages = [record(offset) for offset in range(40, 63)]
    consumer = FakeConsumer.with_messages(messages)
    rng = OffsetRange("orders", 2, 40, 63)

    batches = _read(consumer, rng, batch_records=10)

    assert max(consumer.calls) == 3
    assert [b.num_rows for b in batches] == [10, 10, 3]
    whole = _to_batch(messages, rng, arrow_schema())  # type: ignore[arg-type]
    assert pa.Table.from_batches(batches).combine_chunks().equals(pa.Table.from_batches([whole]))


def test_records_at_or_past_the_end_are_left_out_of_the_last_chunk() -> None:
    consumer = FakeConsumer.with_messages(record(offset) for offset in range(0, 20))

    batches = _read(consumer, OffsetRange("orders", 0, 0, 7), batch_records=5)

    assert [b.column("offset").to_pylist() for b in batches] == [[0, 1, 2, 3, 4], [5, 6]]
