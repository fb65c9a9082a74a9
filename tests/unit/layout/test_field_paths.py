"""Reading nested fields and rendering primitives like Java's toString."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from decimal import Decimal
from uuid import UUID

import pytest

from lakesink.domain.layout.field_paths import FieldPathError, java_double, java_string, read_path


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (False, "false"),
        (42, "42"),
        (-7, "-7"),
        (1.0, "1.0"),
        (123.456, "123.456"),
        (1e7, "1.0E7"),
        (9999999.5, "9999999.5"),
        (0.001, "0.001"),
        (0.00099, "9.9E-4"),
        (1e23, "1.0E23"),
        (-2.5e-10, "-2.5E-10"),
        (5e-324, "4.9E-324"),
        (-0.0, "-0.0"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (Decimal("1.50"), "1.50"),
        (Decimal("1E+3"), "1000"),
        (Decimal("-0.000001"), "-0.000001"),
        (b"caf\xc3\xa9", "café"),
        (bytearray(b"abc"), "abc"),
        (b"\xff", "\ufffd"),
        ("the killers", "the killers"),
        (date(2024, 2, 29), "2024-02-29"),
        (datetime(2024, 2, 29, 7, 4, 5, tzinfo=UTC), "2024-02-29T07:04:05+00:00"),
        (UUID("12345678-1234-5678-1234-567812345678"), "12345678-1234-5678-1234-567812345678"),
    ],
)
def test_primitives_render_like_java_to_string(value: object, text: str) -> None:
    assert java_string(value) == text


def test_java_double_uses_plain_notation_between_one_thousandth_and_ten_million() -> None:
    assert java_double(1234567.0) == "1234567.0"
    assert java_double(12345678.0) == "1.2345678E7"


def test_nested_maps_are_walked_by_name() -> None:
    assert read_path({"a": {"b": 3}}, ("a", "b")) == "3"


def test_arrays_are_walked_by_index() -> None:
    assert read_path({"items": [{"id": "x"}, {"id": "y"}]}, ("items", "1", "id")) == "y"


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"a": 1}, ("b",)),
        ({"a": None}, ("a",)),
        ({"a": None}, ("a", "b")),
        ({"a": [1]}, ("a", "5")),
        ({"a": [1]}, ("a", "-1")),
    ],
)
def test_absent_null_or_out_of_range_fields_are_missing(data: object, path: tuple[str, ...]) -> None:
    assert read_path(data, path) is None


@pytest.mark.parametrize(
    ("data", "path", "reason"),
    [
        ({"a": {"b": 1}}, ("a",), "only primitive values can partition"),
        ({"a": [1, 2]}, ("a",), "only primitive values can partition"),
        ({"a": [1]}, ("a", "first"), "not an array index"),
        ({"a": 5}, ("a", "b"), "cannot read field 'b' below a"),
        ("plain string", ("name",), "cannot read field 'name' below the top level"),
        ({"a": object()}, ("a",), "unsupported type object"),
    ],
)
def test_type_problems_are_errors_not_missing(data: object, path: tuple[str, ...], reason: str) -> None:
    with pytest.raises(FieldPathError, match=reason):
        read_path(data, path)


def test_empty_path_reads_the_data_itself() -> None:
    assert read_path(7, ()) == "7"
