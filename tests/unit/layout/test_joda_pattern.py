"""Joda-Time DateTimeFormat patterns (Confluent's path.format); expected texts are what Joda 2.14 prints."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.joda_pattern import JodaPattern, tokens
from lakesink.domain.layout.joda_zone import resolve_joda_zone

# 2024-02-29T07:04:05.123Z: a Thursday, day 60 of a leap year, ISO week 9.
INSTANT = 1709190245123


def fmt(pattern: str, millis: int = INSTANT, zone: str = "UTC", locale: str = "en") -> str:
    return JodaPattern.compile(pattern, resolve_joda_zone(zone), locale).format_epoch_millis(millis)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH", "year=2024/month=02/day=29/hour=07"),
        ("yyyy", "2024"),
        ("y", "2024"),
        ("yy", "24"),
        ("yyyyyy", "002024"),
        ("YYYY", "2024"),
        ("YY", "24"),
        ("xxxx", "2024"),
        ("xx", "24"),
        ("ww", "09"),
        ("w", "9"),
        ("C", "20"),
        ("CCC", "020"),
        ("M", "2"),
        ("MM", "02"),
        ("MMM", "Feb"),
        ("MMMM", "February"),
        ("MMMMM", "February"),
        ("d", "29"),
        ("ddd", "029"),
        ("D", "60"),
        ("DDDD", "0060"),
        ("e", "4"),
        ("ee", "04"),
        ("E", "Thu"),
        ("EEE", "Thu"),
        ("EEEE", "Thursday"),
        ("a", "AM"),
        ("aa", "AM"),
        ("G", "AD"),
        ("GGGG", "AD"),
        ("H", "7"),
        ("HH", "07"),
        ("HHH", "007"),
        ("h", "7"),
        ("k", "7"),
        ("K", "7"),
        ("m", "4"),
        ("mm", "04"),
        ("s", "5"),
        ("ss", "05"),
        ("S", "1"),
        ("SS", "12"),
        ("SSS", "123"),
        ("SSSSSS", "123000"),
        ("Z", "+0000"),
        ("ZZ", "+00:00"),
        ("ZZZ", "UTC"),
        ("yyyy-MM-dd'T'HH", "2024-02-29T07"),
        ("yyyyMMdd", "20240229"),
        ("dd/MM/yyyy", "29/02/2024"),
    ],
)
def test_each_letter_prints_what_joda_prints(pattern: str, expected: str) -> None:
    assert fmt(pattern) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("'it''s' yyyy", "it's 2024"),
        ("''yyyy''", "'2024'"),
        ("'unclosed yyyy", "unclosed yyyy"),  # Joda lets an unclosed quote run to the end
        ("'year'=", "year="),
        ("-_. =", "-_. ="),
    ],
)
def test_quotes_follow_joda_rules(pattern: str, expected: str) -> None:
    assert fmt(pattern) == expected


@pytest.mark.parametrize(
    ("millis", "expected"),
    [
        (1735516800000, "2024 2025 01 2024"),  # Monday 2024-12-30 starts ISO week 1 of 2025
        (1735689599999, "2024 2025 01 2024"),  # 2024-12-31T23:59:59.999Z
        (1609459200000, "2021 2020 53 2021"),  # Friday 2021-01-01 is in week 53 of 2020
        (1704067200000, "2024 2024 01 2024"),
        (1672531200000, "2023 2022 52 2023"),  # Sunday 2023-01-01
        (1798761600000, "2027 2026 53 2027"),  # Friday 2027-01-01
    ],
)
def test_upper_y_is_the_year_and_x_the_week_year_around_new_year(millis: int, expected: str) -> None:
    assert fmt("YYYY xxxx ww yyyy", millis) == expected


@pytest.mark.parametrize(
    ("millis", "pattern", "expected"),
    [
        (1709190245005, "SS", "00"),
        (1709190245050, "SS", "05"),
        (1709190245099, "S", "0"),
        (1709190245005, "SSSS", "0050"),
        (1709164800000, "k K h H", "24 0 12 0"),  # midnight
        (1709208000000, "k K h H", "12 0 12 12"),  # noon
        (-62135596800000, "yyyy", "0001"),
        (253402300799999, "YYYY-MM-dd", "9999-12-31"),
    ],
)
def test_fractions_clock_hours_and_extreme_years(millis: int, pattern: str, expected: str) -> None:
    assert fmt(pattern, millis) == expected


@pytest.mark.parametrize(
    ("zone", "pattern", "expected"),
    [
        ("Asia/Kolkata", "yyyy-MM-dd HH:mm Z", "2024-02-29 12:34 +0530"),
        ("Pacific/Chatham", "yyyy-MM-dd HH:mm", "2024-02-29 20:49"),
        ("America/Los_Angeles", "yyyy-MM-dd hh:mm a ZZ", "2024-02-28 11:04 PM -08:00"),
        ("America/St_Johns", "ZZ", "-03:30"),
        ("-03:30", "ZZZ", "-03:30"),
        ("+0530", "ZZZ", "+05:30"),
        ("UTC+02", "ZZZ", "+02:00"),
        ("+00:00", "ZZZ", "UTC"),
    ],
)
def test_fields_are_printed_in_the_zone(zone: str, pattern: str, expected: str) -> None:
    assert fmt(pattern, zone=zone) == expected


def test_a_negative_instant_is_printed_in_a_negative_offset_zone() -> None:
    assert fmt("yyyy-MM-dd HH:mm:ss", -1, zone="-08") == "1969-12-31 15:59:59"


def test_an_unknown_letter_is_joda_s_illegal_pattern_component() -> None:
    with pytest.raises(ConfigError, match=r"path\.format: Illegal pattern component: q"):
        fmt("qyyyy")


@pytest.mark.parametrize(
    ("pattern", "zone", "why"),
    [
        ("zzzz", "UTC", "zone names"),
        ("z", "UTC", "zone names"),
        ("ZZZ", "America/Los_Angeles", "canonical id"),  # Joda prints America/Los_Angeles for US/Pacific
        ("SSSSSSSSSS", "UTC", "fraction digits"),
    ],
)
def test_letters_lakesink_cannot_reproduce_are_refused(pattern: str, zone: str, why: str) -> None:
    with pytest.raises(ConfigError, match=rf"path\.format.*{why}"):
        fmt(pattern, zone=zone)


@pytest.mark.parametrize("locale", ["en_US", "en-US", "fr", "es_CL"])
def test_text_letters_need_locale_en(locale: str) -> None:
    # Java reads "en_US" as the unknown language "en_us": on JDK 17 Joda then prints "CE" for G.
    with pytest.raises(ConfigError, match="configuration locale"):
        fmt("EEE", locale=locale)


@pytest.mark.parametrize("locale", ["en_US", "es_CL", "de", "EN"])
def test_numeric_patterns_accept_any_locale(locale: str) -> None:
    assert fmt("'year'=YYYY/'month'=MM", locale=locale) == "year=2024/month=02"


def test_text_letters_accept_en_in_any_case() -> None:
    assert fmt("EEE MMM", locale="EN") == "Thu Feb"


def test_tokens_split_letter_runs_and_literals_like_joda() -> None:
    assert list(tokens("'year'=YYYY/MM'x''y'dd")) == ["year=", ("Y", 4), "/", ("M", 2), "x'y", ("d", 2)]


def test_a_compiled_pattern_survives_pickling() -> None:
    pattern = JodaPattern.compile("'year'=YYYY/'day'=EEE", resolve_joda_zone("Europe/Paris"))
    clone = pickle.loads(pickle.dumps(pattern))
    assert clone == pattern
    assert clone.format_epoch_millis(INSTANT) == pattern.format_epoch_millis(INSTANT) == "year=2024/day=Thu"


def test_instants_outside_years_1_to_9999_are_value_errors() -> None:
    with pytest.raises(ValueError, match="outside the supported range"):
        fmt("yyyy", 253402300800000)


_INSTANTS = st.integers(min_value=-62135596800000 + 14 * 3600000, max_value=253402300799999 - 14 * 3600000)


@given(_INSTANTS)
def test_the_hourly_layout_matches_the_utc_calendar(millis: int) -> None:
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=millis)
    expected = f"year={moment.year:04d}/month={moment.month:02d}/day={moment.day:02d}/hour={moment.hour:02d}"
    assert fmt("'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH", millis) == expected


@given(_INSTANTS, st.sampled_from(["+05:30", "-11:00", "+14:00", "-00:30"]))
def test_a_fixed_offset_zone_prints_the_shifted_utc_fields(millis: int, zone: str) -> None:
    sign = -1 if zone.startswith("-") else 1
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    shifted = millis + sign * (hours * 3600000 + minutes * 60000)
    assert fmt("yyyy-MM-dd HH:mm:ss.SSS", millis, zone=zone) == fmt("yyyy-MM-dd HH:mm:ss.SSS", shifted)


@given(st.text(alphabet=st.characters(exclude_characters="'"), min_size=1, max_size=20))
def test_any_quoted_text_is_printed_as_it_is(text: str) -> None:
    assert fmt(f"'{text}'") == text
