"""encode_lines: which batches of raw values become one buffer of lines, and which go record by record."""

from __future__ import annotations

import pytest

from lakesink.adapters.formats.encoded_lines import encode_lines
from lakesink.domain.formats import Format
from tests.support.sink_batches import kafka_batch


def _values(count: int) -> list[bytes | None]:
    return [b'{"id":%d}' % i for i in range(count)]


def test_a_batch_of_single_line_values_becomes_their_bytes_each_followed_by_a_newline() -> None:
    lines = encode_lines(kafka_batch(_values(3)), Format.JSON, floor=None)

    assert lines is not None
    assert bytes(lines.buffer) == b'{"id":0}\n{"id":1}\n{"id":2}\n'
    assert lines.ends.tolist() == [9, 18, 27]


@pytest.mark.parametrize("bad", [b'{"id":\n1}', b'{"id":\r1}', b'{"id":1}\r\n', b""])
def test_a_json_value_the_writer_would_rewrite_sends_the_batch_record_by_record(bad: bytes) -> None:
    values = _values(50)
    values[37] = bad

    assert encode_lines(kafka_batch(values), Format.JSON, floor=None) is None


def test_text_values_may_hold_carriage_returns() -> None:
    values = _values(5)
    values[2] = b"a\rb"

    lines = encode_lines(kafka_batch(values), Format.TEXT, floor=None)

    assert lines is not None
    assert b"a\rb\n" in bytes(lines.buffer)


def test_only_the_values_of_a_sliced_batch_are_searched_for_line_breaks() -> None:
    values = _values(30)
    values[2] = b'{"id":\n2}'
    values[27] = b'{"id":\r27}'
    batch = kafka_batch(values)

    inside = encode_lines(batch.slice(3, 24), Format.JSON, floor=None)
    reaching_the_break = encode_lines(batch.slice(3, 25), Format.JSON, floor=None)

    assert inside is not None
    assert bytes(inside.buffer) == b"".join(value + b"\n" for value in values[3:27])  # type: ignore[operator]
    assert reaching_the_break is None


def test_a_line_break_only_in_records_below_the_floor_does_not_matter() -> None:
    values = _values(10)
    values[1] = b'{"id":\n1}'

    lines = encode_lines(kafka_batch(values), Format.JSON, floor=4)

    assert lines is not None
    assert lines.offsets.tolist() == [5, 6, 7, 8, 9]
    assert lines.skipped == 5


def test_a_batch_entirely_below_the_floor_gives_no_lines() -> None:
    lines = encode_lines(kafka_batch(_values(4)), Format.JSON, floor=10)

    assert lines is not None
    assert len(lines) == 0
    assert lines.skipped == 4
