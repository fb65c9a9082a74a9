"""The compiled Avro encoder agrees with its two references on every value.

* fits: :func:`lakesink.domain.schema.checker` (the encoder returns False exactly when it does);
* bytes: fastavro's ``schemaless_writer`` with the same (named) schema.
"""

from __future__ import annotations

import io
import math
import uuid
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lakesink.adapters.formats.avro_encoder import Encode, compile_fields_encoder
from lakesink.domain.schema import checker, infer, merge, name_records


def compile_encoder(schema: Any) -> Encode | None:
    """The encoder of one value of ``schema``: a single field that reads the value itself."""
    return compile_fields_encoder([(lambda value: value, schema)])


def fastavro_bytes(schema: Any, value: Any) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(name_records(schema)), value)
    return out.getvalue()


def compiled_bytes(schema: Any, value: Any) -> bytes | None:
    encode = compile_encoder(schema)
    assert encode is not None, schema
    out = bytearray()
    return bytes(out) if encode(value, out) else None


def assert_agrees(schema: Any, value: Any) -> None:
    """Fits exactly when the checker says so, and then encodes to fastavro's bytes (or fails as it fails)."""
    if not checker(schema)(value):
        assert compiled_bytes(schema, value) is None, (schema, value)
        return
    try:
        expected = fastavro_bytes(schema, value)
    except (ValueError, TypeError, OverflowError) as error:
        with pytest.raises(type(error)):
            compiled_bytes(schema, value)
        return
    assert compiled_bytes(schema, value) == expected, (schema, value)


json_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=False)
    | st.text(max_size=80)
    | st.binary(max_size=80)
)
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children, max_size=70) | st.dictionaries(st.sampled_from("abcdef"), children, max_size=5),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=json_values, second=json_values)
def test_inferred_schemas_fit_and_encode_exactly_as_the_references(first: Any, second: Any) -> None:
    try:
        schema = infer(first)
    except Exception:  # noqa: BLE001 - values no schema describes are not this test's subject
        return
    widened = merge(schema, infer(second)) if _inferable(second) else None
    for candidate in filter(None, (schema, widened)):
        assert_agrees(candidate, first)
        assert_agrees(candidate, second)


def _inferable(value: Any) -> bool:
    try:
        infer(value)
    except Exception:  # noqa: BLE001
        return False
    return True


@settings(max_examples=200, deadline=None)
@given(value=st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(2**70), 2**70))
def test_floats_and_doubles_encode_like_fastavro_including_overflow_to_infinity(value: Any) -> None:
    for schema in ("float", "double", ["null", "float"], ["double", "null"]):
        try:
            expected = fastavro_bytes(schema, value)
        except OverflowError:
            with pytest.raises(OverflowError):
                compiled_bytes(schema, value)
            continue
        encoded = compiled_bytes(schema, value)
        if isinstance(value, float) and math.isnan(value):
            assert encoded is not None and len(encoded) == len(expected)
        else:
            assert encoded == expected


@pytest.mark.parametrize(
    ("schema", "values"),
    [
        ({"type": "long", "logicalType": "timestamp-millis"},
         [datetime(2024, 5, 1, 12, 30, 1, 123456, tzinfo=UTC), 1_700_000_000_123, -5]),
        ({"type": "long", "logicalType": "timestamp-micros"}, [datetime(1969, 12, 31, 23, 59, tzinfo=UTC), 7]),
        ({"type": "long", "logicalType": "local-timestamp-millis"}, [datetime(2024, 5, 1, 12, 30, 1, 5000)]),
        ({"type": "int", "logicalType": "date"}, [date(2024, 2, 29), date(1900, 1, 1), 2**40, "2024-01-01"]),
        ({"type": "int", "logicalType": "time-millis"}, [time(23, 59, 59, 999000), 5, 1.5]),
        ({"type": "long", "logicalType": "time-micros"}, [time(0, 0, 0, 1)]),
        ({"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 3},
         [Decimal("123456.789"), Decimal("-0.001"), Decimal("1.0000"), Decimal("1234567.8"), Decimal("NaN"), 5]),
        ({"type": "fixed", "name": "Money", "size": 8, "logicalType": "decimal", "precision": 12, "scale": 2},
         [Decimal("-12.50"), Decimal("0")]),
        ({"type": "string", "logicalType": "uuid"}, ["6f1c6b84-4f8b-4a07-9a8c-1f0f4c1b2d3e", uuid.uuid4()]),
        ({"type": "enum", "name": "Colour", "symbols": ["RED", "GREEN"]}, ["GREEN", "RED", "BLUE", 1]),
        ({"type": "fixed", "name": "Pair", "size": 2}, [b"ab", bytearray(b"cd"), b"abc"]),
        ("int", [2**31 - 1, -(2**31), 2**31, True]),
        ("long", [2**63 - 1, -(2**63), 2**63, False]),
        ("bytes", [b"", bytearray(b"x" * 70), memoryview(b"mv"), "text"]),
        ("string", ["", "é😀" * 40, b"bytes"]),
        ("boolean", [True, False, 0, None]),
        (["string", "null"], [None, "s", 3]),
        (["long"], [3, None]),
        ({"type": "map", "values": ["null", "long"]}, [{}, {"a": 1, "b": None}, {1: 2}, {f"k{i}": i for i in range(70)}]),
        ({"type": "array", "items": {"type": "array", "items": "double"}}, [[], [[1.5, 2], []], [[True]], "ab", [[1]] * 65]),
    ],
    ids=lambda item: str(item)[:40],
)
def test_logical_and_named_types_fit_and_encode_as_the_references(schema: Any, values: list[Any]) -> None:
    for value in values:
        assert_agrees(schema, value)


def test_a_missing_field_is_written_as_its_default_as_fastavro_does() -> None:
    schema = {
        "type": "record",
        "fields": [
            {"name": "a", "type": "long", "default": 7},
            {"name": "b", "type": ["string", "null"], "default": "x"},
            {"name": "c", "type": ["null", "long"]},
            {"name": "d", "type": "string"},
        ],
    }
    for value in ({"d": "only"}, {"a": 1, "b": None, "c": 2, "d": "all"}, {"a": 1}, {"d": "x", "e": 1}, {"d": 1}):
        assert_agrees(schema, value)


def test_a_record_value_must_be_a_mapping_without_unknown_keys() -> None:
    schema = infer({"a": 1, "b": {"c": "x"}})
    for value in ({"a": 1}, {"b": {"c": "y", "d": 1}}, {"a": 1, "z": None}, [("a", 1)], None, {"a": 1, "b": {}}):
        assert_agrees(schema, value)


@pytest.mark.parametrize(
    "schema",
    [
        ["null", "string", "long"],
        ["string", "long"],
        {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]},
        {"type": "record", "fields": [{"name": "x", "type": "long", "default": "not a long"}]},
    ],
    ids=["union-of-three", "union-of-two-types", "named-reference", "default-that-does-not-fit"],
)
def test_schemas_outside_the_compiler_are_left_to_fastavro(schema: Any) -> None:
    assert compile_encoder(schema) is None


def test_a_value_that_does_not_fit_stops_the_encoder_with_false_and_the_caller_cuts_the_buffer() -> None:
    encode = compile_encoder(infer({"a": "text", "b": 1}))
    assert encode is not None
    out = bytearray(b"kept")
    assert not encode({"a": "text", "b": "not a long"}, out)
    assert out.startswith(b"kept")  # a partial encoding may follow: AvroWriter deletes it
