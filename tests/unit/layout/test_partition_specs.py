"""Parsing PARTITIONBY entries into fields and building the partition selection (reference §2.2)."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.partitioning import (
    NAME_RULE_MESSAGE,
    FieldKind,
    PartitionDisplay,
    PartitionSelection,
    parse_partition_spec,
    split_spec,
)


@pytest.mark.parametrize(
    ("spec", "parts"),
    [
        ("a.b.c", ["a", "b", "c"]),
        ("_key.`cost.centre.id`", ["_key", "cost.centre.id"]),
        ("`a.b`", ["a.b"]),
        ("`a.b`.c", ["a.b", "c"]),
        ("a..b", ["a", "b"]),
        (".a.", ["a"]),
        ("_date.`yyyy-MM-dd HH.mm`", ["_date", "yyyy-MM-dd HH.mm"]),
        ("a`b", ["a`b"]),
        ("", []),
    ],
)
def test_splitter_splits_on_dots_outside_backticks(spec: str, parts: list[str]) -> None:
    assert split_spec(spec) == parts


@pytest.mark.parametrize(
    ("spec", "kind", "path", "name"),
    [
        ("_key", FieldKind.WHOLE_KEY, (), "key"),
        ("_key.a.b", FieldKind.KEY, ("a", "b"), "a.b"),
        ("_key.`cost.centre.id`", FieldKind.KEY, ("cost.centre.id",), "cost.centre.id"),
        ("_value.a.b", FieldKind.VALUE, ("a", "b"), "a.b"),
        ("a.b", FieldKind.VALUE, ("a", "b"), "a.b"),
        ("_header.h", FieldKind.HEADER, ("h",), "h"),
        ("_header.h.x", FieldKind.HEADER, ("h", "x"), "h.x"),
        ("_topic", FieldKind.TOPIC, (), "topic"),
        ("_partition", FieldKind.PARTITION, (), "partition"),
        ("_date.uuuu", FieldKind.DATE, ("uuuu",), "date"),
        ("_headers.x", FieldKind.VALUE, ("_headers", "x"), "_headers.x"),
        ("_KEY", FieldKind.VALUE, ("_KEY",), "_KEY"),
        ("_offset", FieldKind.VALUE, ("_offset",), "_offset"),
    ],
)
def test_spec_selects_source_by_exact_first_segment(
    spec: str, kind: FieldKind, path: tuple[str, ...], name: str
) -> None:
    parsed = parse_partition_spec(spec)
    assert (parsed.kind, parsed.path, parsed.name) == (kind, path, name)


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("_header", "cannot partition by Header partition field without path"),
        ("_value", "cannot partition by Value partition field without path"),
        ("_date", "cannot partition by Date partition field without format"),
        ("_topic.x", "partitioning by topic requires no path"),
        ("_partition.x", "partitioning by partition requires no path"),
        ("_date.yyyy.MM", "only one format should be provided for date"),
        ("`a/b`", NAME_RULE_MESSAGE),
        ("_key.`a\\b`", NAME_RULE_MESSAGE),
        ("_header.` `", NAME_RULE_MESSAGE),
        ("``", NAME_RULE_MESSAGE),
        ("_value.`a\x01b`", "Name must not contain control characters"),
        ("", "the entry is empty"),
        ("_date.yyyyb", "Unknown pattern letter: b"),
    ],
)
def test_invalid_specs_are_config_errors_with_lenses_reason_and_the_spec(spec: str, reason: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_partition_spec(spec)
    assert reason in str(error.value)
    assert repr(spec) in str(error.value)


def test_no_partitionby_gives_default_topic_partition_values_layout() -> None:
    selection = PartitionSelection.create(())
    assert [f.kind for f in selection.fields] == [FieldKind.TOPIC, FieldKind.PARTITION]
    assert selection.display is PartitionDisplay.VALUES
    assert not selection.is_custom


def test_partitionby_is_custom_and_hive_style_by_default() -> None:
    selection = PartitionSelection.create(("a", "_key"))
    assert [f.name for f in selection.fields] == ["a", "key"]
    assert selection.display is PartitionDisplay.KEYS_AND_VALUES
    assert selection.is_custom


def test_nopartition_is_custom_without_fields() -> None:
    selection = PartitionSelection.create((), no_partition=True)
    assert selection.fields == ()
    assert selection.is_custom
    assert selection.display is PartitionDisplay.VALUES


@pytest.mark.parametrize(
    ("specs", "include_keys", "display"),
    [
        (("a",), False, PartitionDisplay.VALUES),
        (("a",), True, PartitionDisplay.KEYS_AND_VALUES),
        ((), True, PartitionDisplay.KEYS_AND_VALUES),
        ((), False, PartitionDisplay.VALUES),
    ],
)
def test_include_keys_overrides_the_display(
    specs: tuple[str, ...], include_keys: bool, display: PartitionDisplay
) -> None:
    assert PartitionSelection.create(specs, include_keys=include_keys).display is display


def test_partitionby_and_nopartition_together_are_rejected() -> None:
    with pytest.raises(ConfigError, match="NOPARTITION"):
        PartitionSelection.create(("a",), no_partition=True)


def test_date_field_is_compiled_in_the_configured_zone() -> None:
    field = parse_partition_spec("_date.HH", date_timezone="Asia/Kolkata")
    assert field.date_pattern is not None
    assert field.date_pattern.format_epoch_millis(0) == "05"


def test_unknown_date_timezone_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="partition.date.timezone"):
        PartitionSelection.create(("_date.HH",), date_timezone="Nowhere/Land")
