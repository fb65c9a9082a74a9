"""lakesink.spark as a library inside a user's Spark job: write_stream and write over DataFrames.

The job reads Kafka with the ``lakesink-kafka`` source, transforms the records (parse, filter,
project, join with static data) and hands the DataFrame to the sink with the command's connector
settings. Objects are read back with pyarrow / boto3; every surviving offset must be stored once.
"""

from __future__ import annotations

import json
import re
import socket
import urllib.request
from collections.abc import Mapping
from pathlib import Path

import boto3
import polars as pl
import pyarrow.parquet as pq
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

import lakesink.spark
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.application.bootstrap.sink import sink_run
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import ConfigError
from tests.conftest import unique_name
from tests.integration.sink.conftest import MotoS3, local_props, produce_ids, s3_props

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

VALUE = StructType([StructField("id", LongType()), StructField("region", StringType()), StructField("n", LongType())])


def kafka_stream(spark: SparkSession, kafka: EmbeddedKafka, topic: str, *, headers: bool = False) -> DataFrame:
    """The topic from its start, as a Spark-Kafka-connector job reads it (format name changed)."""
    reader = (
        spark.readStream.format("lakesink-kafka")
        .option("kafka.bootstrap.servers", kafka.bootstrap_servers)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
    )
    return reader.option("includeHeaders", str(headers).lower()).load()


def kafka_table(spark: SparkSession, kafka: EmbeddedKafka, topic: str) -> DataFrame:
    """The topic as a static DataFrame (a batch read, earliest to latest)."""
    return (spark.read.format("lakesink-kafka").option("kafka.bootstrap.servers", kafka.bootstrap_servers)
            .option("subscribe", topic).load())


def local_json(root: Path, topic: str, kafka: EmbeddedKafka, **extra: str) -> dict[str, str]:
    """A JSON sink into the bucket ``out`` under ``root`` (created)."""
    (root / "out").mkdir(parents=True, exist_ok=True)
    return local_props(root, f"INSERT INTO out:data SELECT * FROM {topic} STOREAS `JSON`", topic, kafka, **extra)


def drain(df: DataFrame, config: Mapping[str, str], checkpoint: Path) -> None:
    """Run write_stream with Trigger.AvailableNow until everything available was written."""
    query = lakesink.spark.write_stream(df, config, checkpoint_location=str(checkpoint), trigger={"availableNow": True})
    query.awaitTermination(240)
    assert not query.isActive, "the availableNow query did not finish"
    assert query.exception() is None, query.exception()


def s3_objects(moto: MotoS3, bucket: str, prefix: str = "") -> dict[str, bytes]:
    client = boto3.client("s3", endpoint_url=moto.url, aws_access_key_id="testing",
                          aws_secret_access_key="testing", region_name="us-east-1")
    objects: dict[str, bytes] = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for item in page.get("Contents", ()):
            objects[item["Key"]] = client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
    return objects


def make_bucket(moto: MotoS3) -> str:
    bucket = unique_name("lib")
    boto3.client("s3", endpoint_url=moto.url, aws_access_key_id="testing", aws_secret_access_key="testing",
                 region_name="us-east-1").create_bucket(Bucket=bucket)
    return bucket


