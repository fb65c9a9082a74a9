"""Kafka messages → one Arrow batch with Spark's Kafka source schema, column by column."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from lakesink.adapters.kafka.offsets import OffsetRange
from lakesink.adapters.kafka.partition_reader import _to_batch, arrow_schema


@dataclass
class FakeMessage:
    """The accessors of confluent_kafka.Message that the reader calls."""

    _key: bytes | None
    _value: bytes | None
    _offset: int
    _timestamp: tuple[int, int]
    _headers: list[tuple[str, bytes | None]] | None

    def key(self) -> bytes | None:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def offset(self) -> int:
        return self._offset

    def timestamp(self) -> tuple[int, int]:
        return self._timestamp

    def headers(self) -> list[tuple[str, bytes | None]] | None:
        return self._headers


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
