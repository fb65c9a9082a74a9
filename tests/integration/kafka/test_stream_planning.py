"""The driver side of the streaming source against a real broker, without Spark."""

from __future__ import annotations

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMinRows

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.kafka.source import KafkaStreamReader
from lakesink.adapters.kafka.source_options import SourceOptions
from lakesink.domain.offset_range import OffsetRange
from tests.conftest import unique_name
from tests.support.clocks import ManualClock
from tests.support.planned_ranges import planned_ranges

pytestmark = pytest.mark.integration


def _reader(kafka: EmbeddedKafka, clock: ManualClock | None = None, **options: str) -> KafkaStreamReader:
    settings = {"kafka.bootstrap.servers": kafka.bootstrap_servers, "startingOffsets": "earliest", **options}
    return KafkaStreamReader(SourceOptions.parse(settings).for_stream(), clock)


def _fill(kafka: EmbeddedKafka, topic: str, partition: int, count: int) -> None:
    kafka.produce(topic, [ProducedRecord(b"x", partition=partition) for _ in range(count)])


def test_partition_enters_a_batch_only_once_flush_count_records_wait(kafka: EmbeddedKafka, topic: str) -> None:
    _fill(kafka, topic, 0, 3)
    reader = _reader(kafka, subscribe=topic, **{"flush.count": "5"})
    limit = reader.getDefaultReadLimit()
    assert limit == ReadMinRows(5)
    start = reader.initialOffset()
    assert start == {topic: {"0": 0, "1": 0, "2": 0, "3": 0}}

    assert reader.latestOffset(start, limit) == start
    _fill(kafka, topic, 0, 2)
    end = reader.latestOffset(start, limit)

    assert end[topic]["0"] == 5
    assert planned_ranges(reader, start, end) == [OffsetRange(topic, 0, 0, 5)]


def test_partition_below_the_count_enters_a_batch_when_the_interval_passed(kafka: EmbeddedKafka, topic: str) -> None:
    clock = ManualClock()
    _fill(kafka, topic, 1, 2)
    reader = _reader(kafka, clock, subscribe=topic, **{"flush.count": "100", "flush.interval": "30"})
    start = reader.initialOffset()
    limit = reader.getDefaultReadLimit()
    assert reader.latestOffset(start, limit) == start

    clock.now += 30_000
    end = reader.latestOffset(start, limit)

    assert planned_ranges(reader, start, end) == [OffsetRange(topic, 1, 0, 2)]


def test_max_records_per_partition_splits_a_backlog_over_batches(kafka: EmbeddedKafka, topic: str) -> None:
    _fill(kafka, topic, 2, 7)
    reader = _reader(kafka, subscribe=topic, maxRecordsPerPartition="3")
    start = reader.initialOffset()
    limit = reader.getDefaultReadLimit()

    first = reader.latestOffset(start, limit)
    second = reader.latestOffset(first, limit)
    third = reader.latestOffset(second, limit)

    assert [r.describe() for r in planned_ranges(reader, start, first) + planned_ranges(reader, first, second)
            + planned_ranges(reader, second, third)] == [f"{topic}-2[0, 3)", f"{topic}-2[3, 6)", f"{topic}-2[6, 7)"]


def test_read_all_available_from_spark_overrides_the_options(kafka: EmbeddedKafka, topic: str) -> None:
    _fill(kafka, topic, 0, 4)
    reader = _reader(kafka, subscribe=topic, **{"flush.count": "1000", "maxRecordsPerPartition": "1"})
    start = reader.initialOffset()

    assert reader.latestOffset(start, ReadAllAvailable())[topic]["0"] == 4


def test_subscribe_pattern_registers_a_new_topic_then_reads_it_from_the_beginning(kafka: EmbeddedKafka) -> None:
    prefix = unique_name("rx")
    first, second = f"{prefix}-a", f"{prefix}-b"
    _fill(kafka, first, 0, 1)
    reader = _reader(kafka, subscribePattern=f"{prefix}-.*")
    start = reader.initialOffset()
    limit = reader.getDefaultReadLimit()
    assert set(start) == {first}

    _fill(kafka, second, 3, 2)
    registered = reader.latestOffset(start, limit)
    assert registered[second] == {"0": 0, "1": 0, "2": 0, "3": 0}
    assert planned_ranges(reader, start, registered) == [OffsetRange(first, 0, 0, 1)]

    end = reader.latestOffset(registered, limit)
    assert planned_ranges(reader, registered, end) == [OffsetRange(second, 3, 0, 2)]


def test_starting_offsets_json_is_honoured_and_unnamed_partitions_start_at_earliest(
    kafka: EmbeddedKafka, topic: str
) -> None:
    _fill(kafka, topic, 0, 10)
    _fill(kafka, topic, 1, 4)
    reader = _reader(kafka, subscribe=topic, startingOffsets=f'{{"{topic}": {{"0": 6, "2": -1}}}}')

    assert reader.initialOffset() == {topic: {"0": 6, "1": 0, "2": 0, "3": 0}}


def test_available_now_drains_what_existed_when_the_query_started(kafka: EmbeddedKafka, topic: str) -> None:
    _fill(kafka, topic, 0, 3)
    reader = _reader(kafka, subscribe=topic, **{"flush.count": "1000"})
    start = reader.initialOffset()
    limit = reader.getDefaultReadLimit()
    reader.prepareForTriggerAvailableNow()
    _fill(kafka, topic, 0, 5)

    end = reader.latestOffset(start, limit)

    assert end[topic]["0"] == 3
    assert reader.latestOffset(end, limit) == end
