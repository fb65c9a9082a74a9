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
    ]
)
"""Spark's Kafka source columns (``includeHeaders=false``, its default), so code written for it fits."""

KAFKA_SCHEMA_WITH_HEADERS = StructType(
    [
        *KAFKA_SCHEMA.fields,
        StructField("headers", HEADERS_TYPE),
    ]
)
"""Spark's Kafka source columns with ``includeHeaders=true``: ``headers`` last (what the sink reads)."""


def kafka_schema(include_headers: bool) -> StructType:
    """The record columns for the ``includeHeaders`` option."""
    return KAFKA_SCHEMA_WITH_HEADERS if include_headers else KAFKA_SCHEMA


RANGES_SCHEMA = StructType(
    [
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("start", LongType()),
        StructField("end", LongType()),
    ]
)
"""The columns of the source in ``rangesOnly`` mode: one row per range, ``[start, end)``."""