def parquet_rows(objects: Mapping[str, bytes], tmp_path: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for number, (key, body) in enumerate(sorted(objects.items())):
        if not key.endswith(".parquet"):
            continue
        path = tmp_path / f"part-{number}.parquet"
        path.write_bytes(body)
        rows += pq.read_table(path).to_pylist()
    return rows


def test_a_filtered_and_enriched_stream_lands_in_parquet_partitions_once_across_a_restart(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, tmp_path: Path
) -> None:
    topic, bucket = unique_name("lib"), make_bucket(moto_s3)
    produce_ids(kafka, topic, range(0, 60))
    lakesink.spark.register(spark)
    names = spark.createDataFrame([("r0", "north"), ("r1", "south")], ["region", "region_name"])

    def job() -> DataFrame:
        records = kafka_stream(spark, kafka, topic)
        parsed = records.select("topic", "partition", "offset", "timestamp",
                                F.from_json(F.col("value").cast("string"), VALUE).alias("order"))
        kept = parsed.where(F.col("order.n") % 3 != 0).select("topic", "partition", "offset", "timestamp", "order.*")
        return kept.join(F.broadcast(names), "region").withColumn("double_n", F.col("n") * 2)

    config = s3_props(moto_s3, f"INSERT INTO {bucket}:orders SELECT * FROM {topic} PARTITIONBY region_name "
                      "STOREAS `PARQUET`", topic, kafka)
    del config["bootstrap.servers"]  # a DataFrame of records needs no Kafka settings
    drain(job(), config, tmp_path / "ck")
    produce_ids(kafka, topic, range(60, 100))
    drain(job(), config, tmp_path / "ck-lost")  # a new checkpoint: the index alone says what is durable

    objects = s3_objects(moto_s3, bucket, "orders/")
    data = {key: body for key, body in objects.items() if key.endswith(".parquet")}
    assert {key.split("/")[1] for key in data} == {"region_name=north", "region_name=south"}
    rows = parquet_rows(data, tmp_path)
    ids = sorted(row["id"] for row in rows)
    assert ids == [i for i in range(100) if i % 3 != 0]  # every surviving record once, none twice
    assert all(row["double_n"] == 2 * row["n"] for row in rows)
    assert {row["region_name"] for row in rows if row["region"] == "r0"} == {"north"}


def test_an_untransformed_kafka_frame_writes_the_objects_and_locks_the_command_writes(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    topic = unique_name("lib")
    produce_ids(kafka, topic, range(40))
    lakesink.spark.register(spark)
    kcql = f"INSERT INTO out:data SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=7)"
    library_root, command_root = tmp_path / "library", tmp_path / "command"
    (library_root / "out").mkdir(parents=True)
    (command_root / "out").mkdir(parents=True)
    library = local_props(library_root, kcql, topic, kafka, name="same-name")
    command = local_props(command_root, kcql, topic, kafka, name="same-name")
    drain(kafka_stream(spark, kafka, topic, headers=True), library, tmp_path / "ck")
    sink_run(ConnectorSettings.from_properties(command, role="sink"), spark, once=True,
             checkpoint_dir=str(tmp_path / "ck-command")).run(timeout_s=120)

    def files(root: Path) -> dict[str, bytes]:
        """Every object of the bucket; a lock's owner (each run's own id) left out."""
        return {
            str(path.relative_to(root)): re.sub(rb'"owner":"[^"]+"', b'"owner":"*"', path.read_bytes())
            for path in (root / "out").rglob("*")
            if path.is_file()
        }

    written = files(library_root)
    assert written == files(command_root)  # same keys, bytes and lock objects
    assert sum(1 for key in written if key.endswith(".lock")) == 4


def test_a_static_frame_is_written_once_and_a_second_write_skips_it(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    topic = unique_name("lib")
    produce_ids(kafka, topic, range(30))
    lakesink.spark.register(spark)
    records = kafka_table(spark, kafka, topic)
    config = local_json(tmp_path / "out", topic, kafka)

    first = lakesink.spark.write(records, config)
    second = lakesink.spark.write(records, config)

    assert (first.records, first.skipped) == (30, 0)
    assert (second.records, second.skipped, second.files) == (0, 30, ())
    lines = [json.loads(line) for path in (tmp_path / "out").rglob("*.json") for line in path.read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == list(range(30))


def test_a_frame_without_the_kafka_coordinates_is_refused_naming_what_is_missing(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    topic = unique_name("lib")
    frame = spark.createDataFrame([(topic, 0, "x")], ["topic", "partition", "value"])
    config = local_json(tmp_path / "out", topic, kafka)

    with pytest.raises(ConfigError, match=r"no offset column .*keep the Kafka columns topic, partition and offset"):
        lakesink.spark.write(frame, config)


def test_a_join_that_repeats_a_record_is_refused_naming_the_record(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    topic = unique_name("lib")
    produce_ids(kafka, topic, range(8))
    twice = kafka_table(spark, kafka, topic).crossJoin(spark.createDataFrame([("a",), ("b",)], ["copy"]))
    config = local_json(tmp_path / "out", topic, kafka)

    with pytest.raises(ConfigError, match=rf"several rows for the Kafka record {topic}-\d@\d+"):
        lakesink.spark.write(twice, config)


def test_a_pending_plan_inside_a_batch_is_written_as_a_chunk_of_its_own(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    """An earlier run planned offsets 2..4 of partition 0 and died before its commit: the batch that
    holds them writes them as that plan's chunk (a round of its own), the rest around it."""
    topic = unique_name("lib")
    produce_ids(kafka, topic, range(40))  # 10 records per partition, offsets 0..9
    records = kafka_table(spark, kafka, topic)
    config = local_json(tmp_path / "out", topic, kafka, name="pinned")
    plans = tmp_path / "out" / "out" / ".indexes" / "pinned" / ".plans" / f"Topic({topic})" / "0"
    plans.mkdir(parents=True)
    (plans / f"{2:020d}.json").write_text('{"owner":"earlier","start":2,"last":4}')

    report = lakesink.spark.write(records, config)

    partition_0 = sorted(key for key in report.files if f"/{topic}/0/" in key)
    assert [key.rsplit("/", 1)[1].split("_")[0] for key in partition_0] == ["000000000001", "000000000004",
                                                                            "000000000009"]
    lines = [json.loads(line) for path in (tmp_path / "out").rglob("*.json") if ".indexes" not in str(path)
             for line in path.read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == list(range(40))
    assert not plans.exists() or not list(plans.iterdir())  # the commit removed the plan


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        ("SELECT topic, partition, offset, named_struct('a', 1, 'b', 'x') AS value", {"a": 1, "b": "x"}),
        ("SELECT topic, partition, offset, DATE'2026-11-25' AS value", {"value": "2026-11-25"}),
        ("SELECT topic, partition, offset, 7 AS n, 'x' AS s", {"n": 7, "s": "x"}),
    ],
)
def test_a_row_of_the_users_columns_is_written_as_their_json(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path, frame: str, expected: dict[str, object]
) -> None:
    topic = unique_name("lib")
    rows = spark.createDataFrame([(topic, 0, 5)], "topic string, partition int, offset long")
    rows.createOrReplaceTempView("kafka_rows")
    (tmp_path / "out" / "out").mkdir(parents=True)
    config = {"connect.local.root": str(tmp_path / "out"), "name": unique_name("rows"),
              "connect.local.kcql": f"INSERT INTO out:data SELECT * FROM {topic} STOREAS `JSON`"}

    report = lakesink.spark.write(spark.sql(f"{frame} FROM kafka_rows"), config)

    assert report.records == 1
    written = [json.loads(path.read_text()) for path in (tmp_path / "out" / "out" / "data").rglob("*.json")]
    assert written == [expected]


def test_frames_the_sink_cannot_write_are_refused_before_the_store_is_touched(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    topic = unique_name("lib")
    config = {"connect.local.root": str(tmp_path / "missing"), "name": "refused",
              "connect.local.kcql": f"INSERT INTO out:data SELECT * FROM {topic} STOREAS `JSON`"}
    text_offsets = spark.createDataFrame([(topic, 0, "5", b"{}")], "topic string, partition int, offset string, value binary")
    ranges = spark.createDataFrame([(topic, 0, 0, 5)], "topic string, partition int, start long, `end` long")
    stream = (spark.readStream.format("lakesink-kafka").option("kafka.bootstrap.servers", kafka.bootstrap_servers)
              .option("subscribe", topic).load())

    with pytest.raises(ConfigError, match=r"\(offset is string\).* partition and offset integers"):
        lakesink.spark.write(text_offsets, config)
    with pytest.raises(ConfigError, match="offset ranges .* set bootstrap.servers"):
        lakesink.spark.write(ranges, config)
    with pytest.raises(ConfigError, match="write takes a static DataFrame"):
        lakesink.spark.write(stream, config)
    with pytest.raises(ConfigError, match="write_stream takes a streaming DataFrame"):
        lakesink.spark.write_stream(ranges, config)
    assert not (tmp_path / "missing").exists()


def test_a_stream_serves_the_commands_metrics_when_the_config_names_a_port(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    topic = unique_name("lib")
    produce_ids(kafka, topic, range(24))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = local_json(tmp_path / "out", topic, kafka, **{"connect.local.metrics.port": str(port)})

    drain(kafka_stream(spark, kafka, topic), config, tmp_path / "ck")

    scraped = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    written = [line for line in scraped.splitlines() if line.startswith("lakesink_records_written_total{")]
    assert written and float(written[0].rsplit(" ", 1)[1]) == 24


def test_a_frame_written_into_a_delta_table_lands_once_and_a_second_write_adds_nothing(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    """The library's batches carry their files' footers back as result rows: the table commit has
    every file of the batch, and a second write of the same frame is skipped (docs/tables.md)."""
    topic = unique_name("lib")
    produce_ids(kafka, topic, range(30))
    lakesink.spark.register(spark)
    (tmp_path / "out" / "out").mkdir(parents=True)
    kcql = f"INSERT INTO out:lake/orders SELECT * FROM {topic} STOREAS `PARQUET` PROPERTIES('table.format'='DELTA')"
    config = local_props(tmp_path / "out", kcql, topic, kafka)

    first = lakesink.spark.write(kafka_table(spark, kafka, topic), config)
    second = lakesink.spark.write(kafka_table(spark, kafka, topic), config)

    assert (first.records, second.records, second.skipped) == (30, 0, 30)
    ids = pl.read_delta(str(tmp_path / "out" / "out" / "lake" / "orders"))["id"].to_list()
    assert sorted(ids) == list(range(30))
