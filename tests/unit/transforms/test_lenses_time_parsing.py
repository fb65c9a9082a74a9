"""format.from.pattern parsing: Java's strict LocalDateTime.parse with the SMART resolver."""

from __future__ import annotations

from datetime import datetime

import pytest

from lakesink.domain.layout.datetime_pattern import PatternError
from lakesink.domain.transforms.lenses_time_parsing import LocalDateTimePattern


def parse(pattern: str, text: str) -> datetime | None:
    return LocalDateTimePattern.compile(pattern).parse(text)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("yyyy-MM-dd HH:mm:ss.SSS", "2021-06-15 08:30:05.407", datetime(2021, 6, 15, 8, 30, 5, 407_000)),
        ("yyyyMMddHHmmssSSS", "20210615083005407", datetime(2021, 6, 15, 8, 30, 5, 407_000)),
        ("yyyy-MM-dd HH", "2021-06-15 08", datetime(2021, 6, 15, 8)),
        ("uuuu-DDD'T'HH:mm", "2021-166T08:30", datetime(2021, 6, 15, 8, 30)),
        ("d MMMM yy, h:mm a", "5 June 21, 12:10 AM", datetime(2021, 6, 5, 0, 10)),
        ("EEEE d MMM yyyy k:mm", "Tuesday 15 Jun 2021 24:05", datetime(2021, 6, 15, 0, 5)),
        (
            "yyyy-MM-dd HH:mm:ss.SSSSSS",
            "2021-06-15 08:30:05.999999",
            datetime(2021, 6, 15, 8, 30, 5, 999_000),
        ),
        ("yyyy-MM-dd HH:mm VV", "2021-06-15 08:30 Europe/Oslo", datetime(2021, 6, 15, 8, 30)),
        ("yyyy-MM-dd HH:mm Z", "2021-06-15 08:30 -0700", datetime(2021, 6, 15, 8, 30)),
        ("''yyyy'' MM dd HH", "'2021' 06 15 08", datetime(2021, 6, 15, 8)),
    ],
)
def test_patterns_parse_to_local_date_times(pattern: str, text: str, expected: datetime) -> None:
    assert parse(pattern, text) == expected


def test_the_smart_resolver_clamps_days_and_reads_24_00_as_the_next_midnight() -> None:
    assert parse("yyyy-MM-dd HH:mm", "2021-02-31 10:00") == datetime(2021, 2, 28, 10)
    assert parse("yyyy-MM-dd HH:mm", "2021-12-31 24:00") == datetime(2022, 1, 1)
    assert parse("yyyy-MM-dd HH:mm", "2021-12-31 24:01") is None


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyy-MM-dd HH:mm", "2021-6-15 08:30"),  # MM is exactly two digits
        ("yyyy-MM-dd HH:mm", "02021-06-15 08:30"),  # five year digits need a '+'
        ("yyyy-MM-dd HH:mm", "2021-13-15 08:30"),
        ("yyyy-MM-dd HH:mm", "2021-06-15 08:60"),
        ("yyyy-MM-dd HH:mm", "2021-06-15 08:30 "),  # trailing text
        ("EEE yyyy-MM-dd HH", "Mon 2021-06-15 08"),  # 15 June 2021 was a Tuesday
        ("MMM yyyy dd HH", "jun 2021 15 08"),  # text is case-sensitive
        ("D yyyy HH", "366 2021 08"),
    ],
)
def test_texts_java_rejects_do_not_match(pattern: str, text: str) -> None:
    assert parse(pattern, text) is None


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("yyyy-MM-dd", "no hour"),
        ("MM-dd HH", "no complete date"),
        ("yyyy-MM-dd hh:mm", "need the AM/PM marker"),
        ("yyyy-MM-dd HH:ss", "seconds need minutes"),
        ("yyyy-MM-dd[ HH]", "not supported"),
        ("yyyy-MM-dd HH 'x", "incomplete string literal"),
        ("YYYY-MM-dd HH", "not supported for parsing"),
    ],
)
def test_patterns_that_cannot_parse_a_local_date_time_are_refused(pattern: str, reason: str) -> None:
    with pytest.raises(PatternError, match=reason):
        LocalDateTimePattern.compile(pattern)
