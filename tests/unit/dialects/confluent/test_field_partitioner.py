"""DefaultPartitioner and FieldPartitioner: encoded partitions as Confluent writes them."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.dialects.confluent.partitioners import (
    DefaultPartitioner,
    FieldPartitioner,
    partitioner_from_settings,
)
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record

SCHEMA = {
    "type": "record",
    "name": "Order",
    "fields": [
        {"name": "region", "type": "string"},
        {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["CLICK", "VIEW"]}},
        {"name": "count", "type": "int"},
        {"name": "big", "type": "long"},
        {"name": "tiny", "type": {"type": "int", "connect.type": "int8"}},
        {"name": "paid", "type": "boolean"},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "price", "type": "double"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {
            "name": "user",
            "type": [
                "null",
                {
                    "type": "record",
                    "name": "User",
                    "fields": [
                        {
                            "name": "address",
                            "type": {
                                "type": "record",
                                "name": "Address",
                                "fields": [{"name": "city", "type": ["null", "string"]}],
                            },
                        },
                        {"name": "props", "type": {"type": "map", "values": "string"}},
                    ],
                },
            ],
        },
        {"name": "buyer", "type": ["null", "User"]},
    ],
}


def order(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "region": "us-east",
        "kind": "CLICK",
        "count": 12,
        "big": -9_000_000_000,
        "tiny": -7,
        "paid": True,
        "note": None,
        "price": 1.5,
        "amount": Decimal("3.10"),
        "created": datetime(2024, 2, 29, tzinfo=UTC),
        "tags": ["a"],
        "user": {"address": {"city": "NYC"}, "props": {"k": "v"}},
        "buyer": {"address": {"city": "Paris"}, "props": {}},
    }
    return base | changes


def record(value: Any = None, schema: Any = SCHEMA, partition: int = 7) -> Record:
    return Record("orders", partition, 100, value=order() if value is None else value, value_schema=schema)


def field_partitioner(names: str, **extra: str) -> FieldPartitioner:
    return FieldPartitioner.from_settings({"partition.field.name": names, **extra})


def test_the_default_partitioner_writes_the_kafka_partition() -> None:
    assert DefaultPartitioner.from_settings({}).encode_partition(record(partition=12), 0) == "partition=12"


def test_the_default_partitioner_is_the_default_class() -> None:
    assert isinstance(partitioner_from_settings({}), DefaultPartitioner)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ("region", "region=us-east"),
        ("region,kind", "region=us-east/kind=CLICK"),
        (" region , count ", "region=us-east/count=12"),
        ("big,tiny", "big=-9000000000/tiny=-7"),
        ("paid", "paid=true"),
        ("note", "note=null"),
        ("user.address.city", "user.address.city=NYC"),
        ("buyer.address.city", "buyer.address.city=Paris"),  # a named type used again
    ],
)
def test_golden_field_partitions(names: str, expected: str) -> None:
    assert field_partitioner(names).encode_partition(record(), 0) == expected


def test_fields_are_joined_with_the_directory_delimiter() -> None:
    assert field_partitioner("region,paid", **{"directory.delim": "|"}).encode_partition(record(), 0) == (
        "region=us-east|paid=true"
    )


def test_a_null_on_the_way_to_a_nested_field_is_null() -> None:
    partitioner = field_partitioner("user.address.city")
    assert partitioner.encode_partition(record(order(user=None)), 0) == "user.address.city=null"
    assert partitioner.encode_partition(record(order(user={"address": {"city": None}})), 0) == (
        "user.address.city=null"
    )


def test_values_are_written_as_they_are_including_slashes_and_empty_strings() -> None:
    partitioner = field_partitioner("region")
    assert partitioner.encode_partition(record(order(region="a/b\\c:d=e+f g")), 0) == "region=a/b\\c:d=e+f g"
    assert partitioner.encode_partition(record(order(region="")), 0) == "region="


def test_a_connect_struct_schema_works_like_an_avro_one() -> None:
    schema = {
        "type": "struct",
        "fields": [
            {"field": "small", "type": "int16", "optional": False},
            {"field": "name", "type": "string", "optional": True},
        ],
    }
    partitioner = field_partitioner("small,name")
    assert (
        partitioner.encode_partition(record({"small": 300, "name": None}, schema), 0) == "small=300/name=null"
    )


@pytest.mark.parametrize("value", ["a/..", "x/../y", "x/./y", "a\\..\\b", "tab\there", "nul\x00"])
def test_values_that_could_leave_the_directory_are_refused(value: str) -> None:
    with pytest.raises(RecordError, match="orders-7@100: the encoded partition"):
        field_partitioner("region").encode_partition(record(order(region=value)), 0)


@pytest.mark.parametrize("value", ["..", ".", "../x", "a..b"])
def test_dots_that_do_not_make_a_whole_segment_are_fine(value: str) -> None:
    # "region=.." is one segment; only a "/" inside the value can start a dot segment.
    assert field_partitioner("region").encode_partition(record(order(region=value)), 0) == f"region={value}"


@pytest.mark.parametrize("name", ["price", "amount", "created", "tags", "user", "user.props"])
def test_unsupported_field_types_are_record_errors(name: str) -> None:
    with pytest.raises(RecordError, match="Error encoding partition"):
        field_partitioner(name).encode_partition(record(), 0)


@pytest.mark.parametrize("name", ["missing", "user.missing", "user.nowhere.city"])
def test_fields_missing_from_the_schema_are_record_errors(name: str) -> None:
    with pytest.raises(RecordError, match=f"Field '{name}' is not present in the schema"):
        field_partitioner(name).encode_partition(record(), 0)


def test_looking_below_a_map_field_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="Field 'user.props.k' cannot be read"):
        field_partitioner("user.props.k").encode_partition(record(), 0)


@pytest.mark.parametrize(
    ("value", "schema"),
    [
        ({"region": "us-east"}, None),  # schemaless JSON is a Map, not a Struct
        (None, "string"),
        ("us-east", "string"),
        ({"region": "us-east"}, {"type": "map", "values": "string"}),
    ],
)
def test_values_that_are_not_structs_are_record_errors(value: Any, schema: Any) -> None:
    rec = Record("orders", 7, 100, value=value, value_schema=schema)
    with pytest.raises(RecordError, match="Error encoding partition"):
        field_partitioner("region").encode_partition(rec, 0)


def test_a_value_that_does_not_match_its_schema_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="Error encoding partition"):
        field_partitioner("count").encode_partition(record(order(count="12")), 0)


@pytest.mark.parametrize("names", ["", " ", "a,,b", "a.", ".a", "a..b"])
def test_empty_field_names_are_config_errors(names: str) -> None:
    with pytest.raises(ConfigError, match="partition.field.name"):
        field_partitioner(names)


def test_the_field_name_setting_is_required() -> None:
    with pytest.raises(ConfigError, match="partition.field.name"):
        FieldPartitioner.from_settings({})


def test_a_field_partitioner_survives_pickling() -> None:
    partitioner = field_partitioner("region,user.address.city")
    assert pickle.loads(pickle.dumps(partitioner)).encode_partition(record(), 0) == (
        "region=us-east/user.address.city=NYC"
    )


_SAFE_TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12).filter(
    lambda text: not any(part in (".", "..") for part in text.replace("\\", "/").split("/"))
)


@given(_SAFE_TEXT, st.integers(min_value=-(2**63), max_value=2**63 - 1), st.booleans())
def test_safe_values_are_written_verbatim(region: str, big: int, paid: bool) -> None:
    encoded = field_partitioner("region,big,paid").encode_partition(
        record(order(region=region, big=big, paid=paid)), 0
    )
    assert encoded == f"region={region}/big={big}/paid={str(paid).lower()}"


def test_a_partitioner_follows_a_schema_change_between_records() -> None:
    partitioner = field_partitioner("region")
    assert partitioner.encode_partition(record(), 0) == "region=us-east"
    renamed = {"type": "record", "name": "Order", "fields": [{"name": "zone", "type": "string"}]}
    with pytest.raises(RecordError, match="not present in the schema"):
        partitioner.encode_partition(record({"zone": "eu"}, renamed), 0)
    assert partitioner.encode_partition(record(), 0) == "region=us-east"
