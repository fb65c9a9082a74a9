"""Kafka → filter and enrich → Parquet on S3, partitioned by a looked-up field, exactly once.

A Structured Streaming job as a Spark developer writes it, with lakesink as a library: orders are
read with the ``lakesink-kafka`` source (Spark's Kafka option names), or with Spark's own Kafka
source (``--source kafka``: spark-sql-kafka-0-10 on the classpath, e.g. ``spark-submit --packages
org.apache.spark:spark-sql-kafka-0-10_2.13:<Spark's version>``), parsed, filtered (orders
that are only placed are dropped), joined with a static table of countries and given a computed
column, then written by ``lakesink.spark.write_stream`` as Snappy Parquet under
``s3://<bucket>/<prefix>/country_name=<name>/`` with Lenses' keys and ``.indexes`` locks. Kill it at
any moment and start it again: every kept order is stored once.

    python examples/filter_enrich.py --bootstrap 127.0.0.1:9092 --topic orders --bucket lake \\
        --endpoint http://127.0.0.1:9000 --checkpoint /tmp/filter-enrich [--available-now]

S3 credentials come from the usual AWS environment variables or profile
(``connect.s3.aws.auth.mode=Default``); ``--endpoint`` points at MinIO or another S3-compatible store.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery
from pyspark.sql.types import ArrayType, DoubleType, LongType, StringType, StructField, StructType

import lakesink.spark

ORDER = StructType(
    [
        StructField("order_id", StringType()),
        StructField("customer", StructType([StructField("id", StringType()), StructField("tier", StringType())])),
        StructField("country", StringType()),
        StructField("currency", StringType()),
        StructField("status", StringType()),
        StructField(
            "lines",
            ArrayType(
                StructType(
                    [
                        StructField("sku", StringType()),
                        StructField("quantity", LongType()),
                        StructField("unit_price", DoubleType()),
                    ]
                )
            ),
        ),
        StructField("total", DoubleType()),
        StructField("placed_at_ms", LongType()),
    ]
)

COUNTRIES = [
    ("DE", "Germany", 0.19),
    ("FR", "France", 0.20),
    ("GB", "United Kingdom", 0.20),
    ("US", "United States", 0.0),
    ("CA", "Canada", 0.05),
    ("JP", "Japan", 0.10),
]


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True, help="Kafka bootstrap servers")
    parser.add_argument("--topic", required=True, help="the orders topic")
    parser.add_argument("--bucket", required=True, help="the S3 bucket to write to")
    parser.add_argument("--prefix", default="orders", help="the key prefix inside the bucket")
    parser.add_argument("--endpoint", help="an S3-compatible endpoint (MinIO...); default AWS")
    parser.add_argument("--region", default="us-east-1")
    parser.add_argument("--checkpoint", required=True, help="the streaming query's checkpoint directory")
    parser.add_argument("--name", default="filter-enrich", help="the sink's name (its .indexes entry)")
    parser.add_argument("--master", default="local[2,4]", help="Spark master (local: 2 cores, 4 task attempts)")
    parser.add_argument("--source", choices=("lakesink-kafka", "kafka"), default="lakesink-kafka",
                        help="lakesink's Kafka source, or Spark's own (needs spark-sql-kafka-0-10's jars)")
    parser.add_argument("--available-now", action="store_true", help="write what the topic holds, then stop")
    return parser.parse_args(argv)


def enriched_orders(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    """The job's transformation: parse, keep paid and shipped orders, add the country's name and VAT."""
    records = (
        spark.readStream.format(args.source)
        .option("kafka.bootstrap.servers", args.bootstrap)
        .option("subscribe", args.topic)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", 5000)
        .load()
    )
    orders = records.select(
        "topic", "partition", "offset", "timestamp", F.from_json(F.col("value").cast("string"), ORDER).alias("order")
    ).where(F.col("order.status") != "PLACED")
    countries = spark.createDataFrame(COUNTRIES, ["country", "country_name", "vat_rate"])
    return (
        orders.select("topic", "partition", "offset", "timestamp", "order.*")
        .join(F.broadcast(countries), "country", "left")
        .withColumn("total_incl_vat", F.round(F.col("total") * (1 + F.coalesce(F.col("vat_rate"), F.lit(0.0))), 2))
        .drop("vat_rate")
    )


def sink_config(args: argparse.Namespace) -> dict[str, str]:
    """The connector settings of ``lakesink sink``, as a mapping."""
    config = {
        "name": args.name,
        "connect.s3.kcql": (
            f"INSERT INTO {args.bucket}:{args.prefix} SELECT * FROM {args.topic} "
            "PARTITIONBY country_name STOREAS `PARQUET` PROPERTIES('flush.count'=1000)"
        ),
        "connect.s3.aws.auth.mode": "Default",
        "connect.s3.aws.region": args.region,
    }
    if args.endpoint:
        config["connect.s3.custom.endpoint"] = args.endpoint
        config["connect.s3.path.style.access"] = "true"
    return config


def start(spark: SparkSession, args: argparse.Namespace) -> StreamingQuery:
    """Register the source, build the transformation and start the exactly-once sink."""
    lakesink.spark.register(spark)
    trigger = {"availableNow": True} if args.available_now else {"processingTime": "2 seconds"}
    return lakesink.spark.write_stream(
        enriched_orders(spark, args), sink_config(args), checkpoint_location=args.checkpoint, trigger=trigger
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = arguments(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("lakesink").setLevel(logging.INFO)  # one line per committed batch
    # Spark's Python workers (the source's planner, the sink's tasks) import lakesink: run this interpreter.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.master(args.master).appName("filter-enrich").getOrCreate()
    try:
        start(spark, args).awaitTermination()
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
