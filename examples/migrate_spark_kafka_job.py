"""A job written for Spark's Maven Kafka connector, moved to lakesink: two lines change.

Before, with ``--packages org.apache.spark:spark-sql-kafka-0-10_2.13:<version>`` (a jar many
clusters may not download) and Spark's file sink, which writes each micro-batch's files and keeps
its own ``_spark_metadata`` log that only Spark readers honour::

    events = (spark.readStream.format("kafka")
              .option("kafka.bootstrap.servers", servers).option("subscribe", "events")
              .option("startingOffsets", "earliest").option("includeHeaders", "true").load())
    (events.selectExpr("topic", "partition", "offset", "timestamp", "headers",
                       "CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value")
           .writeStream.format("json").option("path", "s3a://lake/events")
           .option("checkpointLocation", checkpoint).start())

After: the same reader with ``format("lakesink-kafka")`` (pure Python, no jar), and the same
DataFrame handed to ``lakesink.spark.write_stream``, which writes JSON objects with Lenses' keys,
exactly once, with its index in the bucket (any reader can list the objects). The value is
written as the JSON it is (``JsonConverter``, ``schemas.enable=false``: no parse and re-serialise),
each record in an envelope with its key, headers and metadata, so a restore puts it back as it was.

    python examples/migrate_spark_kafka_job.py --bootstrap 127.0.0.1:9092 --topic events \\
        --root /tmp/lake --checkpoint /tmp/events-ck [--available-now]

(``--root`` writes to a local directory standing for the bucket ``lake``; pass the
``connect.s3.*`` settings instead to write to S3.)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQuery

import lakesink.spark


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True, help="Kafka bootstrap servers")
    parser.add_argument("--topic", required=True, help="the topic to copy")
    parser.add_argument("--root", required=True, help="a local directory; its subdirectory lake/ is the bucket")
    parser.add_argument("--checkpoint", required=True, help="the streaming query's checkpoint directory")
    parser.add_argument("--master", default="local[2,4]")
    parser.add_argument("--available-now", action="store_true", help="copy what the topic holds, then stop")
    return parser.parse_args(argv)


def start(spark: SparkSession, args: argparse.Namespace) -> StreamingQuery:
    lakesink.spark.register(spark)
    events = (
        spark.readStream.format("lakesink-kafka")  # was: format("kafka")
        .option("kafka.bootstrap.servers", args.bootstrap)
        .option("subscribe", args.topic)
        .option("startingOffsets", "earliest")
        .option("includeHeaders", "true")
        .load()
    )
    rows = events.selectExpr(
        "topic", "partition", "offset", "timestamp", "headers",
        "CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value",
    )
    config = {  # was: .writeStream.format("json").option("path", "s3a://lake/events")
        "name": "events-copy",
        "connect.local.root": args.root,
        "connect.local.kcql": f"INSERT INTO lake:events SELECT * FROM {args.topic} STOREAS `JSON` "
        "PROPERTIES('store.envelope'=true, 'flush.count'=500)",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
    }
    trigger = {"availableNow": True} if args.available_now else None
    return lakesink.spark.write_stream(rows, config, checkpoint_location=args.checkpoint, trigger=trigger)


def main(argv: Sequence[str] | None = None) -> None:
    args = arguments(argv)
    # Spark's Python workers (the source's planner, the sink's tasks) import lakesink: run this interpreter.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.master(args.master).appName("events-copy").getOrCreate()
    try:
        start(spark, args).awaitTermination()
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
