"""The lakesink-kafka data source driven by Spark (streams and batch reads) on local[2], with Spark's option names."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.kafka.source_options import encode_options
from lakesink.domain.config.secret import Secret
from tests.conftest import unique_name

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SPARK_KAFKA_SCHEMA = StructType(
    [
        StructField("key", BinaryType()),
        StructField("value", BinaryType()),
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("offset", LongType()),
        StructField("timestamp", TimestampType()),
        StructField("timestampType", IntegerType()),
    ]
)
"""The columns structured-streaming-kafka-integration.md documents for Spark's Kafka source."""
HEADERS = StructField(
    "headers", ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))
)


def _stream(spark: SparkSession, kafka: EmbeddedKafka, **options: str) -> DataFrame:
    return (
        spark.readStream.format("lakesink-kafka")
        .option("kafka.bootstrap.servers", kafka.bootstrap_servers)
        .options(**options)
        .load()
    )


def _read(spark: SparkSession, kafka: EmbeddedKafka, **options: str) -> DataFrame:
    return spark.read.format("lakesink-kafka").option("kafka.bootstrap.servers", kafka.bootstrap_servers).options(
        **options
    ).load()


def _drain_to_memory(df: DataFrame) -> list[dict[str, object]]:
    name = unique_name("sink").replace("-", "_")
    query = df.writeStream.format("memory").queryName(name).trigger(availableNow=True).start()
    query.awaitTermination(120)
    rows = [row.asDict(recursive=True) for row in df.sparkSession.table(name).collect()]
    query.stop()
    return rows


def _fill(kafka: EmbeddedKafka, topic: str, per_partition: dict[int, int]) -> None:
    kafka.produce(
        topic, [ProducedRecord(b"%d" % i, partition=p) for p, count in per_partition.items() for i in range(count)]
    )


