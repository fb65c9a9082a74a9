"""The plain Spark job a user writes when no connector is at hand: Spark's own Kafka source into files
on S3 through Hadoop's S3A, with a checkpoint. A peer of lakesink in the benchmarks and the crash
comparison (issue 34), so it imports PySpark and the standard library only, never lakesink.

``readStream.format("kafka")`` -> ``from_json`` of the value -> ``writeStream.format("parquet"|"json")``
(``partitionBy`` a value field when asked) into ``s3a://BUCKET/PREFIX`` with ``checkpointLocation``.
Each row keeps the Kafka ``partition`` and ``offset`` beside the value's fields, as an auditable job
does, so a reader can count every offset. ``--trigger available-now`` drains what is in the topic and
exits (the batch benchmark; prints ``{"seconds", "work_seconds", "batches", "rows"}`` on stdout);
``--trigger N`` runs a micro-batch every N seconds until SIGTERM (the streaming ladder, the kill runs).

The jars (spark-sql-kafka-0-10 and hadoop-aws with the AWS SDK modules, from tools/spark-kafka and
tools/hadoop-aws) come with ``--jars``, as with spark-submit; S3 credentials from the environment's
``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, as S3A's default provider chain reads them.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from datetime import datetime
from types import FrameType

from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json
from pyspark.sql.streaming import StreamingQuery
from pyspark.sql.types import (
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

#: The benchmark's order events (bench/events.py), as a Spark user declares them for ``from_json``.
ORDER = StructType([
    StructField("order_id", StringType()),
    StructField("customer", StructType([StructField("id", StringType()), StructField("tier", StringType())])),
    StructField("country", StringType()),
    StructField("currency", StringType()),
    StructField("amount", DoubleType()),
    StructField("items", IntegerType()),
    StructField("status", StringType()),
    StructField("channel", StringType()),
    StructField("created_at", LongType()),
    StructField("updated_at", LongType()),
])


def _session(master: str, jars: str, endpoint: str) -> SparkSession:
    return (
        SparkSession.builder.master(master)
        .appName("plain-spark-kafka-job")
        .config("spark.jars", jars)
        .config("spark.ui.enabled", "false")
        .config("spark.hadoop.fs.s3a.endpoint", endpoint)
        .config("spark.hadoop.fs.s3a.endpoint.region", os.environ.get("AWS_REGION", "us-east-1"))
        .config("spark.hadoop.fs.s3a.path.style.access", "true")
        .config("spark.hadoop.fs.s3a.connection.ssl.enabled", str(endpoint.startswith("https")).lower())
        .getOrCreate()
    )


def _start(spark: SparkSession, args: argparse.Namespace) -> StreamingQuery:
    source = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", args.bootstrap)
        .option("subscribe", args.topic)
        .option("startingOffsets", "earliest")
        .option("kafka.isolation.level", "read_committed")
        .load()
    )
    rows = source.select(
        from_json(col("value").cast("string"), ORDER).alias("v"), col("partition"), col("offset")
    ).select("v.*", "partition", "offset")
    writer = rows.writeStream.format(args.format).option("path", args.path).option(
        "checkpointLocation", args.checkpoint
    )
    if args.partition_by:
        writer = writer.partitionBy(args.partition_by)
    if args.trigger == "available-now":
        writer = writer.trigger(availableNow=True)
    else:
        writer = writer.trigger(processingTime=f"{float(args.trigger)} seconds")
    return writer.start()


def _work_seconds(query: StreamingQuery) -> tuple[float, int, int]:
    """From the first micro-batch's start to the last one's end, the batches and their input rows
    (Spark's own progress reports: "inside the work", without the JVM's start)."""
    progress = [p for p in query.recentProgress if p["numInputRows"] > 0]
    if not progress:
        return 0.0, 0, 0
    first = datetime.fromisoformat(progress[0]["timestamp"]).timestamp()
    last = progress[-1]
    ended = datetime.fromisoformat(last["timestamp"]).timestamp() + last["durationMs"]["triggerExecution"] / 1000
    return ended - first, len(progress), sum(p["numInputRows"] for p in progress)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--bootstrap", "--topic", "--path", "--checkpoint", "--endpoint", "--jars"):
        parser.add_argument(name, required=True)
    parser.add_argument("--format", choices=("parquet", "json"), default="parquet")
    parser.add_argument("--partition-by", default="", help="a value field to partitionBy (none when empty)")
    parser.add_argument("--trigger", default="available-now", help="available-now, or seconds between batches")
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    started = time.perf_counter()
    spark = _session(args.master, args.jars, args.endpoint)
    query = _start(spark, args)

    def stop(_signum: int, _frame: FrameType | None) -> None:
        query.stop()

    signal.signal(signal.SIGTERM, stop)
    query.awaitTermination()
    work, batches, rows = _work_seconds(query)
    print(json.dumps({"seconds": time.perf_counter() - started, "work_seconds": work, "batches": batches,
                      "rows": rows}))
    spark.stop()


if __name__ == "__main__":
    main()
