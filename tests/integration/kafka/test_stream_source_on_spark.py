"""The lakesink-kafka data source driven by Spark's streaming engine on local[2]."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from pyspark.sql import DataFrame, SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.kafka.source_options import encode_options
from lakesink.domain.config.secret import Secret
from tests.conftest import unique_name

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _stream(spark: SparkSession, kafka: EmbeddedKafka, **options: str) -> DataFrame:
    return (
        spark.readStream.format("lakesink-kafka")
        .option("bootstrap.servers", kafka.bootstrap_servers)
        .options(**options)
        .load()
    )


def _drain_to_memory(df: DataFrame) -> list[dict[str, object]]:
    name = unique_name("sink").replace("-", "_")
    query = df.writeStream.format("memory").queryName(name).trigger(availableNow=True).start()
    query.awaitTermination(120)
    rows = [row.asDict(recursive=True) for row in df.sparkSession.table(name).collect()]
    query.stop()
    return rows


def test_every_produced_offset_arrives_exactly_once_with_key_value_headers_and_timestamp(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    records = [
        ProducedRecord(
            b"value-%d" % i,
            key=b"key-%d" % i,
            headers=(("n", b"%d" % i),),
            timestamp_ms=1_700_000_000_000 + i,
            partition=i % 4,
        )
        for i in range(400)
    ]
    kafka.produce(topic, records)

    rows = _drain_to_memory(_stream(spark, kafka, topics=topic, maxRecordsPerPartition="60"))

    coordinates = [(r["partition"], r["offset"]) for r in rows]
    assert len(coordinates) == len(set(coordinates)) == 400
    assert set(coordinates) == {(p, o) for p in range(4) for o in range(100)}
    by_value = {r["value"]: r for r in rows}
    sample = by_value[b"value-7"]
    assert sample["key"] == b"key-7"
    assert sample["headers"] == [{"key": "n", "value": b"7"}]
    assert int(sample["timestamp"].timestamp() * 1000) == 1_700_000_000_007
    assert sample["topic"] == topic and sample["partition"] == 3


def test_starting_offsets_from_the_driver_are_honoured(spark: SparkSession, kafka: EmbeddedKafka, topic: str) -> None:
    kafka.produce(topic, [ProducedRecord(b"%d" % i, partition=i % 2) for i in range(20)])

    rows = _drain_to_memory(_stream(spark, kafka, topics=topic, startingOffsets=f'{{"{topic}": {{"0": 7}}}}'))

    assert sorted((r["partition"], r["offset"]) for r in rows) == [(0, 7), (0, 8), (0, 9)] + [
        (1, o) for o in range(10)
    ]


def _run_until(df: DataFrame, done: Callable[[list[tuple[float, int]]], bool], **flush: str) -> list[tuple[float, int]]:
    """Run a processing-time query; collect (seconds since start, rows) of non-empty batches."""
    batches: list[tuple[float, int]] = []
    lock = threading.Lock()
    started = time.monotonic()

    def collect(batch: DataFrame, _batch_id: int) -> None:
        count = batch.count()
        if count:
            with lock:
                batches.append((time.monotonic() - started, count))

    query = df.writeStream.foreachBatch(collect).trigger(processingTime="200 milliseconds").start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not done(batches):
            time.sleep(0.2)
    finally:
        query.stop()
    return batches


def test_records_wait_in_kafka_until_flush_count_is_reached(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    kafka.produce(topic, [ProducedRecord(b"x", partition=0) for _ in range(3)])
    df = _stream(spark, kafka, topics=topic, **{"flush.count": "5"})
    producer = threading.Timer(3.0, kafka.produce, args=(topic, [ProducedRecord(b"y", partition=0)] * 2))
    producer.start()

    batches = _run_until(df, lambda b: sum(n for _, n in b) >= 5)
    producer.join()

    assert [n for _, n in batches] == [5]
    assert batches[0][0] >= 3.0


def test_records_below_the_count_are_admitted_after_flush_interval(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    kafka.produce(topic, [ProducedRecord(b"x", partition=1) for _ in range(3)])
    df = _stream(spark, kafka, topics=topic, **{"flush.count": "1000", "flush.interval": "2"})

    batches = _run_until(df, lambda b: sum(n for _, n in b) >= 3)

    assert [n for _, n in batches] == [3]
    assert batches[0][0] >= 2.0


def test_batch_read_returns_everything_up_to_the_latest_offsets(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    kafka.produce(topic, [ProducedRecord(b"%d" % i) for i in range(30)])

    df = spark.read.format("lakesink-kafka").option("bootstrap.servers", kafka.bootstrap_servers).option(
        "topics", topic
    ).load()

    assert df.count() == 30
    assert df.select("partition", "offset").distinct().count() == 30


def test_credentials_passed_as_options_never_show_in_the_query_plan(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, capsys: pytest.CaptureFixture[str]
) -> None:
    options = encode_options(
        {
            "topics": topic,
            "sasl.jaas.config": Secret('org.apache.kafka.common.security.plain.PlainLoginModule required '
                                       'username="u" password="hunter2";'),
            "value.converter.basic.auth.user.info": "reader:pa55",
        }
    )

    _stream(spark, kafka, **options).explain(extended=True)

    plan = capsys.readouterr().out
    assert "redacted" in plan
    assert "hunter2" not in plan and "pa55" not in plan
