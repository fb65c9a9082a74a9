"""Kafka messages → one Arrow batch with Spark's Kafka source schema, column by column."""

from __future__ import annotations

from datetime import UTC, datetime

from lakesink.adapters.kafka.partition_reader import _to_batch, arrow_schema
from lakesink.domain.offset_range import OffsetRange
from tests.support.kafka_messages import FakeMessage


def test_messages_become_spark_kafka_rows_with_timestamps_types_and_headers() -> None:
    messages = [
        FakeMessage(b"k", b"v1", 10, (1, 1_700_000_000_123), [("a", b"1"), ("b", None)]),
        FakeMessage(None, None, 11, (0, -1), None),
        FakeMessage(b"", b"v3", 13, (2, 5), [("c", b"")]),
    ]

    batch = _to_batch(messages, OffsetRange("orders", 3, 10, 14), arrow_schema())  # type: ignore[arg-type]

    assert batch.schema == arrow_schema()
    assert batch.to_pylist() == [
        {"key": b"k", "value": b"v1", "topic": "orders", "partition": 3, "offset": 10,
         "timestamp": datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=UTC), "timestampType": 0,
         "headers": [{"key": "a", "value": b"1"}, {"key": "b", "value": None}]},
        {"key": None, "value": None, "topic": "orders", "partition": 3, "offset": 11,
         "timestamp": None, "timestampType": -1, "headers": []},
        {"key": b"", "value": b"v3", "topic": "orders", "partition": 3, "offset": 13,
         "timestamp": datetime(1970, 1, 1, 0, 0, 0, 5000, tzinfo=UTC), "timestampType": 1,
         "headers": [{"key": "c", "value": b""}]},
    ]


def test_a_batch_without_any_header_has_empty_header_lists() -> None:
    messages = [FakeMessage(None, b"x", i, (1, i), None) for i in range(3)]

    batch = _to_batch(messages, OffsetRange("t", 0, 0, 3), arrow_schema())  # type: ignore[arg-type]

    assert batch.column("headers").to_pylist() == [[], [], []]
    assert batch.column("offset").to_pylist() == [0, 1, 2]


def test_headers_false_leaves_every_header_list_empty_without_asking_the_messages() -> None:
    class HeaderlessMessage(FakeMessage):
        def headers(self) -> list[tuple[str, bytes | None]] | None:
            raise AssertionError("headers() must not be called")

    messages = [HeaderlessMessage(b"k", b"v", 5 + i, (1, 1000 + i), [("a", b"1")]) for i in range(3)]
    rng = OffsetRange("orders", 0, 5, 8)

    batch = _to_batch(messages, rng, arrow_schema(), headers=False)  # type: ignore[arg-type]

    assert batch.schema == arrow_schema()
    assert batch.column("headers").to_pylist() == [[], [], []]
    assert batch.column("value").to_pylist() == [b"v", b"v", b"v"]
    assert batch.column("offset").to_pylist() == [5, 6, 7]


def test_offsets_are_the_delivered_ones_with_or_without_gaps() -> None:
    def offsets(delivered: list[int]) -> list[int]:
        messages = [FakeMessage(None, b"x", offset, (1, 0), None) for offset in delivered]
        return _to_batch(messages, OffsetRange("t", 0, 0, 100), arrow_schema()).column("offset").to_pylist()  # type: ignore[arg-type]

    assert offsets([7, 8, 9, 10]) == [7, 8, 9, 10]
    assert offsets([7, 9, 10, 11]) == [7, 9, 10, 11]  # a compacted gap at the start
    assert offsets([7, 8, 9, 12]) == [7, 8, 9, 12]  # a transaction marker before the last
    assert offsets([42]) == [42]


def test_without_the_header_column_the_batch_has_spark_default_columns_and_never_asks_for_headers() -> None:
    class HeaderlessMessage(FakeMessage):
        def headers(self) -> list[tuple[str, bytes | None]] | None:
            raise AssertionError("headers() must not be called")

    messages = [HeaderlessMessage(b"k", b"v", 5, (1, 1000), [("a", b"1")])]

    batch = _to_batch(messages, OffsetRange("orders", 0, 5, 6), arrow_schema(header_column=False))  # type: ignore[arg-type]

    assert batch.schema.names == ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType"]
    assert batch.column("offset").to_pylist() == [5]