def test_a_job_written_for_spark_kafka_runs_with_only_the_format_name_changed(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    kafka.produce(topic, [ProducedRecord(b"before", key=b"k0", partition=0)])  # before the query: latest skips it
    df = (
        spark.readStream.format("lakesink-kafka")
        .option("kafka.bootstrap.servers", kafka.bootstrap_servers)
        .option("subscribe", topic)
        .load()
    )
    strings = df.selectExpr("CAST(key AS STRING)", "CAST(value AS STRING)")
    name = unique_name("job").replace("-", "_")
    query = strings.writeStream.format("memory").queryName(name).trigger(processingTime="200 milliseconds").start()
    try:
        query.processAllAvailable()  # the first batch fixed the starting offsets (latest)
        kafka.produce(topic, [ProducedRecord(b"v%d" % i, key=b"k%d" % i, partition=i % 4) for i in range(1, 5)])
        query.processAllAvailable()
        rows = sorted(tuple(row) for row in spark.table(name).collect())
    finally:
        query.stop()

    assert df.schema == SPARK_KAFKA_SCHEMA
    assert strings.schema == StructType([StructField("key", StringType()), StructField("value", StringType())])
    assert rows == [("k1", "v1"), ("k2", "v2"), ("k3", "v3"), ("k4", "v4")]


def test_with_include_headers_every_offset_arrives_exactly_once_with_headers_last(
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
    df = _stream(spark, kafka, subscribe=topic, startingOffsets="earliest", includeHeaders="true")

    rows = _drain_to_memory(df)

    assert df.schema == StructType([*SPARK_KAFKA_SCHEMA.fields, HEADERS])
    coordinates = [(r["partition"], r["offset"]) for r in rows]
    assert len(coordinates) == len(set(coordinates)) == 400
    assert set(coordinates) == {(p, o) for p in range(4) for o in range(100)}
    sample = {r["value"]: r for r in rows}[b"value-7"]
    assert sample["key"] == b"key-7"
    assert sample["headers"] == [{"key": "n", "value": b"7"}]
    assert int(sample["timestamp"].timestamp() * 1000) == 1_700_000_000_007
    assert sample["topic"] == topic and sample["partition"] == 3


def test_starting_offsets_json_takes_minus_two_as_earliest_minus_one_as_latest_and_offsets_as_given(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    _fill(kafka, topic, {0: 10, 1: 10, 2: 10, 3: 10})
    starting = f'{{"{topic}": {{"0": -2, "1": -1, "2": 3, "3": 8}}}}'

    rows = _drain_to_memory(_stream(spark, kafka, subscribe=topic, startingOffsets=starting))

    assert sorted((r["partition"], r["offset"]) for r in rows) == (
        [(0, o) for o in range(10)] + [(2, o) for o in range(3, 10)] + [(3, 8), (3, 9)]
    )


def test_max_offsets_per_trigger_caps_each_batch_split_in_proportion_to_each_partition(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    _fill(kafka, topic, {0: 30, 1: 10})
    batches: list[dict[int, int]] = []

    def collect(batch: DataFrame, _batch_id: int) -> None:
        counts = {row["partition"]: row["count"] for row in batch.groupBy("partition").count().collect()}
        if counts:
            batches.append(counts)

    df = _stream(spark, kafka, subscribe=topic, startingOffsets="earliest", maxOffsetsPerTrigger="10")
    df.writeStream.foreachBatch(collect).trigger(availableNow=True).start().awaitTermination(120)

    assert batches[0] == {0: 7, 1: 2}  # 30 and 10 waiting: 7.5 and 2.5 of 10, rounded down
    assert all(sum(batch.values()) <= 10 + 1 for batch in batches)
    assert sum(sum(batch.values()) for batch in batches) == 40


def test_subscribe_pattern_reads_a_topic_created_after_the_query_started_from_its_beginning(
    spark: SparkSession, kafka: EmbeddedKafka
) -> None:
    prefix = unique_name("pat")
    first, second = f"{prefix}-a", f"{prefix}-b"
    kafka.produce(first, [ProducedRecord(b"old", partition=0)])
    name = unique_name("pattern").replace("-", "_")
    df = _stream(spark, kafka, subscribePattern=f"{prefix}-.*")  # default latest: first's record is skipped
    query = df.writeStream.format("memory").queryName(name).trigger(processingTime="200 milliseconds").start()
    try:
        query.processAllAvailable()
        kafka.produce(second, [ProducedRecord(b"new-%d" % i, partition=1) for i in range(3)])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and spark.table(name).count() < 3:
            time.sleep(0.2)
        rows = sorted((r["topic"], r["offset"], r["value"]) for r in spark.table(name).collect())
    finally:
        query.stop()

    assert rows == [(second, i, b"new-%d" % i) for i in range(3)]


def test_a_stream_refuses_ending_offsets(spark: SparkSession, kafka: EmbeddedKafka, topic: str) -> None:
    df = _stream(spark, kafka, subscribe=topic, endingOffsets="latest")

    with pytest.raises(Exception, match="endingOffsets is not valid in streaming queries"):
        df.writeStream.format("memory").queryName(unique_name("e").replace("-", "_")).start().awaitTermination(60)


def test_a_batch_read_goes_from_earliest_to_latest_with_spark_columns_and_min_partitions(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    _fill(kafka, topic, {0: 20, 1: 10})

    df = _read(spark, kafka, subscribe=topic, minPartitions="6")

    assert df.schema == SPARK_KAFKA_SCHEMA
    assert df.count() == 30
    assert df.select("partition", "offset").distinct().count() == 30
    assert df.rdd.getNumPartitions() >= 5


def test_a_batch_read_takes_starting_and_ending_offsets_as_json(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    _fill(kafka, topic, {0: 10, 1: 10})
    starting = f'{{"{topic}": {{"0": -2, "1": 4, "2": -2, "3": -2}}}}'
    ending = f'{{"{topic}": {{"0": 3, "1": -1, "2": -1, "3": -1}}}}'

    rows = _read(spark, kafka, subscribe=topic, startingOffsets=starting, endingOffsets=ending).collect()

    assert sorted((r["partition"], r["offset"]) for r in rows) == [(0, 0), (0, 1), (0, 2)] + [
        (1, o) for o in range(4, 10)
    ]


def test_a_batch_read_refuses_latest_as_its_start(spark: SparkSession, kafka: EmbeddedKafka, topic: str) -> None:
    with pytest.raises(Exception, match="startingOffsets can't be latest for batch queries"):
        _read(spark, kafka, subscribe=topic, startingOffsets="latest").collect()


def test_include_headers_adds_the_headers_column_with_their_values(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    kafka.produce(topic, [ProducedRecord(b"v", headers=(("a", b"1"), ("b", None)), partition=0)])

    without = _read(spark, kafka, subscribe=topic)
    with_headers = _read(spark, kafka, subscribe=topic, includeHeaders="true")

    assert without.columns == [field.name for field in SPARK_KAFKA_SCHEMA.fields]
    assert with_headers.schema == StructType([*SPARK_KAFKA_SCHEMA.fields, HEADERS])
    assert [row.asDict(recursive=True)["headers"] for row in with_headers.collect()] == [
        [{"key": "a", "value": b"1"}, {"key": "b", "value": None}]
    ]


def test_assign_reads_only_the_named_partitions(spark: SparkSession, kafka: EmbeddedKafka, topic: str) -> None:
    _fill(kafka, topic, {0: 2, 1: 3, 2: 4, 3: 5})

    df = _read(spark, kafka, assign=f'{{"{topic}": [1, 3]}}')

    assert sorted({r["partition"] for r in df.collect()}) == [1, 3]
    assert df.count() == 8


def test_an_unknown_option_fails_at_load_naming_it(spark: SparkSession, kafka: EmbeddedKafka, topic: str) -> None:
    with pytest.raises(Exception, match="Unknown option 'subscibe'"):
        _read(spark, kafka, subscibe=topic)


def _run_until(df: DataFrame, done: Callable[[list[tuple[float, int]]], bool]) -> list[tuple[float, int]]:
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
    df = _stream(spark, kafka, subscribe=topic, startingOffsets="earliest", **{"flush.count": "5"})
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
    df = _stream(
        spark, kafka, subscribe=topic, startingOffsets="earliest", **{"flush.count": "1000", "flush.interval": "2"}
    )

    batches = _run_until(df, lambda b: sum(n for _, n in b) >= 3)

    assert [n for _, n in batches] == [3]
    assert batches[0][0] >= 2.0


def test_credentials_passed_as_options_never_show_in_the_query_plan(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, capsys: pytest.CaptureFixture[str]
) -> None:
    options = encode_options(
        {
            "subscribe": topic,
            "kafka.sasl.jaas.config": Secret('org.apache.kafka.common.security.plain.PlainLoginModule required '
                                             'username="u" password="hunter2";'),
            "kafka.ssl.key.pem": "-----BEGIN PRIVATE KEY-----pa55",
        }
    )

    _stream(spark, kafka, **options).explain(extended=True)

    plan = capsys.readouterr().out
    assert "redacted" in plan
    assert "hunter2" not in plan and "pa55" not in plan
