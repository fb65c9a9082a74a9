from __future__ import annotations

import pyarrow as pa
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from lakesink.adapters.kafka import consumer_pool
from lakesink.adapters.kafka.client_config import consumer_config
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.kafka.offsets import KafkaDataLossError
from lakesink.adapters.kafka.partition_reader import arrow_schema, read_range
from lakesink.adapters.kafka.range_rows import RangeReader
from lakesink.adapters.kafka.source_options import SourceOptions
from lakesink.domain.offset_range import OffsetRange
from tests.support.kafka_broker import ApacheKafka

pytestmark = pytest.mark.integration


def _config(kafka: EmbeddedKafka, group_id: str = "reader-test") -> dict[str, object]:
    return consumer_config({"bootstrap.servers": kafka.bootstrap_servers}, group_id=group_id)


def _read(kafka: EmbeddedKafka, rng: OffsetRange, group_id: str = "reader-test", **kwargs: int) -> pa.Table:
    batches = list(read_range(rng, _config(kafka, group_id), **kwargs))
    return pa.Table.from_batches(batches, schema=arrow_schema())


def test_range_is_read_with_key_value_headers_timestamp_in_spark_kafka_schema(
    kafka: EmbeddedKafka, topic: str
) -> None:
    kafka.produce(
        topic,
        [
            ProducedRecord(b"v0", key=b"k0", headers=(("h", b"x"), ("n", None)), timestamp_ms=1_700_000_000_000,
                           partition=2),
            ProducedRecord(None, key=None, timestamp_ms=1_700_000_000_001, partition=2),
        ],
    )

    rows = _read(kafka, OffsetRange(topic, 2, 0, 2)).to_pylist()

    assert [r["offset"] for r in rows] == [0, 1]
    assert rows[0]["key"] == b"k0" and rows[0]["value"] == b"v0"
    assert rows[0]["headers"] == [{"key": "h", "value": b"x"}, {"key": "n", "value": None}]
    assert rows[0]["timestamp"].timestamp() == 1_700_000_000.0
    assert rows[0]["timestampType"] == 0  # CreateTime, as in Spark's Kafka source
    assert rows[1]["key"] is None and rows[1]["value"] is None and rows[1]["headers"] == []
    assert {r["topic"] for r in rows} == {topic} and {r["partition"] for r in rows} == {2}


def test_records_beyond_the_range_end_are_left_for_a_later_batch(kafka: EmbeddedKafka, topic: str) -> None:
    kafka.produce(topic, [ProducedRecord(b"%d" % i, partition=0) for i in range(10)])

    table = _read(kafka, OffsetRange(topic, 0, 3, 7), batch_records=3)

    assert table.column("offset").to_pylist() == [3, 4, 5, 6]


def test_reading_the_same_range_twice_yields_the_same_records_as_a_retried_task_does(
    kafka: EmbeddedKafka, topic: str
) -> None:
    kafka.produce(topic, [ProducedRecord(b"%d" % i, key=b"k", partition=1) for i in range(50)])
    rng = OffsetRange(topic, 1, 10, 40)

    first = _read(kafka, rng, batch_records=7)
    kafka.produce(topic, [ProducedRecord(b"late", partition=1)])
    second = _read(kafka, rng, batch_records=7)

    assert first.equals(second)
    assert first.column("offset").to_pylist() == list(range(10, 40))


def test_transaction_markers_and_aborted_records_leave_gaps_the_reader_steps_over(
    kafka: EmbeddedKafka, topic: str
) -> None:
    producer = Producer({"bootstrap.servers": kafka.bootstrap_servers, "transactional.id": f"tx-{topic}"})
    producer.init_transactions(10)
    producer.begin_transaction()
    for i in range(3):
        producer.produce(topic, value=b"committed-%d" % i, partition=0)
    producer.commit_transaction(10)
    producer.begin_transaction()
    producer.produce(topic, value=b"aborted", partition=0)
    producer.abort_transaction(10)
    producer.begin_transaction()
    producer.produce(topic, value=b"last", partition=0)
    producer.commit_transaction(10)
    high = kafka.watermarks(topic)[0][1]

    table = _read(kafka, OffsetRange(topic, 0, 0, high))

    values = table.column("value").to_pylist()
    assert values == [b"committed-0", b"committed-1", b"committed-2", b"last"]
    offsets = table.column("offset").to_pylist()
    assert offsets[-1] < high - 1, "the range ends on a commit marker the consumer never delivers"


