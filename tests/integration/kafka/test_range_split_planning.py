"""The streaming source splits a partition's range into chunks, and a replayed first batch at its plans."""

from __future__ import annotations

import pytest

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.kafka.source import KafkaStreamReader
from lakesink.adapters.kafka.source_options import SourceOptions
from tests.support.planned_ranges import planned_ranges

pytestmark = pytest.mark.integration


def _reader(kafka: EmbeddedKafka, **options: str) -> KafkaStreamReader:
    settings = {"kafka.bootstrap.servers": kafka.bootstrap_servers, "startingOffsets": "earliest", **options}
    return KafkaStreamReader(SourceOptions.parse(settings).for_stream())


def test_a_backlog_of_one_partition_is_planned_as_fixed_size_chunks(kafka: EmbeddedKafka, topic: str) -> None:
    kafka.produce(topic, [ProducedRecord(b"x", partition=1) for _ in range(25)])
    reader = _reader(kafka, subscribe=topic, maxRangeOffsets="10")
    start = reader.initialOffset()

    end = reader.latestOffset(start, reader.getDefaultReadLimit())

    assert [r.describe() for r in planned_ranges(reader, start, end)] == [
        f"{topic}-1[0, 10)", f"{topic}-1[10, 20)", f"{topic}-1[20, 25)"
    ]


def test_the_replayed_first_batch_is_cut_at_the_plans_whatever_the_split_size(
    kafka: EmbeddedKafka, topic: str
) -> None:
    kafka.produce(topic, [ProducedRecord(b"x", partition=0) for _ in range(40)])
    # A crashed run split [0, 40) by 8 and planned the chunks [8, 16) (first written 9) and [24, 32).
    reader = _reader(
        kafka, subscribe=topic, maxRangeOffsets="5",
        startingOffsets=f'{{"{topic}": {{"0": 0}}}}',
        firstBatchEndOffsets=f'{{"{topic}": {{"0": 32}}}}',
        firstBatchChunks=f'{{"{topic}": {{"0": [[9, 16], [24, 32]]}}}}',
    )
    start = reader.initialOffset()
    limit = reader.getDefaultReadLimit()

    first = reader.latestOffset(start, limit)
    second = reader.latestOffset(first, limit)

    assert first[topic]["0"] == 32
    assert [r.describe() for r in planned_ranges(reader, start, first)] == [
        f"{topic}-0[0, 5)", f"{topic}-0[5, 9)", f"{topic}-0[9, 16)", f"{topic}-0[16, 21)",
        f"{topic}-0[21, 24)", f"{topic}-0[24, 32)",
    ]
    later = planned_ranges(reader, first, second)
    assert [r.describe() for r in later] == [f"{topic}-0[32, 37)", f"{topic}-0[37, 40)"]
