"""Which consumed messages a range keeps, and when it is done (``partition_reader._keep``)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from confluent_kafka import KafkaError, KafkaException

from lakesink.adapters.kafka.partition_reader import _keep


@dataclass
class Delivered:
    """A consumed message or event: its offset and error, as ``confluent_kafka.Message`` reports them."""

    _offset: int
    _error: KafkaError | None = None

    def offset(self) -> int:
        return self._offset

    def error(self) -> KafkaError | None:
        return self._error


def _eof(offset: int) -> Delivered:
    return Delivered(offset, KafkaError(KafkaError._PARTITION_EOF))


def test_a_response_inside_the_range_is_kept_whole_and_the_range_goes_on() -> None:
    pending: list[Delivered] = [Delivered(9)]
    response = [Delivered(o) for o in range(10, 20)]

    assert _keep(response, 30, pending) is False  # type: ignore[arg-type]
    assert [m.offset() for m in pending] == list(range(9, 20))


def test_records_at_or_past_the_end_are_dropped_and_end_the_range() -> None:
    pending: list[Delivered] = []

    assert _keep([Delivered(o) for o in range(25, 35)], 30, pending) is True  # type: ignore[arg-type]
    assert [m.offset() for m in pending] == list(range(25, 30))


def test_a_partition_eof_at_or_past_the_end_ends_the_range_after_the_records_before_it() -> None:
    pending: list[Delivered] = []

    done = _keep([Delivered(27), Delivered(28), _eof(30)], 30, pending)  # type: ignore[arg-type]

    assert done is True
    assert [m.offset() for m in pending] == [27, 28]


def test_a_partition_eof_below_the_end_does_not_end_the_range() -> None:
    pending: list[Delivered] = []

    done = _keep([Delivered(3), _eof(4), Delivered(4)], 30, pending)  # type: ignore[arg-type]

    assert done is False
    assert [m.offset() for m in pending] == [3, 4]


def test_any_other_error_fails_the_read() -> None:
    response = [Delivered(3), Delivered(4, KafkaError(KafkaError._TRANSPORT)), Delivered(5)]

    with pytest.raises(KafkaException):
        _keep(response, 30, [])  # type: ignore[arg-type]


def test_an_empty_response_keeps_nothing_and_leaves_the_range_open() -> None:
    pending: list[Delivered] = []

    assert _keep([], 30, pending) is False
    assert pending == []
