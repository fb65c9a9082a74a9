"""Header text typed and written back as Kafka Connect's SimpleHeaderConverter does (Values)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal

import pytest

from lakesink.domain.transforms.header_values import convert_to_string, java_float, parse_string


@pytest.mark.parametrize(
    ("text", "value", "connect_type"),
    [
        ("42", 42, "int8"),
        ("-128", -128, "int8"),
        ("129", 129, "int16"),
        ("40000", 40000, "int32"),
        ("9000000000", 9_000_000_000, "int64"),
        ("7.0", 7, "int8"),  # no fraction left: an integer
        ("25e1", 250, "int16"),
        ("0.25", 0.25, "float"),
        ("true", True, "boolean"),
        ("  false\t", False, "boolean"),
        ("orders-v2", "orders-v2", "string"),
        ("TRUE", "TRUE", "string"),
        ("", "", "string"),
        ("0x1F", "0x1F", "string"),
    ],
)
def test_scalars_get_the_smallest_connect_type(text, value, connect_type):
    parsed = parse_string(text)
    assert parsed.value == value and type(parsed.value) is type(value)
    assert parsed.schema == {"type": connect_type}


def test_null_text_is_a_null_value_without_schema():
    assert parse_string("null") == (None, None)
    assert parse_string(None) == (None, None)


def test_a_long_fraction_is_rounded_to_float32_and_printed_with_float_digits():
    parsed = parse_string("2.718281828459045")
    assert parsed.schema == {"type": "float"}
    assert convert_to_string(parsed.value, parsed.schema) == "2.7182817"
    assert java_float(parsed.value) == "2.7182817"


def test_integers_beyond_int64_are_decimals():
    parsed = parse_string("98765432109876543210")
    assert parsed.value == Decimal("98765432109876543210")
    assert parsed.schema["name"] == "org.apache.kafka.connect.data.Decimal"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2023-07-04", date(2023, 7, 4)),
        ("08:15:30.250Z", time(8, 15, 30, 250_000)),
        ("2023-07-04T08:15:30.250Z", datetime(2023, 7, 4, 8, 15, 30, 250_000, tzinfo=UTC)),
    ],
)
def test_iso_temporals(text, value):
    parsed = parse_string(text)
    assert parsed.value == value
    assert convert_to_string(parsed.value, parsed.schema) == text


@pytest.mark.parametrize(
    "text",
    [
        "8e1234567",
        "9e999999999",
        "1" * 5000,
        "12345678e98765",
        "1e99999999999999999999",
        "[1e99999999999999999999]",
    ],
)
def test_numbers_too_large_for_any_type_stay_text_without_being_expanded(text):
    # a hex trace id such as 8e1234567 once made int(Decimal(...)) take all the memory
    assert parse_string(text) == (text, {"type": "string"})


def test_arrays_nested_beyond_64_levels_stay_text_instead_of_exhausting_the_stack():
    assert parse_string("[" * 64 + "]" * 64).schema["type"] == "array"
    assert parse_string("[" * 65 + "]" * 65).schema == {"type": "string"}
    assert parse_string("[" * 5000).schema == {"type": "string"}


@pytest.mark.parametrize("text", ["2023-02-29", "08:15", "7 dwarfs", "[1,2] tail", "{a:1}", '[1,"two"]'])
def test_text_that_is_not_wholly_a_value_stays_the_same_string(text):
    assert parse_string(text) == (text, {"type": "string"})


def test_arrays_unify_their_numbers_and_keep_nulls():
    parsed = parse_string("[3, 1000, null]")
    assert parsed.value == [3, 1000, None]
    assert parsed.schema == {"type": "array", "items": {"type": "int16", "optional": True}}
    assert parse_string("[1, 0.5]").value == [1.0, 0.5]


def test_maps_with_quoted_keys_and_nested_values():
    parsed = parse_string('{"tags":["a","b"],"more":[]}')
    assert parsed.value == {"tags": ["a", "b"], "more": []}
    assert parsed.schema["type"] == "map"


@pytest.mark.parametrize(
    "text", ["17", "-3", "0.5", "true", "plain words", '["x","y"]', '{"k":5}', "2023-07-04", "[1,2,3]"]
)
def test_convert_to_string_gives_back_the_canonical_text(text):
    parsed = parse_string(text)
    assert convert_to_string(parsed.value, parsed.schema) == text


def test_convert_to_string_of_values_connect_does_not_parse_back_the_same():
    assert convert_to_string(parse_string("007").value) == "7"
    assert convert_to_string(b"\x00\x01") == "AAE="
    assert convert_to_string(1e21) == "1.0E21"
    assert convert_to_string(['q"uote']) == '["q\\"uote"]'
    assert convert_to_string(None) is None
