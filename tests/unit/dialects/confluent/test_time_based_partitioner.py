"""TimeBasedPartitioner, DailyPartitioner and HourlyPartitioner: golden encoded partitions.

Every expected value was checked against Joda-Time 2.14 running Confluent's bucket formula
(convertUTCToLocal, Java long division, convertLocalToUTC(local, false), DateTime.toString).
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.dialects.confluent.partitioners import (
    DailyPartitioner,
    HourlyPartitioner,
    TimeBasedPartitioner,
    partitioner_from_settings,
)
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record

HOURLY_FORMAT = "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH"
# 2024-02-29T07:04:05.123Z
INSTANT = 1709190245123


def time_based(duration: int, path_format: str, timezone: str, **extra: str) -> TimeBasedPartitioner:
    settings = {
        "partition.duration.ms": str(duration),
        "path.format": path_format,
        "locale": "en",
        "timezone": timezone,
        "timestamp.extractor": "Record",
        **extra,
    }
    return TimeBasedPartitioner.from_settings(settings)


def at(millis: int | None, value: object = None, schema: object = None) -> Record:
    return Record("events", 3, 42, timestamp=millis, value=value, value_schema=schema)


@pytest.mark.parametrize(
    ("duration", "path_format", "timezone", "millis", "expected"),
    [
        (3_600_000, HOURLY_FORMAT, "America/Los_Angeles", INSTANT, "year=2024/month=02/day=28/hour=23"),
        (3_600_000, HOURLY_FORMAT, "UTC", INSTANT, "year=2024/month=02/day=29/hour=07"),
        # 15-minute buckets on the Kolkata (+05:30) local time line: 12:34:05 -> 12:30.
        (900_000, "YYYY-MM-dd/HH-mm", "Asia/Kolkata", INSTANT, "2024-02-29/12-30"),
        # 2-day buckets start on even local days since 1970-01-01 (local).
        (172_800_000, "'day'=YYYY-MM-dd", "UTC", INSTANT, "day=2024-02-29"),
        (172_800_000, "'day'=YYYY-MM-dd", "UTC", INSTANT + 86_400_000, "day=2024-02-29"),
        (172_800_000, "'day'=YYYY-MM-dd", "America/Los_Angeles", INSTANT, "day=2024-02-27"),
        (604_800_000, "'year'=YYYY", "UTC", INSTANT, "year=2024"),
        (
            900_000,
            "'date'=yyyy-MM-dd/'minute'=HHmm",
            "+02:00",
            1_700_000_000_000,
            "date=2023-11-15/minute=0000",
        ),
        # Java's long division rounds toward zero: before 1970 a bucket starts *after* the record.
        (3_600_000, "yyyy-MM-dd HH", "UTC", -1, "1970-01-01 00"),
        (3_600_000, "yyyy-MM-dd HH", "UTC", -3_600_001, "1969-12-31 23"),
        (86_400_000, "yyyy-MM-dd", "UTC", -86_400_001, "1969-12-31"),
    ],
)
def test_golden_buckets(duration: int, path_format: str, timezone: str, millis: int, expected: str) -> None:
    partitioner = time_based(duration, path_format, timezone, **{"timestamp.extractor": "Wallclock"})
    assert partitioner.encode_partition(at(None), millis) == expected


@pytest.mark.parametrize(
    ("timezone", "duration", "millis", "expected"),
    [
        # New York springs forward 2024-03-10 02:00 -> 03:00.
        ("America/New_York", 3_600_000, 1710053999999, "01:00-05:00"),  # 01:59:59.999 EST
        ("America/New_York", 3_600_000, 1710055800000, "03:00-04:00"),  # 03:30 EDT
        # New York falls back 2024-11-03 02:00 -> 01:00: both 01:30s share the first 01:00 bucket.
        ("America/New_York", 3_600_000, 1730611800000, "01:00-04:00"),  # 01:30 EDT
        ("America/New_York", 3_600_000, 1730615400000, "01:00-04:00"),  # 01:30 EST
        # Santiago skips midnight on 2024-09-08: the day's bucket starts at 01:00 -03:00.
        ("America/Santiago", 86_400_000, 1725771600000, "01:00-03:00"),
        # Beirut skips midnight on 2024-03-31 (east of Greenwich: same result by the other rule).
        ("Asia/Beirut", 86_400_000, 1711845000000, "01:00+03:00"),
        # Lord Howe moves 30 minutes at 02:00 on 2024-10-06: the 02:00 hour starts at 02:30.
        ("Australia/Lord_Howe", 3_600_000, 1728143100000, "02:30+11:00"),
        ("Australia/Lord_Howe", 900_000, 1728143100000, "02:45+11:00"),
    ],
)
def test_buckets_across_daylight_saving_changes(
    timezone: str, duration: int, millis: int, expected: str
) -> None:
    assert time_based(duration, "HH:mmZZ", timezone).encode_partition(at(millis), 0) == expected


def test_hourly_in_santiago_keeps_the_local_day_across_the_offset_change() -> None:
    partitioner = HourlyPartitioner.from_settings(
        {"timezone": "America/Santiago", "locale": "es_CL", "timestamp.extractor": "Record"}
    )
    # 2024-05-09T03:17:33Z is 23:17 on the 8th at UTC-4; 2024-01-28T03:17:33Z is 00:17 at UTC-3.
    assert partitioner.encode_partition(at(1715224653000), 0) == "year=2024/month=05/day=08/hour=23"
    assert partitioner.encode_partition(at(1706411853000), 0) == "year=2024/month=01/day=28/hour=00"


def test_daily_buckets_start_at_local_midnight() -> None:
    settings = {"timezone": "Europe/Paris", "locale": "en_US", "timestamp.extractor": "Record"}
    # 2024-03-31T01:00:00Z is 03:00 CEST on the 31st (the night Paris springs forward).
    assert DailyPartitioner.from_settings(settings).encode_partition(at(1711846800000), 0) == (
        "year=2024/month=03/day=31"
    )


def test_daily_and_hourly_use_the_directory_delimiter_and_ignore_path_settings() -> None:
    settings = {
        "timezone": "UTC",
        "locale": "en",
        "directory.delim": "_",
        "path.format": "ignored",
        "partition.duration.ms": "5",
        "timestamp.extractor": "Record",
    }
    assert (
        DailyPartitioner.from_settings(settings).encode_partition(at(INSTANT), 0)
        == "year=2024_month=02_day=29"
    )
    hourly = HourlyPartitioner.from_settings(settings)
    assert hourly.duration_ms == 3_600_000
    assert hourly.encode_partition(at(INSTANT), 0) == "year=2024_month=02_day=29_hour=07"


def test_the_partitioner_class_setting_picks_the_partitioner() -> None:
    settings = {
        "partitioner.class": "io.confluent.connect.storage.partitioner.HourlyPartitioner",
        "timezone": "UTC",
        "locale": "en",
        "timestamp.extractor": "Record",
    }
    partitioner = partitioner_from_settings(settings)
    assert isinstance(partitioner, HourlyPartitioner)
    assert partitioner.encode_partition(at(INSTANT), 0) == "year=2024/month=02/day=29/hour=07"


def test_a_trailing_delimiter_in_the_path_format_is_dropped() -> None:
    partitioner = time_based(3_600_000, "'year='YYYY/", "UTC")
    assert partitioner.pattern.pattern == "'year='YYYY"
    assert partitioner.encode_partition(at(INSTANT), 0) == "year=2024"


# --- timestamp extractors ---------------------------------------------------------------------


def test_wallclock_uses_the_batch_clock_the_caller_passes() -> None:
    partitioner = time_based(3_600_000, HOURLY_FORMAT, "UTC", **{"timestamp.extractor": "Wallclock"})
    assert partitioner.encode_partition(at(None), INSTANT) == "year=2024/month=02/day=29/hour=07"


def test_wallclock_is_the_default_extractor() -> None:
    settings = {"partition.duration.ms": "3600000", "path.format": "HH", "locale": "en", "timezone": "UTC"}
    assert TimeBasedPartitioner.from_settings(settings).encode_partition(at(None), INSTANT) == "07"


@pytest.mark.parametrize("timestamp", [None, -1])
def test_the_record_extractor_needs_a_record_timestamp(timestamp: int | None) -> None:
    with pytest.raises(RecordError, match="events-3@42: Unable to determine timestamp"):
        time_based(3_600_000, HOURLY_FORMAT, "UTC").encode_partition(at(timestamp), INSTANT)


EVENT_SCHEMA = {
    "type": "record",
    "name": "Event",
    "fields": [
        {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "epoch", "type": "long"},
        {"name": "small", "type": "int"},
        {"name": "text", "type": ["null", "string"]},
        {"name": "ratio", "type": "double"},
        {
            "name": "meta",
            "type": {"type": "record", "name": "Meta", "fields": [{"name": "at", "type": "long"}]},
        },
    ],
}


def record_field(field: str) -> TimeBasedPartitioner:
    extra = {"timestamp.extractor": "RecordField", "timestamp.field": field}
    return time_based(3_600_000, "yyyy-MM-dd'T'HH", "UTC", **extra)


def event(**fields: object) -> dict[str, object]:
    from datetime import UTC, datetime

    base: dict[str, object] = {
        "created": datetime(2024, 2, 29, 7, 4, 5, 123000, tzinfo=UTC),
        "epoch": INSTANT,
        "small": 3600000,
        "text": "2024-05-08T10:15:30.123+05:30",
        "ratio": 1.5,
        "meta": {"at": 1715163300000},
    }
    return base | fields


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("created", "2024-02-29T07"),  # a Connect Timestamp
        ("epoch", "2024-02-29T07"),  # INT64 millis
        ("small", "1970-01-01T01"),  # INT32 millis
        ("text", "2024-05-08T04"),  # ISO-8601 with an offset
        ("meta.at", "2024-05-08T10"),  # nested struct
    ],
)
def test_record_field_reads_struct_fields(field: str, expected: str) -> None:
    assert record_field(field).encode_partition(at(None, event(), EVENT_SCHEMA), 0) == expected


def test_record_field_reads_digit_strings_as_epoch_millis() -> None:
    record = at(None, event(text="1709190245123"), EVENT_SCHEMA)
    assert record_field("text").encode_partition(record, 0) == "2024-02-29T07"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("ratio", event(), "Error extracting timestamp from record field: ratio"),
        ("text", event(text=None), "The field 'text' does not exist"),
        ("text", event(text="2024-05-08T10:15:30"), "Error extracting timestamp from record field: text"),
        ("text", event(text="yesterday"), "Invalid format"),
        ("nope", event(), "The field 'nope' does not exist"),
        ("meta", event(), "Error extracting timestamp from record field: meta"),
    ],
)
def test_record_field_refuses_what_cannot_be_a_timestamp(field: str, value: object, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        record_field(field).encode_partition(at(None, value, EVENT_SCHEMA), 0)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"ts": INSTANT}, "2024-02-29T07"),
        ({"ts": 1709190245123.9}, "2024-02-29T07"),  # Number.longValue truncates
        ({"ts": "2024-02-29T07:59:59.999Z"}, "2024-02-29T07"),
        ({"ts": "-1"}, "1970-01-01T00"),  # long division rounds toward zero
        ({"deep": {"ts": INSTANT}}, "2024-02-29T07"),
    ],
)
def test_record_field_reads_schemaless_maps(value: Mapping[str, object], expected: str) -> None:
    field = "deep.ts" if "deep" in value else "ts"
    assert record_field(field).encode_partition(at(None, value), 0) == expected


@pytest.mark.parametrize("value", [{"ts": True}, {"ts": None}, {"other": 1}, {"ts": [1]}, "text", None])
def test_record_field_refuses_other_map_values_and_non_maps(value: object) -> None:
    with pytest.raises(RecordError):
        record_field("ts").encode_partition(at(None, value), 0)


# --- configuration ----------------------------------------------------------------------------


BASE = {"partition.duration.ms": "3600000", "path.format": "HH", "locale": "en", "timezone": "UTC"}


@pytest.mark.parametrize(
    ("changes", "key", "message"),
    [
        ({"partition.duration.ms": "-1"}, "partition.duration.ms", "needs to be a positive"),
        ({"partition.duration.ms": "0"}, "partition.duration.ms", "at least 1 ms"),
        ({"partition.duration.ms": "soon"}, "partition.duration.ms", "Not a number of type LONG"),
        ({"partition.duration.ms": "9223372036854775808"}, "partition.duration.ms", "LONG"),
        ({"path.format": ""}, "path.format", "Path format cannot be empty"),
        ({"path.format": "  "}, "path.format", "Path format cannot be empty"),
        ({"path.format": "/"}, "path.format", "Path format cannot be empty"),
        ({"path.format": "'..'/HH"}, "path.format", r"'\.' or '\.\.' path segment"),
        ({"path.format": "'a\tb'HH"}, "path.format", "control character"),
        ({"path.format": "qHH"}, "path.format", "Illegal pattern component: q"),
        ({"locale": ""}, "locale", "Locale cannot be empty"),
        ({"locale": "en_US", "path.format": "EEE"}, "locale", "only for locale 'en'"),
        ({"timezone": " "}, "timezone", "Timezone cannot be empty"),
        ({"timezone": "Mars/Olympus"}, "timezone", "is not recognised"),
        ({"timestamp.extractor": "com.example.MyExtractor"}, "", "Invalid timestamp extractor"),
        ({"timestamp.extractor": "RecordField", "timestamp.field": "a..b"}, "timestamp.field", "empty"),
        ({"directory.delim": "\x7f"}, "directory.delim", "control characters"),
    ],
)
def test_configuration_errors_name_the_setting(changes: dict[str, str], key: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as error:
        TimeBasedPartitioner.from_settings(BASE | changes)
    assert key in str(error.value)


def test_a_missing_duration_is_the_negative_default() -> None:
    settings = {key: value for key, value in BASE.items() if key != "partition.duration.ms"}
    with pytest.raises(ConfigError, match="partition.duration.ms: Partition duration needs to be a positive"):
        TimeBasedPartitioner.from_settings(settings)


def test_extractor_class_names_are_accepted_in_full() -> None:
    name = "io.confluent.connect.storage.partitioner.TimeBasedPartitioner$RecordTimestampExtractor"
    partitioner = TimeBasedPartitioner.from_settings(BASE | {"timestamp.extractor": name})
    assert partitioner.encode_partition(at(INSTANT), 0) == "07"


def test_an_unknown_partitioner_class_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="partitioner.class"):
        partitioner_from_settings({"partitioner.class": "com.example.MyPartitioner"})


def test_a_partitioner_survives_pickling() -> None:
    partitioner = time_based(900_000, HOURLY_FORMAT, "America/Santiago")
    clone = pickle.loads(pickle.dumps(partitioner))
    assert clone == partitioner
    assert clone.encode_partition(at(INSTANT), 0) == partitioner.encode_partition(at(INSTANT), 0)


@given(
    st.integers(min_value=345_600_000, max_value=4_102_444_800_000),
    st.sampled_from([60_000, 900_000, 3_600_000, 7_200_000, 86_400_000, 172_800_000]),
    st.sampled_from(["UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe"]),
)
def test_a_bucket_starts_at_or_before_its_record_within_one_duration_plus_an_offset_change(
    millis: int, duration: int, timezone: str
) -> None:
    partitioner = time_based(duration, "HH", timezone)
    start = partitioner.bucket_start(millis)
    assert millis - duration - 3_600_000 < start <= millis + 3_600_000
    assert partitioner.bucket_start(start) == start  # a bucket start is its own bucket


@given(
    st.lists(
        st.integers(min_value=1_700_000_000_000, max_value=1_700_000_000_000 + 5 * 86_400_000), max_size=30
    )
)
def test_consecutive_records_get_the_same_text_as_a_fresh_partitioner(stamps: list[int]) -> None:
    shared = time_based(900_000, "yyyy-MM-dd'T'HH:mmZZ", "Europe/London")
    for millis in stamps:
        fresh = time_based(900_000, "yyyy-MM-dd'T'HH:mmZZ", "Europe/London")
        assert shared.encode_partition(at(millis), 0) == fresh.encode_partition(at(millis), 0)
