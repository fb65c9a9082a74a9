"""Lenses' date-part header SMTs: seven string headers from the record time, the wall clock or a field."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record
from lakesink.domain.transforms.registry import build_chain
from tests.support.clocks import ManualClock

HEADER = "io.lenses.connect.smt.header."

# 2021-06-15T08:44:59.999Z
EVENT_MS = 1_623_746_699_999
# 2024-03-01T10:15:30.250Z
NOW_MS = 1_709_288_130_250


def added(class_name: str, record: Record, **settings: str) -> dict[str, object]:
    props = {"transforms": "parts", "transforms.parts.type": HEADER + class_name}
    props |= {f"transforms.parts.{key.replace('_', '.')}": value for key, value in settings.items()}
    result = build_chain(props, ManualClock(NOW_MS)).apply(record)
    assert result is not None
    return dict(result.headers[len(record.headers) :])


EVENT = Record("t", 0, 0, timestamp=EVENT_MS, value={"at": NOW_MS}, headers=(("keep", "me"),))


def test_record_timestamp_headers_in_lenses_order_with_defaults() -> None:
    props = {"transforms": "p", "transforms.p.type": HEADER + "InsertRecordTimestampHeaders"}
    chain = build_chain(props, ManualClock(NOW_MS))
    result = chain.apply(EVENT)
    assert result is not None
    assert result.headers == (
        ("keep", "me"),
        ("year", "2021"),
        ("month", "06"),
        ("day", "15"),
        ("hour", "08"),
        ("minute", "44"),
        ("second", "59"),
        ("date", "2021-06-15"),
    )
    assert chain.reads_wall_clock == ()


def test_prefix_formats_and_timezone() -> None:
    headers = added(
        "InsertRecordTimestampHeaders",
        EVENT,
        header_prefix_name="ev_",
        timezone="Pacific/Auckland",
        month_format="MMM",
        date_format="dd/MM/uuuu",
    )
    assert headers["ev_month"] == "Jun"
    assert headers["ev_hour"] == "20"
    assert headers["ev_date"] == "15/06/2021"


def test_a_record_without_timestamp_falls_back_to_the_wall_clock() -> None:
    headers = added("InsertRecordTimestampHeaders", Record("t", 0, 0))
    assert headers["date"] == "2024-03-01" and headers["hour"] == "10"


def test_rolling_record_timestamp_headers_default_to_fifteen_minutes() -> None:
    headers = added("InsertRollingRecordTimestampHeaders", EVENT)
    assert (headers["hour"], headers["minute"], headers["second"]) == ("08", "30", "00")
    hours = added(
        "InsertRollingRecordTimestampHeaders", EVENT, rolling_window_type="hours", rolling_window_size="4"
    )
    assert hours["hour"] == "08"


def test_wallclock_headers_read_the_clock() -> None:
    props = {"transforms": "p", "transforms.p.type": HEADER + "InsertRollingWallclockHeaders"}
    assert build_chain(props, ManualClock(NOW_MS)).reads_wall_clock == ("p",)
    assert added("InsertWallclockHeaders", EVENT)["minute"] == "15"
    assert (
        added(
            "InsertRollingWallclockHeaders", EVENT, rolling_window_type="minutes", rolling_window_size="10"
        )["minute"]
        == "10"
    )


def test_field_timestamp_headers_read_epochs_dates_and_strings() -> None:
    assert added("InsertFieldTimestampHeaders", EVENT, field="at")["date"] == "2024-03-01"
    dated = Record("t", 0, 0, value={"at": datetime(2022, 1, 2, 3, 4, 5, tzinfo=UTC)})
    assert added("InsertFieldTimestampHeaders", dated, field="_value.at")["second"] == "05"
    seconds = Record("t", 0, 0, key={"at": 1_623_746_699})
    assert (
        added("InsertFieldTimestampHeaders", seconds, field="_key.at", unix_precision="seconds")["minute"]
        == "44"
    )
    # Strings are parsed in the configured timezone: 09:00 in Paris is 07:00 UTC, shown back in Paris.
    parsed = Record("t", 0, 0, value={"at": "2021-06-15 09:00"})
    headers = added(
        "InsertRollingFieldTimestampHeaders",
        parsed,
        field="at",
        format_from_pattern="yyyy-MM-dd HH:mm",
        timezone="Europe/Paris",
        rolling_window_type="hours",
        rolling_window_size="2",
    )
    assert headers["hour"] == "08"  # the 2-hour UTC window starting 06:00 UTC is 08:00 in Paris


def test_field_timestamp_headers_use_the_wall_clock_for_a_missing_field() -> None:
    assert (
        added("InsertFieldTimestampHeaders", Record("t", 0, 0, value={}), field="at")["date"] == "2024-03-01"
    )


def test_field_timestamp_headers_need_a_value() -> None:
    with pytest.raises(RecordError, match="value is null"):
        added("InsertFieldTimestampHeaders", Record("t", 0, 0), field="at")
    with pytest.raises(RecordError, match="expected an epoch in milliseconds"):
        added("InsertFieldTimestampHeaders", Record("t", 0, 0, value={"at": "soon"}), field="at")


@pytest.mark.parametrize(
    ("class_name", "settings", "message"),
    [
        ("InsertRecordTimestampHeaders", {"locale": "fr"}, r"transforms\.parts\.locale"),
        ("InsertRecordTimestampHeaders", {"year_format": "YYYY"}, r"transforms\.parts\.year\.format"),
        ("InsertRecordTimestampHeaders", {"rolling_window_size": "5"}, r"Unknown option"),
        ("InsertRecordTimestampHeaders", {"field": "at"}, r"Unknown option transforms\.parts\.field"),
        ("InsertRollingWallclockHeaders", {"rolling_window_type": "days"}, r"rolling\.window\.type"),
        ("InsertFieldTimestampHeaders", {"unix_precision": "millis"}, r"transforms\.parts\.unix\.precision"),
        (
            "InsertFieldTimestampHeaders",
            {"format_from_pattern": "yyyy"},
            r"transforms\.parts\.format\.from\.pattern",
        ),
    ],
)
def test_configuration_errors_name_the_key(class_name: str, settings: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        added(class_name, EVENT, **settings)
