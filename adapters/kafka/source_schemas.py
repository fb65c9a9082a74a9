"""The columns of the ``lakesink-kafka`` source, in a module that loads only PySpark's types.

Spark's data-source workers call ``schema()`` after unpickling the source; keeping the schemas
apart from the readers (pyarrow, confluent-kafka) keeps those workers small.
"""

from __future__ import annotations

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

HEADERS_TYPE = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))
"""Spark's Kafka headers column: ``array<struct<key: string, value: binary>>``."""

KAFKA_SCHEMA = StructType(
    [
        StructField("key", BinaryType()),
        StructField("value", BinaryType()),
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("offset", LongType()),
        StructField("timestamp", TimestampType()),
        StructField("timestampType", IntegerType()),
        StructField("headers", HEADERS_TYPE),
    ]
)
"""Spark's Kafka source columns, so downstream code written for Spark's Kafka source fits."""

RANGES_SCHEMA = StructType(
    [
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("start", LongType()),
        StructField("end", LongType()),
    ]
)
"""The columns of the source in ``rangesOnly`` mode: one row per range, ``[start, end)``."""