def test_empty_range_reads_nothing_without_connecting(kafka: EmbeddedKafka, topic: str) -> None:
    assert list(read_range(OffsetRange(topic, 0, 5, 5), _config(kafka))) == []


def test_a_reader_without_headers_reads_the_same_records_with_empty_header_lists(
    kafka: EmbeddedKafka, topic: str
) -> None:
    records = [ProducedRecord(b"v%d" % i, key=b"k", headers=(("h", b"x"),), partition=1) for i in range(5)]
    kafka.produce(topic, records)
    options = SourceOptions.parse(
        {"kafka.bootstrap.servers": kafka.bootstrap_servers, "subscribe": topic, "includeHeaders": "true"}
    )
    reader = RangeReader.of(options)
    rng = OffsetRange(topic, 1, 0, 5)

    full = pa.Table.from_batches(list(reader.read(rng)), schema=arrow_schema())
    bare = pa.Table.from_batches(list(reader.without_headers().read(rng)), schema=arrow_schema())

    assert full.column("headers").to_pylist() == [[{"key": "h", "value": b"x"}]] * 5
    assert bare.column("headers").to_pylist() == [[]] * 5
    assert bare.drop_columns(["headers"]).equals(full.drop_columns(["headers"]))


def test_a_start_that_retention_removed_fails_the_read_unless_fail_on_data_loss_is_false(
    apache_kafka: ApacheKafka, topic: str
) -> None:
    kafka = apache_kafka
    kafka.produce(topic, [ProducedRecord(b"x" * 2_000, partition=2) for _ in range(40)])
    admin = kafka.admin()  # what retention does: the log start moves past offsets nobody read
    for future in admin.delete_records([TopicPartition(topic, 2, 25)]).values():
        future.result(30)
    low, high = kafka.watermarks(topic)[2]
    assert (low, high) == (25, 40)
    rng = OffsetRange(topic, 2, 0, high)

    with pytest.raises(KafkaDataLossError, match=f"{topic}-2.*failOnDataLoss=false"):
        list(read_range(rng, _config(kafka), fail_on_data_loss=True))
    offsets = [o for batch in read_range(rng, _config(kafka), fail_on_data_loss=False) for o in batch["offset"].to_pylist()]
    assert offsets == list(range(low, high))


def test_ranges_read_one_after_another_by_the_kept_consumer_hold_exactly_their_records(
    kafka: EmbeddedKafka, topic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    kafka.produce(topic, [ProducedRecord(b"a%d" % i, partition=0) for i in range(3_000)])
    kafka.produce(topic, [ProducedRecord(b"b%d" % i, partition=1) for i in range(300)])
    started: list[object] = []
    monkeypatch.setattr(consumer_pool, "create_consumer", lambda config: started.append(config) or Consumer(config))

    # the first range stops far below what the consumer prefetched past its end; none of it may leak
    reads = [OffsetRange(topic, 0, 0, 100), OffsetRange(topic, 0, 50, 150), OffsetRange(topic, 1, 0, 300),
             OffsetRange(topic, 0, 2_990, 3_000), OffsetRange(topic, 0, 0, 10)]
    tables = [_read(kafka, rng, group_id=topic) for rng in reads]  # a group of its own: no consumer kept before

    for rng, table in zip(reads, tables, strict=True):
        assert table.column("offset").to_pylist() == list(range(rng.start, rng.end))
        assert set(table.column("partition").to_pylist()) == {rng.partition}
        assert table.column("value").to_pylist() == [b"ab"[rng.partition:rng.partition + 1] + b"%d" % o
                                                     for o in range(rng.start, rng.end)]
    assert len(started) == 1  # one consumer read all five


def test_a_range_read_abandoned_midway_closes_its_consumer_instead_of_keeping_it(
    kafka: EmbeddedKafka, topic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    kafka.produce(topic, [ProducedRecord(b"%d" % i, partition=3) for i in range(50)])
    started: list[object] = []
    monkeypatch.setattr(consumer_pool, "create_consumer", lambda config: started.append(config) or Consumer(config))

    batches = read_range(OffsetRange(topic, 3, 0, 50), _config(kafka, topic), batch_records=10)
    next(batches)
    batches.close()  # a task that failed on its first batch
    table = _read(kafka, OffsetRange(topic, 3, 0, 50), group_id=topic)

    assert table.column("offset").to_pylist() == list(range(50))
    assert len(started) == 2
