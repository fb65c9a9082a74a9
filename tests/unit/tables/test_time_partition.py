"""``_date`` → Iceberg's day or hour transform: when the keys' dates name one UTC day or hour, and
the record timestamp column the files then carry."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import RecordError
from lakesink.domain.layout.datetime_pattern import DateTimePattern
from lakesink.domain.records import Record
from lakesink.domain.schema import infer
from lakesink.domain.schema.model import TIMESTAMP_MILLIS
from lakesink.domain.statement_plan import plan_sink
from lakesink.domain.tables.target import TableTarget
from lakesink.domain.tables.time_partition import TimePartition, TimeUnit, time_partition

DAY, HOUR = TimeUnit.DAY, TimeUnit.HOUR


@pytest.mark.parametrize(
    ("patterns", "unit"),
    [
        (["uuuu-MM-dd"], DAY),
        (["yyyy/MM/dd"], DAY),
        (["uuuu", "MM", "dd"], DAY),
        (["uuuu", "LLL", "dd"], DAY),
        (["uuuu-MMMM-dd"], DAY),
        (["uuuuMMdd"], DAY),  # fixed widths: no separator needed
        (["uuuu-DDD"], DAY),
        (["uuuu-MM-dd-HH"], HOUR),
        (["uuuu-MM-dd'T'HH:mm"], HOUR),
        (["uuuu-MM-dd", "HH"], HOUR),
        (["uuuu-MM-dd hh a"], HOUR),
        (["uuuu-MM-dd-kk"], HOUR),
        (["uuuu-MM-dd hh"], DAY),  # 1-12 without am/pm: two hours share a key, the day is still one
        (["uuuu-MM-dd-H"], DAY),  # a one-or-two-digit hour names no hour lakesink maps
        (["uuuu-MM"], None),
        (["MM-dd"], None),  # every year's 25 November in one key
        (["yy-MM-dd"], None),  # two-digit years repeat every century
        (["uuuuMd"], None),  # 2026111: 11 January or 1 November
        (["uuuu-M-d"], None),  # variable widths are refused even where a separator would tell
        (["uuuu-MMMMM-dd"], None),  # J: January, June or July
        (["uuuu-DD"], None),
        (["g"], None),  # the modified Julian day: a day, but no calendar date lakesink maps
        (["uuuu-MM-'dd'"], None),  # quoted: a literal, not the day
        (["HH"], None),
    ],
)
def test_the_dates_must_name_one_day_or_hour(patterns: list[str], unit: TimeUnit | None) -> None:
    found = time_partition([DateTimePattern.compile(each) for each in patterns])
    assert (found.unit if found else None) is unit


@pytest.mark.parametrize(
    ("zone", "partitioned"),
    [("UTC", True), ("Z", True), ("+00:00", True), ("Etc/GMT", True), ("GMT", True),
     ("Africa/Abidjan", False), ("America/Danmarkshavn", False),  # UTC today, not before 1912 / 1996
     ("Europe/London", False), ("Europe/Paris", False), ("+01:00", False)],
)
def test_only_a_zone_that_is_utc_at_every_instant_has_icebergs_days(zone: str, partitioned: bool) -> None:
    found = time_partition([DateTimePattern.compile("uuuu-MM-dd-HH", zone)])
    assert (found is not None) is partitioned


def _plan_table(partition: str, **props: str) -> TableTarget | None:
    extra = "".join(f", '{key}'={value}" for key, value in props.items())
    kcql = (f"INSERT INTO b:lake/orders SELECT * FROM orders PARTITIONBY {partition} STOREAS `PARQUET` "
            f"PROPERTIES('table.name'='shop.orders'{extra})")
    settings = ConnectorSettings.from_properties(
        {"name": "s", "topics": "orders", "connect.s3.kcql": kcql, "connect.s3.aws.region": "eu-west-1"}
    )
    [plan] = plan_sink(settings).statements
    return plan.table


def test_an_iceberg_statement_gets_the_transform_and_date_leaves_the_keys_only_list() -> None:
    table = _plan_table("region, _date.uuuu-MM-dd, _key", **{"table.format": "'ICEBERG'"})
    assert table is not None
    assert table.partition_spec == ("identity(region)", "day(_kafka_timestamp)")
    assert table.path_only == ("_key",)


@pytest.mark.parametrize(
    "props",
    [
        {"table.format": "'DELTA'"},  # Delta partitions by column values, which no transform gives
        {"table.format": "'ICEBERG'", "store.envelope": "true"},  # the envelope keeps Lenses' long timestamp
        {"table.format": "'ICEBERG'", "partition.date.timezone": "'Europe/Paris'"},
    ],
)
def test_elsewhere_date_shapes_the_keys_only(props: dict[str, str]) -> None:
    table = _plan_table("_date.uuuu-MM-dd", **props)
    assert table is not None and table.time_partition is None and table.path_only == ("_date.uuuu-MM-dd",)


STAMP = 1_795_651_199_000  # 2026-11-25T23:59:59Z
MOMENT = datetime(2026, 11, 25, 23, 59, 59, tzinfo=UTC)


def test_a_schemaless_value_gets_the_timestamp_as_a_timestamp_field() -> None:
    record = Record("t", 0, 7, timestamp=STAMP, value={"id": 1})
    stamped = TimePartition(DAY).stamp(record)
    assert stamped.value == {"id": 1, "_kafka_timestamp": MOMENT}
    assert stamped.value_schema is None and TIMESTAMP_MILLIS in infer(stamped.value)["fields"][-1]["type"]
    assert record.value == {"id": 1}  # the record itself is left alone


def test_a_value_with_a_schema_gets_the_field_appended_to_its_schema_once_per_schema() -> None:
    schema = {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"}]}
    partition = TimePartition(HOUR)
    first = partition.stamp(Record("t", 0, 7, timestamp=STAMP, value={"id": 1}, value_schema=schema))
    assert first.value == {"id": 1, "_kafka_timestamp": MOMENT}
    assert first.value_schema == {
        "type": "record", "name": "Order",
        "fields": [{"name": "id", "type": "long"}, {"name": "_kafka_timestamp", "type": TIMESTAMP_MILLIS}],
    }
    second = partition.stamp(Record("t", 0, 8, timestamp=STAMP, value={"id": 2}, value_schema=schema))
    assert second.value_schema is first.value_schema


def test_a_connect_schema_from_json_with_schemas_is_read_and_equal_schemas_are_rebuilt_once() -> None:
    """JsonConverter with schemas.enable=true hands a Connect schema, a new dict with each message."""

    def connect() -> dict[str, object]:
        return {"type": "struct", "optional": False, "fields": [{"field": "id", "type": "int64", "optional": False}]}

    partition = TimePartition(DAY)
    first = partition.stamp(Record("t", 0, 7, timestamp=STAMP, value={"id": 1}, value_schema=connect()))
    assert [f["name"] for f in first.value_schema["fields"]] == ["id", "_kafka_timestamp"]
    assert first.value_schema["fields"][1]["type"] == TIMESTAMP_MILLIS
    second = partition.stamp(Record("t", 0, 8, timestamp=STAMP, value={"id": 2}, value_schema=connect()))
    assert second.value_schema is first.value_schema


def test_a_tombstone_is_left_as_it_is() -> None:
    record = Record("t", 0, 7, timestamp=STAMP, value=None)
    assert TimePartition(DAY).stamp(record) is record


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (Record("t", 0, 7, timestamp=STAMP, value="text"), "a table partitioned by day(_kafka_timestamp) takes values that are records, not str"),
        (Record("t", 0, 7, timestamp=STAMP, value={"_kafka_timestamp": 1}), "the value has a field '_kafka_timestamp'"),
        (Record("t", 0, 7, timestamp=STAMP, value={"id": 1},
                value_schema={"type": "record", "name": "R", "fields": [{"name": "_kafka_timestamp", "type": "long"}]}),
         "schema has a field '_kafka_timestamp'"),
        (Record("t", 0, 7, value={"id": 1}), "Timestamp not found in message"),
    ],
)
def test_a_record_the_column_cannot_be_added_to_is_a_poison_record_naming_it(record: Record, message: str) -> None:
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)")):
        TimePartition(DAY).stamp(record)
