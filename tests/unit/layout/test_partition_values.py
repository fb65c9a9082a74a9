"""Extracting partition values from records, and the per-record errors (reference §2.2)."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import RecordError
from lakesink.domain.layout.padding import PaddingSettings, resolve_padding
from lakesink.domain.layout.partitioning import PartitionSelection, PartitionValues
from lakesink.domain.records import Record

DEFAULT_PADDING = PaddingSettings()


def values(
    specs: tuple[str, ...], record: Record, padding: PaddingSettings = DEFAULT_PADDING
) -> PartitionValues:
    selection = PartitionSelection.create(specs)
    return PartitionValues(tuple(zip(selection.names, selection.read(record, padding), strict=True)))


def record(**fields: object) -> Record:
    base: dict[str, object] = {"topic": "orders", "partition": 3, "offset": 17, "timestamp": 1270166400000}
    base.update(fields)
    return Record(**base)  # type: ignore[arg-type]


def test_values_come_in_partitionby_order_with_field_names() -> None:
    got = values(("b", "_key", "a"), record(key="k1", value={"a": 1, "b": "two"}))
    assert got.items == (("b", "two"), ("key", "k1"), ("a", "1"))


def test_missing_value_field_is_marked_missing() -> None:
    assert values(("salary",), record(value={"name": "first"})).values == ("[missing]",)


def test_default_selection_gives_topic_and_unpadded_partition() -> None:
    assert values((), record()).values == ("orders", "3")


def test_partition_value_uses_the_partition_padding() -> None:
    padding = resolve_padding(kcql_lengths={"partition": 4, "offset": 12})
    assert values(("_partition",), record(), padding).values == ("0003",)


def test_repeated_names_are_kept_in_order() -> None:
    got = values(("_date.uuuu", "_date.LL", "_date.dd"), record())
    assert got.items == (("date", "2010"), ("date", "04"), ("date", "02"))


def test_header_path_reads_inside_a_structured_header() -> None:
    got = values(("_header.header1.user.name",), record(headers=(("header1", {"user": {"name": "laura"}}),)))
    assert got.items == (("header1.user.name", "laura"),)


def test_header_bytes_are_decoded_as_utf8() -> None:
    assert values(("_header.h",), record(headers=(("h", b"eu-west"),))).values == ("eu-west",)


def test_slashes_in_values_are_kept_raw_at_this_level() -> None:
    assert values(("_header.h",), record(headers=(("h", "val1/val2"),))).values == ("val1/val2",)


@pytest.mark.parametrize(
    ("specs", "rec", "reason"),
    [
        (("_key",), record(key=None), "Key is null, but requested to partition by whole key"),
        (
            ("_key",),
            record(key={"a": 1}),
            "Non primitive struct provided, PARTITIONBY _key requested in KCQL",
        ),
        (("_key",), record(key=[1, 2]), "Non primitive struct provided, PARTITIONBY _key requested in KCQL"),
        (("_key.a",), record(key=None), "Key is null."),
        (("a",), record(value=None), "Value is null."),
        (("_value.a",), record(value=None), "Value is null."),
        (("_header.h.x",), record(), "Header 'h.x' not found in message"),
        (("_header.h",), record(headers=(("h", None),)), "Header 'h' is null."),
        (("_date.uuuu",), record(timestamp=None), "Timestamp not found in message"),
        (("a",), record(value={"a": {"b": 1}}), "only primitive values can partition"),
    ],
)
def test_record_problems_are_record_errors_naming_record_and_field(
    specs: tuple[str, ...], rec: Record, reason: str
) -> None:
    with pytest.raises(RecordError) as error:
        values(specs, rec)
    message = str(error.value)
    assert reason in message
    assert rec.describe() in message
    assert repr(specs[0]) in message


def test_timestamp_outside_supported_years_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="outside the supported range"):
        values(("_date.uuuu",), record(timestamp=10**17))


def test_partition_values_are_hashable_for_grouping_writers() -> None:
    first = values(("a",), record(value={"a": "x"}))
    second = values(("a",), record(value={"a": "x"}, offset=99))
    assert first == second and hash(first) == hash(second)
    assert len({first, second}) == 1
