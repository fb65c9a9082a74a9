from __future__ import annotations

import pickle

import pytest

from lakesink.adapters.kafka.offsets import (
    EARLIEST,
    LATEST,
    OffsetSpec,
    from_json,
    ranges_between,
)
from lakesink.domain.errors import ConfigError
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.records import positions_json


def test_positions_round_trip_through_the_json_form_spark_checkpoints() -> None:
    positions = {("b", 1): 7, ("a", 10): 3, ("a", 2): 0}

    document = positions_json(positions)

    assert document == {"a": {"2": 0, "10": 3}, "b": {"1": 7}}
    assert from_json(document) == positions


@pytest.mark.parametrize(
    "document",
    [[], {"t": 5}, {"t": {"x": 1}}, {"t": {"0": "1"}}, {"t": {"0": -3}}, {"t": {"0": True}}],
)
def test_malformed_offsets_are_a_config_error_naming_the_setting(document: object) -> None:
    with pytest.raises(ConfigError, match="startingOffsets"):
        from_json(document, setting="startingOffsets")  # type: ignore[arg-type]


def test_starting_offsets_resolve_earliest_latest_and_explicit_positions() -> None:
    spec = OffsetSpec.parse('{"t": {"0": 5, "1": -1, "2": -2}}', setting="startingOffsets", default=EARLIEST)

    assert spec.resolve(("t", 0), 2, 9) == 5
    assert spec.resolve(("t", 1), 2, 9) == 9
    assert spec.resolve(("t", 2), 2, 9) == 2
    assert spec.resolve(("t", 3), 2, 9) == 2


def test_starting_offsets_keywords_and_default() -> None:
    assert OffsetSpec.parse("latest", setting="s", default=EARLIEST).default == LATEST
    assert OffsetSpec.parse(" Earliest ", setting="s", default=LATEST).default == EARLIEST
    assert OffsetSpec.parse(None, setting="s", default=LATEST).default == LATEST


def test_unparsable_starting_offsets_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="startingOffsets"):
        OffsetSpec.parse("{not json", setting="startingOffsets", default=EARLIEST)


def test_ranges_cover_only_partitions_that_advanced_and_skip_newly_registered_ones() -> None:
    start = {("t", 0): 0, ("t", 1): 5}
    end = {("t", 0): 10, ("t", 1): 5, ("t", 2): 0}

    assert ranges_between(start, end) == [OffsetRange("t", 0, 0, 10)]


def test_offset_range_survives_pickling_for_a_retried_task() -> None:
    rng = OffsetRange("t", 3, 10, 20)

    assert pickle.loads(pickle.dumps(rng)) == rng
    assert rng.describe() == "t-3[10, 20)"
