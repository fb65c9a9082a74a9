"""Java DateTimeFormatter.ofPattern semantics; expected strings are what OpenJDK 17 prints."""

from __future__ import annotations

import pickle

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.datetime_pattern import DateTimePattern

# 2024-02-29T07:04:05.123Z, a Thursday, day 60 of a leap year, first quarter.
INSTANT = 1709190245123


def fmt(pattern: str, millis: int = INSTANT, zone: str = "UTC") -> str:
    return DateTimePattern.compile(pattern, zone).format_epoch_millis(millis)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("uuuu", "2024"),
        ("LL", "02"),
        ("dd", "29"),
        ("HH", "07"),
        ("yyyy-MM-dd-HH", "2024-02-29-07"),
        ("EEE", "Thu"),
        ("EEEE", "Thursday"),
        ("MMM", "Feb"),
        ("MMMM", "February"),
        ("a", "AM"),
        ("SSS", "123"),
        ("S", "1"),
        ("SSSSSS", "123000"),
        ("yy", "24"),
        ("y", "2024"),
        ("yyyyy", "02024"),
        ("D", "60"),
        ("DD", "60"),
        ("DDD", "060"),
        ("d", "29"),
        ("M", "2"),
        ("q", "1"),
        ("QQQ", "Q1"),
        ("QQQQ", "1st quarter"),
        ("G", "AD"),
        ("GGGG", "Anno Domini"),
        ("h", "7"),
        ("hh", "07"),
        ("K", "7"),
        ("k", "7"),
        ("H", "7"),
        ("m", "4"),
        ("s", "5"),
        ("n", "123000000"),
        ("A", "25445123"),
        ("N", "25445123000000"),
        ("g", "60369"),
        ("VV", "UTC"),
        ("z", "UTC"),
        ("zzzz", "Coordinated Universal Time"),
        ("O", "GMT"),
        ("X", "Z"),
        ("x", "+00"),
        ("Z", "+0000"),
        ("XXX", "Z"),
        ("yyyy-MM-dd'T'HH:mm:ss", "2024-02-29T07:04:05"),
        ("'year='uuuu/'month='MM", "year=2024/month=02"),
        ("''", "'"),
        ("'it''s'", "it's"),
        ("[uuuu]", "2024"),
    ],
)
def test_pattern_prints_what_java_prints_in_utc(pattern: str, expected: str) -> None:
    assert fmt(pattern) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("HH:mm", "12:34"),
        ("VV", "Asia/Kolkata"),
        ("O", "GMT+5:30"),
        ("OOOO", "GMT+05:30"),
        ("X", "+0530"),
        ("XX", "+0530"),
        ("XXX", "+05:30"),
        ("XXXX", "+0530"),
        ("x", "+0530"),
        ("xxxxx", "+05:30"),
        ("Z", "+0530"),
        ("ZZZZ", "GMT+05:30"),
        ("ZZZZZ", "+05:30"),
        ("yyyy-MM-dd-HH", "2024-02-29-12"),
    ],
)
def test_offsets_and_zone_ids_print_like_java_in_a_half_hour_zone(pattern: str, expected: str) -> None:
    assert fmt(pattern, zone="Asia/Kolkata") == expected


def test_clock_hours_at_midnight_follow_java() -> None:
    assert fmt("yyyy-MM-dd HH:mm:ss.SSS k K h a", millis=0) == "1970-01-01 00:00:00.000 24 0 12 AM"


def test_afternoon_hours_follow_java() -> None:
    assert fmt("k h K a HH", millis=1709236799999) == "19 7 7 PM 19"


def test_region_zone_applies_daylight_saving_time() -> None:
    assert (
        fmt("yyyy-MM-dd HH XXX O", millis=1719792000000, zone="Europe/Paris") == "2024-07-01 02 +02:00 GMT+2"
    )
    assert fmt("yyyy-MM-dd HH", zone="America/New_York") == "2024-02-29 02"


def test_fixed_offset_zone_prints_its_id_as_zone_name() -> None:
    assert fmt("VV z zzzz O X", zone="+05:45") == "+05:45 +05:45 +05:45 GMT+5:45 +0545"


def test_gmt_zone_has_java_names() -> None:
    assert fmt("VV z zzzz", zone="GMT") == "GMT GMT Greenwich Mean Time"


def test_negative_timestamps_are_before_the_epoch() -> None:
    assert fmt("yyyy-MM-dd HH:mm:ss.SSS", millis=-1) == "1969-12-31 23:59:59.999"


def test_lenses_integration_layout_date_parts() -> None:
    assert [fmt(p, millis=1270166400000) for p in ("uuuu", "LL", "dd")] == ["2010", "04", "02"]


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("ddd", "Too many pattern letters: d"),
        ("aa", "Too many pattern letters: a"),
        ("MMMMMM", "Too many pattern letters: M"),
        ("DDDD", "Too many pattern letters: D"),
        ("V", "Pattern letter count must be 2: V"),
        ("OO", "Pattern letter count must be 1 or 4: O"),
        ("XXXXXX", "Too many pattern letters: X"),
        ("b", "Unknown pattern letter: b"),
        ("T", "Unknown pattern letter: T"),
        ("yyyy-'MM", "Pattern ends with an incomplete string literal"),
        ("yyyy]", "Pattern invalid as it contains ] without previous ["),
        ("#", "Pattern includes reserved character: '#'"),
        ("{yyyy", "Pattern includes reserved character: '{'"),
        ("SSSSSSSSSS", "Minimum width must be from 0 to 9 inclusive but was 10"),
    ],
)
def test_patterns_java_rejects_are_config_errors_with_javas_reason(pattern: str, reason: str) -> None:
    with pytest.raises(ConfigError) as error:
        DateTimePattern.compile(pattern)
    assert reason in str(error.value)
    assert repr(pattern) in str(error.value)


@pytest.mark.parametrize("letter", ["Y", "w", "W", "e", "c", "F", "B", "v", "p"])
def test_letters_lakesink_cannot_reproduce_exactly_are_rejected_naming_the_letter(letter: str) -> None:
    with pytest.raises(ConfigError, match=f"pattern letter '{letter}' is not supported"):
        DateTimePattern.compile(f"yyyy{letter}")


def test_zone_names_of_region_zones_are_rejected() -> None:
    with pytest.raises(ConfigError, match="'z' is not supported by lakesink for zone 'Europe/Paris'"):
        DateTimePattern.compile("HH z", "Europe/Paris")


def test_eleven_year_letters_are_rejected_because_java_cannot_print_them() -> None:
    with pytest.raises(ConfigError, match="Java fails to print it"):
        DateTimePattern.compile("u" * 11)


@pytest.mark.parametrize("zone", ["Mars/Olympus", "+25:00", "+5", "", "05:00"])
def test_unknown_zone_names_the_timezone_setting(zone: str) -> None:
    with pytest.raises(ConfigError, match="partition.date.timezone"):
        DateTimePattern.compile("HH", zone)


def test_timestamp_outside_python_years_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="outside the supported range"):
        fmt("uuuu", millis=300_000_000_000_000)


def test_compiled_pattern_survives_pickling_and_compares_by_pattern_and_zone() -> None:
    pattern = DateTimePattern.compile("yyyy-MM-dd-HH", "Europe/Paris")
    clone = pickle.loads(pickle.dumps(pattern))
    assert clone == pattern and hash(clone) == hash(pattern)
    assert clone.format_epoch_millis(INSTANT) == "2024-02-29-08"
    assert pattern != DateTimePattern.compile("yyyy-MM-dd-HH", "UTC")
