"""Aiven's record groupers as rules: which file each record of one flush goes to.

The cases follow Aiven's grouper tests (``TopicPartitionRecordGrouperTest``,
``TopicPartitionKeyRecordGrouperTest``, ``KeyRecordGrouperTest``, ``SchemaBased*Test``).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

import pytest

from lakesink.domain.dialects.aiven.grouping import AivenGrouper
from lakesink.domain.dialects.aiven.naming import AivenNaming
from lakesink.domain.errors import RecordError
from lakesink.domain.records import Record

HOURLY = "{{topic}}-{{partition}}-{{start_offset}}-{{timestamp:unit=yyyy}}{{timestamp:unit=MM}}{{timestamp:unit=dd}}{{timestamp:unit=HH}}"


def grouper(template: str | None = None, **settings: str) -> AivenGrouper:
    props = {key.replace("__", "."): value for key, value in settings.items()}
    if template is not None:
        props["file.name.template"] = template
    return AivenGrouper(AivenNaming.from_settings(props), now_ms=0)


def at(hour: int, minute: int = 0) -> int:
    return int(datetime(2024, 1, 1, hour, minute, tzinfo=UTC).timestamp() * 1000)


def rec(
    offset: int,
    *,
    topic: str = "topic0",
    partition: int = 0,
    key: object = None,
    ts: int | None = None,
    **fields: object,
) -> Record:
    return Record(topic, partition, offset, timestamp=ts if ts is not None else at(10), key=key, **fields)  # type: ignore[arg-type]


def files(group: AivenGrouper, records: list[Record]) -> dict[str, list[int]]:
    """What a flush of ``records`` writes: each file name and its offsets (latest only, by key)."""
    out: dict[str, list[int]] = defaultdict(list)
    for record in records:
        placement = group.place(record)
        if group.replaces:
            out[placement.name] = [record.offset]
        else:
            out[placement.name].append(record.offset)
        group.filed(placement)
    return dict(out)


def test_unlimited_files_hold_a_topic_partitions_whole_flush() -> None:
    records = [rec(0), rec(1), rec(2, partition=1), rec(3), rec(4, topic="topic1")]
    assert files(grouper(), records) == {"topic0-0-0": [0, 1, 3], "topic0-1-2": [2], "topic1-0-4": [4]}


def test_file_max_records_cuts_files_named_by_their_first_offset() -> None:
    records = [rec(offset) for offset in range(5)]
    assert files(grouper(file__max__records="2"), records) == {
        "topic0-0-0": [0, 1],
        "topic0-0-2": [2, 3],
        "topic0-0-4": [4],
    }


def test_without_a_limit_a_new_hour_keeps_the_head_start_offset() -> None:
    """``rotateKeysHourly``: the time comes from each record, the offset from the head."""
    records = [rec(1, ts=at(10)), rec(2, ts=at(10, 30)), rec(3, ts=at(11)), rec(4, ts=at(10, 59))]
    assert files(grouper(HOURLY, file__name__timestamp__source="event"), records) == {
        "topic0-0-1-2024010110": [1, 2, 4],
        "topic0-0-1-2024010111": [3],
    }


def test_with_a_limit_a_name_without_a_buffer_starts_a_file_at_the_record() -> None:
    """Aiven's rotator treats a missing buffer as a full one: the new hour's record becomes the head."""
    records = [rec(1, ts=at(10)), rec(2, ts=at(10, 30)), rec(3, ts=at(11)), rec(4, ts=at(11, 1))]
    assert files(
        grouper(HOURLY, file__max__records="10", file__name__timestamp__source="event"), records
    ) == {
        "topic0-0-1-2024010110": [1, 2],
        "topic0-0-3-2024010111": [3, 4],
    }


def test_topic_partition_and_key_keep_a_head_per_key() -> None:
    template = "{{topic}}-{{partition}}-{{key}}-{{start_offset}}"
    records = [rec(0, key="a"), rec(1, key="b"), rec(2, key="a"), rec(3, key="b"), rec(4, key="a")]
    assert files(grouper(template, file__max__records="2"), records) == {
        "topic0-0-a-0": [0, 2],
        "topic0-0-b-1": [1, 3],
        "topic0-0-a-4": [4],
    }


def test_grouping_by_key_keeps_each_keys_latest_record() -> None:
    group = grouper("{{key}}")
    records = [rec(0, key="a"), rec(1, key="b"), rec(2, key="a"), rec(3, key=None, partition=2)]
    assert group.replaces
    assert files(group, records) == {"a": [2], "b": [1], "null": [3]}


def test_avro_starts_a_file_when_the_value_schema_changes() -> None:
    schema_a = {"type": "record", "name": "A", "fields": [{"name": "x", "type": "int"}]}
    schema_b = {"type": "record", "name": "A", "fields": [{"name": "x", "type": "long"}]}
    records = [
        rec(0, key="k", value={"x": 1}, value_schema=schema_a),
        rec(1, key="k", value={"x": 2}, value_schema=schema_a),
        rec(2, key="k", value={"x": 3}, value_schema=schema_b),
        rec(3, key="k", value={"x": 4}, value_schema=schema_b),
    ]
    assert files(grouper(format__output__type="avro"), records) == {
        "topic0-0-0.avro": [0, 1],
        "topic0-0-2.avro": [2, 3],
    }


def test_a_record_placed_but_not_filed_changes_nothing() -> None:
    """A record the writer refused (skipped as poison) is neither a head nor counted."""
    group = grouper(file__max__records="2")
    group.place(rec(0))  # refused
    assert files(group, [rec(1), rec(2), rec(3)]) == {"topic0-0-1": [1, 2], "topic0-0-3": [3]}


def test_a_record_that_cannot_name_its_file_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="key"):
        grouper("{{key}}").place(rec(0, key={"a": 1}))
