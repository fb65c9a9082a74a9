from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from lakesink.domain.errors import FormatError
from lakesink.domain.schema import fits, infer, merge, name_records


def _field_types(schema):
    return {field["name"]: field["type"] for field in schema["fields"]}


def test_inferred_fields_keep_first_seen_order_and_are_optional():
    schema = infer({"z": 1, "a": "x", "m": True})
    assert [field["name"] for field in schema["fields"]] == ["z", "a", "m"]
    assert _field_types(schema) == {"z": ["null", "long"], "a": ["null", "string"], "m": ["null", "boolean"]}


def test_nested_objects_and_arrays_are_inferred():
    schema = infer({"n": {"x": [1, 2]}})
    nested = _field_types(schema)["n"][1]
    assert nested["type"] == "record"
    assert _field_types(nested)["x"] == ["null", {"type": "array", "items": "long"}]


def test_logical_types_are_inferred_from_python_values():
    types = _field_types(infer({"t": datetime(2024, 1, 1, tzinfo=UTC), "d": date(2024, 1, 1), "m": Decimal("1.25")}))
    assert types["t"][1]["logicalType"] == "timestamp-millis"
    assert types["d"][1]["logicalType"] == "date"
    assert types["m"][1] == {"type": "bytes", "logicalType": "decimal", "precision": 38, "scale": 2}


def test_int_and_float_merge_to_double():
    merged = merge(infer({"a": 1}), infer({"a": 2.5}))
    assert _field_types(merged)["a"] == ["null", "double"]


def test_a_field_missing_from_one_record_becomes_optional_in_the_merge():
    merged = merge(infer({"a": 1}), infer({"b": "x"}))
    assert [field["name"] for field in merged["fields"]] == ["a", "b"]
    assert fits({"a": 1}, merged) and fits({"b": "y"}, merged)


def test_conflicting_types_do_not_merge():
    assert merge(infer({"a": "x"}), infer({"a": 1})) is None
    assert merge(infer({"a": {"b": 1}}), infer({"a": [1]})) is None


def test_null_merges_into_any_type():
    assert _field_types(merge(infer({"a": None}), infer({"a": "x"})))["a"] == ["null", "string"]


def test_an_empty_object_merges_with_a_record():
    merged = merge(infer({"a": {}}), infer({"a": {"b": 1}}))
    assert fits({"a": {"b": 2}}, merged)


def test_an_array_mixing_strings_and_numbers_cannot_be_inferred():
    with pytest.raises(FormatError):
        infer({"a": [1, "x"]})


def test_non_string_keys_cannot_be_inferred():
    with pytest.raises(FormatError):
        infer({1: "x"})


def test_a_value_with_an_extra_field_does_not_fit():
    assert not fits({"a": 1, "b": 2}, infer({"a": 1}))


def test_an_int_fits_a_double_field_but_a_float_does_not_fit_a_long_field():
    assert fits({"a": 1}, infer({"a": 1.5}))
    assert not fits({"a": 1.5}, infer({"a": 1}))


def test_a_decimal_fits_only_within_its_scale():
    schema = infer(Decimal("1.25"))
    assert fits(Decimal("3.10"), schema)
    assert not fits(Decimal("3.125"), schema)


def test_int_ranges_are_checked():
    assert fits(2**31 - 1, "int") and not fits(2**31, "int")
    assert not fits(True, "long")


def test_unnamed_records_get_confluent_default_names():
    named = name_records(infer({"n": {"x": 1}}))
    assert (named["name"], named["namespace"]) == ("ConnectDefault", "io.confluent.connect.avro")
    assert named["fields"][0]["type"][1]["name"] == "ConnectDefault2"


def test_recursive_named_types_are_checked():
    node = {"type": "record", "name": "Node", "fields": [
        {"name": "v", "type": "long"}, {"name": "next", "type": ["null", "Node"], "default": None}]}
    assert fits({"v": 1, "next": {"v": 2, "next": None}}, node)
    assert not fits({"v": 1, "next": {"v": "x"}}, node)
