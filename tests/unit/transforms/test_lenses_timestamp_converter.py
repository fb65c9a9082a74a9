"""Lenses' header TimestampConverter, configured through build_chain as a connector config would."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record
from lakesink.domain.transforms.registry import build_chain
from tests.support.clocks import ManualClock

CONVERTER = "io.lenses.connect.smt.header.TimestampConverter"

# 2023-11-14T22:13:20Z
EVENT_MS = 1_700_000_000_000
# 2024-03-01T10:15:30.250Z, a wall clock far from the event time
NOW_MS = 1_709_288_130_250


def struct(*fields: tuple[str, str], optional: bool = False) -> dict[str, object]:
    """A Connect struct schema as JsonConverter (schemas.enable=true) carries it."""
    return {
        "type": "struct",
        "optional": optional,
        "fields": [{"field": name, "type": kind, "optional": True} for name, kind in fields],
    }


def convert(record: Record, **settings: str) -> Record:
    props = {"transforms": "conv", "transforms.conv.type": CONVERTER}
    props |= {f"transforms.conv.{key.replace('_', '.')}": value for key, value in settings.items()}
    result = build_chain(props, ManualClock(NOW_MS)).apply(record)
    assert result is not None
    return result


def converted(record: Record, **settings: str) -> object:
    return convert(record, header_name="out", **settings).header("out")


def schemaless(value: object, **extra: object) -> Record:
    return Record("orders", 2, 40, timestamp=EVENT_MS, value=value, **extra)  # type: ignore[arg-type]


def test_the_documented_chain_formats_the_value_field_and_the_wall_clock() -> None:
    props = {
        "transforms": "insertFormattedTs,insertWallclock",
        "transforms.insertFormattedTs.type": "io.lenses.connect.smt.header.TimestampConverter",
        "transforms.insertFormattedTs.header.name": "ts",
        "transforms.insertFormattedTs.field": "timestamp",
        "transforms.insertFormattedTs.target.type": "string",
        "transforms.insertFormattedTs.format.to.pattern": "yyyy-MM-dd-HH",
        "transforms.insertWallclock.type": "io.lenses.connect.smt.header.InsertWallclock",
        "transforms.insertWallclock.header.name": "wallclock",
        "transforms.insertWallclock.value.type": "format",
        "transforms.insertWallclock.format": "yyyy-MM-dd-HH",
    }
    schema = struct(("metadata_id", "int64"), ("customer_id", "string"), ("timestamp", "int64"))
    value = {"metadata_id": 12, "customer_id": "cust-7", "timestamp": EVENT_MS}
    # The record timestamp is a different hour: the bare field must not read it.
    record = Record(
        "orders", 0, 5, timestamp=NOW_MS, value=value, value_schema=schema, headers=(("h", b"x"),)
    )

    chain = build_chain(props, ManualClock(NOW_MS))
    result = chain.apply(record)

    assert result is not None
    assert result.headers == (("h", b"x"), ("ts", "2023-11-14-22"), ("wallclock", "2024-03-01-10"))
    assert result.value == value and result.value_schema is schema
    assert chain.reads_wall_clock == ("insertWallclock",)


def test_a_bare_field_is_a_value_field_and_underscore_timestamp_the_record_timestamp() -> None:
    record = schemaless({"timestamp": NOW_MS})
    assert converted(record, field="timestamp", target_type="unix") == NOW_MS
    assert converted(record, field="_value.timestamp", target_type="unix") == NOW_MS
    assert converted(record, field="_TIMESTAMP", target_type="unix") == EVENT_MS


def test_unix_precision_also_scales_the_record_timestamp() -> None:
    record = Record("t", 0, 0, timestamp=1_700_000_000)
    result = converted(record, field="_timestamp", target_type="Timestamp", unix_precision="seconds")
    assert result == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)


def test_a_nested_key_field_with_a_schema() -> None:
    key_schema = {
        "type": "struct",
        "optional": False,
        "fields": [{"field": "meta", "optional": True, **struct(("at", "int64"))}],
    }
    record = Record("t", 0, 0, key={"meta": {"at": EVENT_MS}}, key_schema=key_schema)
    assert converted(record, field="_key.meta.at", target_type="string", format_to_pattern="HH:mm") == "22:13"


def test_string_output_is_printed_in_the_target_timezone() -> None:
    result = converted(
        schemaless(EVENT_MS),
        target_type="string",
        format_to_pattern="yyyy-MM-dd HH:mm XXX",
        target_timezone="Europe/Paris",
    )
    assert result == "2023-11-14 23:13 +01:00"


@pytest.mark.parametrize(
    ("target", "precision", "expected"),
    [
        ("unix", "milliseconds", EVENT_MS + 789),
        ("unix", "seconds", 1_700_000_000),
        ("unix", "microseconds", (EVENT_MS + 789) * 1000),
        ("unix", "nanoseconds", (EVENT_MS + 789) * 1_000_000),
        ("Timestamp", "milliseconds", datetime(2023, 11, 14, 22, 13, 20, 789_000, tzinfo=UTC)),
        ("Date", "milliseconds", date(2023, 11, 15)),
        ("Time", "milliseconds", time(7, 13, 20, 789_000)),
    ],
)
def test_target_types(target: str, precision: str, expected: object) -> None:
    record = schemaless({"at": datetime(2023, 11, 14, 22, 13, 20, 789_000, tzinfo=UTC)})
    result = converted(
        record, field="at", target_type=target, unix_precision=precision, target_timezone="Asia/Tokyo"
    )
    assert result == expected


def test_epoch_numbers_follow_unix_precision_and_numeric_strings_are_epochs() -> None:
    assert converted(
        schemaless(1_700_000_000_123_456), target_type="unix", unix_precision="microseconds"
    ) == (1_700_000_000_123_000)
    assert converted(schemaless("1700000000000"), target_type="Date") == date(2023, 11, 14)


def test_strings_are_parsed_with_the_first_matching_pattern_as_utc_local_times() -> None:
    settings = {
        "target_type": "unix",
        "format_from_pattern": "dd/MM/yyyy HH:mm, yyyy-MM-dd'T'HH:mm:ssXXX",
    }
    assert converted(schemaless("14/11/2023 22:13"), **settings) == EVENT_MS - 20_000
    # The offset is read and ignored: LocalDateTime.parse keeps the local fields only.
    assert converted(schemaless("2023-11-14T22:13:20+05:00"), **settings) == EVENT_MS


def test_a_string_matching_no_pattern_is_a_record_error_naming_the_alias() -> None:
    with pytest.raises(RecordError, match=r"'conv'.*'yesterday'.*dd/MM/yyyy HH:mm"):
        converted(schemaless("yesterday"), target_type="unix", format_from_pattern="dd/MM/yyyy HH:mm")
    with pytest.raises(RecordError, match="format.from.pattern is not set"):
        converted(schemaless("yesterday"), target_type="unix")


def test_with_a_schema_the_field_schema_decides_how_the_value_is_read() -> None:
    record = Record("t", 0, 0, value={"at": "15/06/2021 08:30"}, value_schema=struct(("at", "string")))
    assert converted(record, field="at", target_type="unix", format_from_pattern="dd/MM/yyyy HH:mm") == (
        1_623_745_800_000
    )
    wrong = Record("t", 0, 0, value={"at": 5}, value_schema=struct(("at", "int32")))
    with pytest.raises(RecordError, match="not a timestamp type"):
        converted(wrong, field="at", target_type="unix")


def test_null_inputs_give_a_null_header_and_fields_the_schema_lacks_give_none() -> None:
    assert converted(schemaless(None), target_type="Date") is None
    assert converted(schemaless({"other": 1}), field="at", target_type="Date") is None
    with_schema = Record("t", 0, 0, value={"at": None}, value_schema=struct(("at", "int64")))
    assert converted(with_schema, field="at", target_type="unix") is None
    for record in (
        Record("t", 0, 0, value={"at": 1}, value_schema=struct(("other", "int64"))),
        Record("t", 0, 0, value=None, value_schema=struct(("at", "int64"), optional=True)),
    ):
        assert convert(record, header_name="out", field="at", target_type="unix").headers == ()


def test_schemaless_values_of_other_types_are_record_errors() -> None:
    with pytest.raises(RecordError, match="does not support float"):
        converted(schemaless(1.5), target_type="unix")
    with pytest.raises(RecordError, match="not a map"):
        converted(schemaless({"a": 3}), field="a.b", target_type="unix")


def test_rolling_windows_start_on_epoch_multiples() -> None:
    # 2024-03-02T03:40Z: 5-hour windows count from the epoch, so this one began 23:00 the day before.
    record = schemaless(1_709_350_800_000)
    settings = {
        "target_type": "string",
        "format_to_pattern": "yyyy-MM-dd HH:mm",
        "rolling_window_type": "hours",
    }
    assert converted(record, rolling_window_size="5", **settings) == "2024-03-01 23:00"
    assert converted(record, rolling_window_size="1", **settings) == "2024-03-02 03:00"
    minutes = dict(settings, rolling_window_type="minutes", rolling_window_size="15")
    assert converted(schemaless(EVENT_MS), **minutes) == "2023-11-14 22:00"
    none = dict(settings, rolling_window_type="none", rolling_window_size="999")
    assert converted(schemaless(EVENT_MS), **none) == "2023-11-14 22:13"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({}, r"transforms\.conv\.target\.type is required"),
        ({"target_type": "timestamp"}, r"'timestamp' for transforms\.conv\.target\.type.*case-sensitive"),
        ({"target_type": "string"}, r"transforms\.conv\.format\.to\.pattern is required"),
        ({"target_type": "unix", "format_to_pattern": "yyyy-{MM}"}, r"transforms\.conv\.format\.to\.pattern"),
        ({"target_type": "unix", "unix_precision": "Seconds"}, r"transforms\.conv\.unix\.precision"),
        ({"target_type": "unix", "rolling_window_type": "hours"}, r"rolling\.window\.size is required"),
        (
            {"target_type": "unix", "rolling_window_type": "minutes", "rolling_window_size": "61"},
            r"transforms\.conv\.rolling\.window\.size: must be at most 60",
        ),
        ({"target_type": "unix", "rolling_window_type": "Hours"}, r"rolling\.window\.type"),
        ({"target_type": "unix", "field": "_timestamp.x"}, r"transforms\.conv\.field.*just _timestamp"),
        ({"target_type": "unix", "target_timezone": "Mars/Olympus"}, r"transforms\.conv\.target\.timezone"),
        ({"target_type": "unix", "format_from_pattern": "yyyy-MM-dd"}, r"format\.from\.pattern.*no hour"),
        (
            {"target_type": "unix", "format_to_patern": "yyyy"},
            r"Unknown option transforms\.conv\.format\.to\.patern",
        ),
    ],
)
def test_configuration_errors_name_the_key(settings: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        convert(schemaless(EVENT_MS), header_name="out", **settings)


def test_the_header_name_is_required() -> None:
    with pytest.raises(ConfigError, match=r"transforms\.conv\.header\.name is required"):
        convert(schemaless(EVENT_MS), target_type="unix")
