"""Lenses' wall-clock header SMTs, with a fixed clock."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.records import Record
from lakesink.domain.transforms.registry import build_chain
from tests.support.clocks import ManualClock

HEADER = "io.lenses.connect.smt.header."

# 2024-03-01T10:15:30.250Z
NOW_MS = 1_709_288_130_250


RECORD = Record("clicks", 1, 9, timestamp=5, value=b"v", headers=(("a", "1"),))


def header_after(class_name: str, now: int = NOW_MS, **settings: str) -> object:
    props = {"transforms": "w", "transforms.w.type": HEADER + class_name, "transforms.w.header.name": "at"}
    props |= {f"transforms.w.{key.replace('_', '.')}": value for key, value in settings.items()}
    chain = build_chain(props, ManualClock(now))
    assert chain.reads_wall_clock == ("w",)
    result = chain.apply(RECORD)
    assert result is not None
    assert result.headers[:-1] == RECORD.headers and result.value == b"v"
    return result.header("at")


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (NOW_MS, "2024-03-01T10:15:30.25"),
        (NOW_MS - 250, "2024-03-01T10:15:30"),
        (NOW_MS - 249, "2024-03-01T10:15:30.001"),
    ],
)
def test_insert_wallclock_defaults_to_iso_local_date_time(now: int, expected: str) -> None:
    assert header_after("InsertWallclock", now) == expected


def test_insert_wallclock_formats_in_the_timezone() -> None:
    assert header_after("InsertWallclock", format="yyyy-MM-dd HH:mm", timezone="America/New_York") == (
        "2024-03-01 05:15"
    )


def test_insert_wallclock_epoch_is_a_string_of_milliseconds() -> None:
    assert header_after("InsertWallclock", value_type="EPOCH") == "1709288130250"


def test_insert_rolling_wallclock_defaults_to_fifteen_minute_windows() -> None:
    assert header_after("InsertRollingWallclock", format="HH:mm:ss.SSS") == "10:15:00.000"
    assert header_after("InsertRollingWallclock", value_type="epoch") == str(NOW_MS - 30_250)


def test_insert_rolling_wallclock_windows_are_aligned_on_utc_not_the_timezone() -> None:
    result = header_after(
        "InsertRollingWallclock",
        format="HH:mm",
        timezone="Asia/Kolkata",
        rolling_window_type="HOURS",
        rolling_window_size="1",
    )
    assert result == "15:30"  # 10:00 UTC, the window start, is 15:30 in India
    seconds = header_after(
        "InsertRollingWallclock", format="ss.SSS", rolling_window_type="seconds", rolling_window_size="20"
    )
    assert seconds == "20.000"


@pytest.mark.parametrize(
    ("part", "expected"),
    [("year", "2024"), ("MONTH", "3"), ("day", "1"), ("hour", "19"), ("minute", "15"), ("second", "30")],
)
def test_insert_wallclock_date_time_part_is_unpadded(part: str, expected: str) -> None:
    assert header_after("InsertWallclockDateTimePart", date_time_part=part, timezone="Asia/Tokyo") == expected


@pytest.mark.parametrize(
    ("class_name", "settings", "message"),
    [
        ("InsertWallclock", {"value_type": "string"}, r"transforms\.w\.value\.type"),
        (
            "InsertWallclock",
            {"value_type": "epoch", "timezone": "Europe/Paris"},
            r"transforms\.w\.timezone must be UTC",
        ),
        ("InsertWallclock", {"format": "yyyy-{MM}"}, r"transforms\.w\.format"),
        ("InsertWallclock", {"timezone": "Nowhere/Else"}, r"transforms\.w\.timezone"),
        (
            "InsertWallclock",
            {"rolling_window_type": "hours"},
            r"Unknown option transforms\.w\.rolling\.window\.type",
        ),
        (
            "InsertRollingWallclock",
            {"rolling_window_type": "none"},
            r"'none' for transforms\.w\.rolling\.window\.type",
        ),
        (
            "InsertRollingWallclock",
            {"rolling_window_type": "hours", "rolling_window_size": "25"},
            r"transforms\.w\.rolling\.window\.size: must be at most 24",
        ),
        ("InsertRollingWallclock", {"rolling_window_size": "0"}, r"must be a positive integer"),
        ("InsertWallclockDateTimePart", {}, r"transforms\.w\.date\.time\.part is required"),
        ("InsertWallclockDateTimePart", {"date_time_part": "week"}, r"transforms\.w\.date\.time\.part"),
    ],
)
def test_configuration_errors_name_the_key(class_name: str, settings: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        header_after(class_name, **settings)


def test_the_header_name_is_required() -> None:
    props = {"transforms": "w", "transforms.w.type": HEADER + "InsertWallclock"}
    with pytest.raises(ConfigError, match=r"transforms\.w\.header\.name is required"):
        build_chain(props, ManualClock(NOW_MS))
