"""TimestampConverter and TimestampRouter behave as Kafka's (SimpleDateFormat patterns, UTC)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record
from lakesink.domain.transforms.kafka_date_format import SimpleDateFormat

# 2019-03-04T05:06:07.089Z
MILLIS = 1551675967089
MOMENT = datetime(2019, 3, 4, 5, 6, 7, 89000, tzinfo=UTC)
PATTERN = "yyyy-MM-dd HH:mm:ss.SSS z"
TEXT = "2019-03-04 05:06:07.089 UTC"


def rec(value: object, schema: object = None, timestamp: int | None = MILLIS) -> Record:
    return Record("events", 0, 0, timestamp, None, value, (), None, schema)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("Timestamp", MOMENT),
        ("Date", date(2019, 3, 4)),
        ("Time", time(5, 6, 7, 89000)),
        ("unix", MILLIS),
        ("string", TEXT),
    ],
)
@pytest.mark.parametrize("source", [MILLIS, TEXT, MOMENT])
def test_schemaless_whole_value_converts_between_every_type(smt, source, target, expected):
    chain = smt("TimestampConverter$Value", **{"target.type": target, "format": PATTERN})
    assert chain.apply(rec(source)).value == expected


@pytest.mark.parametrize(
    ("precision", "unix"),
    [
        ("seconds", 1551675967),
        ("milliseconds", MILLIS),
        ("microseconds", MILLIS * 1000),
        ("nanoseconds", MILLIS * 10**6),
    ],
)
def test_unix_precision_applies_both_ways(smt, precision, unix):
    to_unix = smt("TimestampConverter$Value", **{"target.type": "unix", "unix.precision": precision})
    assert to_unix.apply(rec(MOMENT)).value == unix
    from_unix = smt("TimestampConverter$Value", **{"target.type": "Timestamp", "unix.precision": precision})
    expected = MOMENT.replace(microsecond=0) if precision == "seconds" else MOMENT
    assert from_unix.apply(rec(unix)).value == expected


def test_schemaless_field_conversion_adds_the_field_even_when_missing(smt):
    chain = smt("TimestampConverter$Value", field="at", **{"target.type": "Date"})
    assert chain.apply(rec({"at": MILLIS, "x": 1})).value == {"at": date(2019, 3, 4), "x": 1}
    assert chain.apply(rec({"x": 1})).value == {"x": 1, "at": None}
    assert chain.apply(rec(None)).value is None


def test_with_schema_the_field_type_follows_the_target(smt):
    schema = {
        "type": "record",
        "name": "Event",
        "fields": [
            {"name": "at", "type": ["null", "string"], "default": None},
            {"name": "n", "type": "int"},
        ],
    }
    chain = smt("TimestampConverter$Value", field="at", format=PATTERN, **{"target.type": "Timestamp"})
    out = chain.apply(rec({"at": TEXT, "n": 1}, schema))
    assert out.value == {"at": MOMENT, "n": 1}
    assert out.value_schema["fields"][0]["type"] == [
        "null",
        {"type": "long", "logicalType": "timestamp-millis"},
    ]
    assert out.value_schema["name"] == "Event"
    whole = smt("TimestampConverter$Value", **{"target.type": "unix"})
    out = whole.apply(rec(MOMENT, {"type": "long", "logicalType": "timestamp-millis"}))
    assert (out.value, out.value_schema) == (MILLIS, "long")


def test_with_schema_a_non_timestamp_type_fails(smt):
    chain = smt("TimestampConverter$Value", **{"target.type": "unix"})
    with pytest.raises(RecordError, match="does not correspond to a known timestamp type"):
        chain.apply(rec(3, "int"))


def test_bad_values_fail(smt):
    chain = smt("TimestampConverter$Value", format="yyyy-MM-dd", **{"target.type": "unix"})
    with pytest.raises(RecordError, match="does not match pattern"):
        chain.apply(rec("March 4th"))
    with pytest.raises(RecordError, match="does not support"):
        chain.apply(rec(1.5))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, r"transforms\.x\.target\.type is required"),
        ({"target.type": "timestamp"}, "expected one of"),
        ({"target.type": "string"}, r"transforms\.x\.format is required"),
        ({"target.type": "unix", "unix.precision": "minutes"}, "expected one of"),
        ({"target.type": "unix", "format": "yyyy-bb"}, "Illegal pattern character 'b'"),
        ({"target.type": "unix", "format": "'open"}, "Unterminated quote"),
        ({"target.type": "unix", "format": "YYYY"}, "not supported"),
    ],
)
def test_converter_config_errors(smt, options, message):
    with pytest.raises(ConfigError, match=message):
        smt("TimestampConverter$Value", **options)


def test_simple_date_format_prints_java_letters():
    pattern = SimpleDateFormat.compile("G yy y M MMM MMMM d D E EEEE u F a h K k H m s S SSSS Z X 'at' ''", 0)
    assert (
        pattern.format(MILLIS)
        == "AD 19 2019 3 Mar March 4 63 Mon Monday 1 1 AM 5 5 5 5 6 7 89 0089 +0000 Z at '"
    )


def test_simple_date_format_parses_leniently():
    pattern = SimpleDateFormat.compile("yyyyMMddHHmm", 0)
    assert pattern.parse("201903040506") == MILLIS - 7089
    lenient = SimpleDateFormat.compile("yyyy-MM-dd HH:mm", 0)
    assert lenient.parse("2019-02-32 04:66 and more") == MILLIS - 7089
    zoned = SimpleDateFormat.compile("yyyy-MM-dd HH:mm Z", 0)
    assert zoned.parse("2019-03-04 06:06 +0100") == MILLIS - 7089
    two_digits = SimpleDateFormat.compile("dd/MM/yy", 1_717_243_200_000)
    assert two_digits.format(two_digits.parse("01/01/43")) == "01/01/43"
    assert two_digits.parse("01/01/44") < 0


def test_router_formats_topic_and_timestamp(smt):
    assert smt("TimestampRouter").apply(rec(1)).topic == "events-20190304"
    chain = smt(
        "TimestampRouter", **{"topic.format": "${timestamp}/${topic}", "timestamp.format": "yyyy.MM.dd'T'HH"}
    )
    assert chain.apply(rec(1)).topic == "2019.03.04T05/events"
    assert chain.routes


def test_router_needs_a_timestamp_and_a_valid_pattern(smt):
    with pytest.raises(RecordError, match="Timestamp missing"):
        smt("TimestampRouter").apply(rec(1, timestamp=None))
    with pytest.raises(ConfigError, match=r"transforms\.x\.timestamp\.format"):
        smt("TimestampRouter", **{"timestamp.format": "yyyy-qq"})
