"""The partition-value shortcuts give what the general computation gives, for any data."""

from __future__ import annotations

import pickle
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.errors import RecordError
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.layout.key_segments import safe_value, split_safe_value
from lakesink.domain.layout.naming import KeyLayout
from lakesink.domain.layout.padding import PaddingSettings, PaddingStrategy, PaddingType
from lakesink.domain.layout.partitioning import PartitionSelection
from lakesink.domain.records import Record

_TRICKY = st.text(
    alphabet=st.sampled_from(["a", "é", ".", "/", "\\", " ", "\t", "\x00", "\x7f", "\x85", "\u200b"])
)


@given(value=st.one_of(_TRICKY, st.text()))
def test_safe_value_returns_what_splitting_and_escaping_returns(value: str) -> None:
    assert safe_value(value) == split_safe_value(value)


_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5), st.binary(max_size=3)
)
_DATA = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "0"]), inner, max_size=3),
    ),
    max_leaves=8,
)


def _outcome(selection: PartitionSelection, value: Any) -> object:
    try:
        return selection.read(Record("t", 0, 1, value=value), PaddingSettings())
    except RecordError as error:
        return str(error)


@given(data=_DATA, path=st.lists(st.sampled_from(["a", "b", "0", "x"]), min_size=1, max_size=3))
def test_value_fields_read_plain_dicts_as_any_other_mapping(data: Any, path: list[str]) -> None:
    selection = PartitionSelection.create(["_value." + ".".join(path)])
    value = {"a": data, "b": {"a": data}}
    # A mapping proxy is no dict: every read of it takes the general Mapping walk.
    assert _outcome(selection, value) == _outcome(selection, MappingProxyType(value))


def _layout(specs: list[str], *, no_partition: bool = False) -> KeyLayout:
    padding = PaddingSettings({"partition": PaddingStrategy(PaddingType.LEFT_PAD, 4)})
    return KeyLayout.create(
        prefix="p",
        partition_specs=specs,
        no_partition=no_partition,
        include_keys=None,
        padding=padding,
        key_suffix=None,
        format=Format.AVRO,
        codec=CompressionCodec.UNCOMPRESSED,
    )


@pytest.mark.parametrize(
    ("specs", "no_partition"),
    [([], False), ([], True), (["_topic"], False), (["_partition", "_topic"], False)],
)
def test_coordinate_values_are_every_records_partition_values(specs: list[str], no_partition: bool) -> None:
    layout = _layout(specs, no_partition=no_partition)
    record = Record("orders.v1", 7, 123, timestamp=5, key=b"k", value={"a": 1})

    assert layout.coordinate_values("orders.v1", 7) == layout.partition_values(record)


@pytest.mark.parametrize("specs", [["_value.a"], ["_topic", "_key"], ["_date.yyyy"], ["_header.h"]])
def test_layouts_reading_record_data_have_no_coordinate_values(specs: list[str]) -> None:
    assert _layout(specs).coordinate_values("orders", 0) is None


def test_a_selection_keeps_its_field_names_through_pickle() -> None:
    selection = PartitionSelection.create(["_value.a.b", "_topic", "_key"])

    copy = pickle.loads(pickle.dumps(selection))

    assert copy == selection and hash(copy) == hash(selection)
    assert copy.names == ("a.b", "topic", "key")
