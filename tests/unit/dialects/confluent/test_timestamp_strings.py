"""Timestamp strings of the RecordField extractor: epoch-millis digits or Joda ISO-8601 date-times.

Expected millis are what Joda 2.14's ISODateTimeFormat.dateTimeParser().parseMillis returns.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.dialects.confluent.timestamps import parse_iso_instant, timestamp_from_string


@pytest.mark.parametrize(
    ("text", "millis"),
    [
        ("2024-05-08T10:15:30.123+05:30", 1715143530123),
        ("2024-05-08T10:15Z", 1715163300000),
        ("2024-05-08t10:15:30,5z", 1715163330500),
        ("2024-05-08T10:15:30.123456789-0800", 1715192130123),  # digits after the millis are dropped
        ("2024-05-08T10:15:30+05", 1715145330000),
        ("2024-05-08T10:15:30+05:30:15", 1715143515000),
        ("2024-02-29T00:00:00Z", 1709164800000),
        ("1969-12-31T23:59:59.999Z", -1),
        ("0001-01-01T00:00:00Z", -62135596800000),
    ],
)
def test_common_iso_forms_give_joda_s_instant(text: str, millis: int) -> None:
    assert parse_iso_instant(text) == millis
    assert timestamp_from_string(text) == millis


@pytest.mark.parametrize(
    ("text", "millis"),
    [
        ("1715163300000", 1715163300000),
        ("-5", -5),
        ("007", 7),
        ("2024", 2024),  # digits always mean millis, even when they look like a year
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
    ],
)
def test_digit_strings_are_epoch_millis(text: str, millis: int) -> None:
    assert timestamp_from_string(text) == millis


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-08T10:15:30",  # no offset: Joda would use the JVM's default zone
        "2024-05-08",  # same
        "2024-05-08T10Z",  # Joda accepts an hour alone; lakesink refuses the rare forms
        "2024-5-8T10:15Z",
        "2024-W19-3T10:15Z",
        "2024-129T10:15Z",
        "+2024-05-08T10:15Z",
        "2024-05-08T10:15:30.5+05:30:15.5",
        "2023-02-29T00:00:00Z",  # Joda: value 29 for dayOfMonth must be in the range [1,28]
        "2024-05-08T24:00:00Z",
        "2024-05-08T10:60Z",
        "2024-05-08T10:15+24:00",
        "2024-05-08 10:15Z",
        "9223372036854775808",  # beyond a long, and not ISO either
        "１２３",  # non-ASCII digits
        "",
        "yesterday",
    ],
)
def test_other_strings_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="Invalid format"):
        timestamp_from_string(text)


_MOMENTS = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30))
_OFFSETS = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59)


@given(_MOMENTS, _OFFSETS)
def test_iso_text_round_trips_through_python_s_own_parser(moment: datetime, offset_minutes: int) -> None:
    zone = timezone(timedelta(minutes=offset_minutes))
    local = moment.replace(microsecond=moment.microsecond // 1000 * 1000, tzinfo=zone)
    text = local.isoformat(timespec="milliseconds")
    expected = (local - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)
    assert parse_iso_instant(text) == expected
