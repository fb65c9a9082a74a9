"""lakesink.spark fed by Spark's own Kafka source: the DataFrame of ``format("kafka")``.

The job a Spark user already runs reads Kafka with ``spark-sql-kafka-0-10`` (the jars of
tools/spark-kafka/, on the shared session's ``spark.jars``) from the real broker, and hands the
frame to ``write_stream`` / ``write`` unchanged. Its schema is the one ``lakesink-kafka`` copies
(key, value binary; topic, partition, offset, timestamp, timestampType; headers with
``includeHeaders``): the objects must be byte for byte those of lakesink's own source, and every
offset stored once across restarts, with and without the checkpoint.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from confluent_kafka import Producer
from pyspark.sql import DataFrame, SparkSession

import lakesink.spark
from tests.conftest import unique_name
from tests.integration.sink.conftest import MotoS3, produce_ids, s3_props
from tests.integration.sink.test_library import drain, make_bucket, s3_objects
from tests.support.kafka_broker import KafkaCluster

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

ENVELOPE = "STOREAS `JSON` PROPERTIES('store.envelope'=true, 'flush.count'=7)"
"""Key, value, headers and metadata (topic, partition, offset, timestamp) of every record: all the frame holds."""


def spark_stream(spark: SparkSession, kafka: KafkaCluster, topic: str, source: str = "kafka") -> DataFrame:
    """The topic from its start with headers, as a Spark job reads it with ``source``."""
    return (
        spark.readStream.format(source)
        .option("kafka.bootstrap.servers", kafka.bootstrap_servers)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("includeHeaders", "true")
        .load()
    )


def envelope_config(moto: MotoS3, bucket: str, prefix: str, topic: str, kafka: KafkaCluster) -> dict[str, str]:
    """The envelope sink into ``bucket:prefix`` (its index named after the topic); a DataFrame of records
    needs no Kafka settings."""
    config = s3_props(moto, f"INSERT INTO {bucket}:{prefix} SELECT * FROM {topic} {ENVELOPE}", topic, kafka,
                      name=topic)
    del config["bootstrap.servers"]
    return config


def without_owners(objects: Mapping[str, bytes]) -> dict[str, bytes]:
    """``objects`` with each lock's owner (a run's own id) left out."""
    return {key: re.sub(rb'"owner":"[^"]+"', b'"owner":"*"', body) for key, body in objects.items()}


def stored_offsets(objects: Mapping[str, bytes]) -> list[tuple[int, int]]:
    """(partition, offset) of every envelope line of the data objects."""
    return sorted((line["metadata"]["partition"], line["metadata"]["offset"])
                  for key, body in objects.items() if key.endswith(".json")
                  for line in map(json.loads, body.decode().splitlines()))


def test_sparks_kafka_frame_writes_the_bytes_lakesinks_own_source_writes(
    spark_kafka: SparkSession, apache_kafka: KafkaCluster, moto_s3: MotoS3, tmp_path: Path
) -> None:
    topic, spark_bucket, own_bucket = unique_name("spark-src"), make_bucket(moto_s3), make_bucket(moto_s3)
    produce_ids(apache_kafka, topic, range(50))
    lakesink.spark.register(spark_kafka)

    drain(spark_stream(spark_kafka, apache_kafka, topic),
          envelope_config(moto_s3, spark_bucket, "data", topic, apache_kafka), tmp_path / "ck-spark")
    drain(spark_stream(spark_kafka, apache_kafka, topic, "lakesink-kafka"),
          envelope_config(moto_s3, own_bucket, "data", topic, apache_kafka), tmp_path / "ck-own")

    written = without_owners(s3_objects(moto_s3, spark_bucket))
    assert written == without_owners(s3_objects(moto_s3, own_bucket))  # keys, bytes, locks: key, value, headers...
    assert stored_offsets(written) == sorted((i % 4, i // 4) for i in range(50))
    assert b'"headers":{"h":"v1"}' in b"".join(written.values())


def test_a_stream_from_sparks_kafka_source_lands_once_across_restarts_with_and_without_its_checkpoint(
    spark_kafka: SparkSession, apache_kafka: KafkaCluster, moto_s3: MotoS3, tmp_path: Path
) -> None:
    topic, bucket = unique_name("spark-src"), make_bucket(moto_s3)
    config = envelope_config(moto_s3, bucket, "data", topic, apache_kafka)
    lakesink.spark.register(spark_kafka)

    produce_ids(apache_kafka, topic, range(0, 40))
    drain(spark_stream(spark_kafka, apache_kafka, topic), config, tmp_path / "ck")
    produce_ids(apache_kafka, topic, range(40, 80))
    drain(spark_stream(spark_kafka, apache_kafka, topic), config, tmp_path / "ck")  # restart: the checkpoint resumes
    produce_ids(apache_kafka, topic, range(80, 100))
    drain(spark_stream(spark_kafka, apache_kafka, topic), config, tmp_path / "ck-lost")  # from earliest: the index skips

    assert stored_offsets(s3_objects(moto_s3, bucket, "data/")) == sorted((i % 4, i // 4) for i in range(100))


def test_a_static_read_of_sparks_kafka_source_is_written_once_and_a_second_write_skips_it(
    spark_kafka: SparkSession, apache_kafka: KafkaCluster, moto_s3: MotoS3
) -> None:
    topic, bucket = unique_name("spark-src"), make_bucket(moto_s3)
    produce_ids(apache_kafka, topic, range(30))
    records = (spark_kafka.read.format("kafka").option("kafka.bootstrap.servers", apache_kafka.bootstrap_servers)
               .option("subscribe", topic).option("includeHeaders", "true").load())
    config = envelope_config(moto_s3, bucket, "data", topic, apache_kafka)

    first = lakesink.spark.write(records, config)
    second = lakesink.spark.write(records, config)

    assert (first.records, first.skipped) == (30, 0)
    assert (second.records, second.skipped, second.files) == (0, 30, ())
    assert stored_offsets(s3_objects(moto_s3, bucket, "data/")) == sorted((i % 4, i // 4) for i in range(30))


def with_an_aborted_transaction(kafka: KafkaCluster, topic: str) -> list[int]:
    """Three transactions of five ``{"id": i}`` records on partition 0, the 2nd aborted after its records
    reached the log (flushed: librdkafka drops unsent records on abort); the committed ids."""
    producer = Producer({"bootstrap.servers": kafka.bootstrap_servers, "transactional.id": unique_name("tx")})
    producer.init_transactions(30)
    for transaction in range(3):
        producer.begin_transaction()
        for i in range(transaction * 5, transaction * 5 + 5):
            producer.produce(topic, json.dumps({"id": i}).encode(), partition=0)
        producer.flush(30)
        (producer.abort_transaction if transaction == 1 else producer.commit_transaction)(30)
    return [*range(5), *range(10, 15)]


@pytest.mark.parametrize(("source", "isolation", "aborted_written"), [
    ("kafka", None, True), ("kafka", "read_committed", False), ("lakesink-kafka", None, False)])
def test_sparks_source_writes_aborted_transactions_unless_told_read_committed(
    source: str, isolation: str | None, aborted_written: bool,
    spark_kafka: SparkSession, apache_kafka: KafkaCluster, moto_s3: MotoS3,
) -> None:
    """docs/library.md's warning: Spark's source reads read_uncommitted by default, lakesink-kafka read_committed."""
    topic, bucket = unique_name("spark-src"), make_bucket(moto_s3)
    committed = with_an_aborted_transaction(apache_kafka, topic)
    lakesink.spark.register(spark_kafka)
    reader = spark_kafka.read.format(source).option("kafka.bootstrap.servers", apache_kafka.bootstrap_servers)
    if isolation is not None:
        reader = reader.option("kafka.isolation.level", isolation)

    lakesink.spark.write(reader.option("subscribe", topic).load(),
                         envelope_config(moto_s3, bucket, "data", topic, apache_kafka))

    stored = sorted(json.loads(line)["value"]["id"] for key, body in s3_objects(moto_s3, bucket, "data/").items()
                    if key.endswith(".json") for line in body.decode().splitlines())
    assert stored == (list(range(15)) if aborted_written else committed)
