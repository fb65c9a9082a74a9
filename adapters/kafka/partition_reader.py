"""Read one offset range of one partition into Arrow record batches (runs in Spark executors).

The range ``[start, end)`` was fixed by the driver, so a retried task reads the same records.
Offsets inside a range may never be delivered: compaction removes records, transaction
markers and aborted records occupy offsets the consumer skips. Reading therefore stops as soon
as the consumer's *position* (or a partition-EOF event) reaches ``end``, not when a record
with offset ``end - 1`` is seen. Records at or beyond ``end`` (fetched in the same response)
are dropped. A start below the low watermark (retention deleted the records) resumes at the
earliest record still present (``auto.offset.reset=earliest``; librdkafka logs the reset).

Batches carry Spark's Kafka source schema (see :data:`KAFKA_SCHEMA`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa
from confluent_kafka import Consumer, KafkaError, KafkaException, Message, TopicPartition
from pyspark.sql.pandas.types import to_arrow_schema
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

from lakesink.adapters.kafka.client_config import create_consumer
from lakesink.adapters.kafka.offsets import OffsetRange

logger = logging.getLogger(__name__)

KAFKA_SCHEMA = StructType(
    [
        StructField("key", BinaryType()),
        StructField("value", BinaryType()),
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("offset", LongType()),
        StructField("timestamp", TimestampType()),
        StructField("timestampType", IntegerType()),
        StructField(
            "headers",
            ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())])),
        ),
    ]
)
"""Spark's Kafka source columns, so downstream code written for Spark's Kafka source fits."""

DEFAULT_BATCH_RECORDS = 10_000
DEFAULT_STALL_TIMEOUT_S = 60.0
_POLL_TIMEOUT_S = 0.5


def arrow_schema() -> pa.Schema:
    """:data:`KAFKA_SCHEMA` as the exact Arrow schema PySpark expects from ``read()``."""
    return to_arrow_schema(KAFKA_SCHEMA, timezone="UTC")


class RangeStalledError(TimeoutError):
    """The broker delivered nothing for too long while the range was not finished."""


def read_range(
    offset_range: OffsetRange,
    consumer_config: Mapping[str, Any],
    *,
    batch_records: int = DEFAULT_BATCH_RECORDS,
    stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S,
) -> Iterator[pa.RecordBatch]:
    """Every record of ``offset_range`` in offset order, ``batch_records`` per Arrow batch."""
    if offset_range.end <= offset_range.start:
        return
    schema = arrow_schema()
    config = {**consumer_config, "enable.partition.eof": True}
    consumer = create_consumer(config)
    try:
        yield from _consume(consumer, offset_range, schema, batch_records, stall_timeout_s)
    finally:
        consumer.close()


def _consume(
    consumer: Consumer, rng: OffsetRange, schema: pa.Schema, batch_records: int, stall_timeout_s: float
) -> Iterator[pa.RecordBatch]:
    tp = TopicPartition(rng.topic, rng.partition, rng.start)
    consumer.assign([tp])
    columns = _Columns()
    delivered = 0
    last_progress = time.monotonic()
    while True:
        messages = consumer.consume(num_messages=batch_records, timeout=_POLL_TIMEOUT_S)
        reached_end = False
        for message in messages:
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    reached_end = reached_end or message.offset() >= rng.end
                    continue
                raise KafkaException(error)
            if message.offset() >= rng.end:
                reached_end = True
                break
            columns.append(message)
            delivered += 1
        if messages:
            last_progress = time.monotonic()
        if len(columns) >= batch_records:
            yield columns.to_batch(schema)
            columns = _Columns()
        if reached_end or _position(consumer, tp) >= rng.end:
            break
        if time.monotonic() - last_progress > stall_timeout_s:
            raise RangeStalledError(
                f"{rng.describe()}: no data from Kafka for {stall_timeout_s:.0f} s "
                f"(position {_position(consumer, tp)})"
            )
    if len(columns):
        yield columns.to_batch(schema)
    logger.debug("%s: read %d records", rng.describe(), delivered)


def _position(consumer: Consumer, tp: TopicPartition) -> int:
    offset: int = consumer.position([TopicPartition(tp.topic, tp.partition)])[0].offset
    return offset


class _Columns:
    """Column buffers for one Arrow batch."""

    def __init__(self) -> None:
        self.keys: list[bytes | None] = []
        self.values: list[bytes | None] = []
        self.topics: list[str] = []
        self.partitions: list[int] = []
        self.offsets: list[int] = []
        self.timestamps: list[int | None] = []
        self.timestamp_types: list[int] = []
        self.headers: list[list[dict[str, Any]] | None] = []

    def __len__(self) -> int:
        return len(self.offsets)

    def append(self, message: Message) -> None:
        self.keys.append(message.key())
        self.values.append(message.value())
        self.topics.append(message.topic())
        self.partitions.append(message.partition())
        self.offsets.append(message.offset())
        kind, timestamp = message.timestamp()
        # librdkafka: 0 none, 1 create, 2 log-append; Spark/Java: -1 none, 0 create, 1 log-append.
        self.timestamp_types.append(kind - 1)
        self.timestamps.append(timestamp * 1000 if kind else None)
        headers = message.headers()
        self.headers.append([{"key": k, "value": v} for k, v in headers] if headers else [])

    def to_batch(self, schema: pa.Schema) -> pa.RecordBatch:
        data = [
            self.keys, self.values, self.topics, self.partitions,
            self.offsets, self.timestamps, self.timestamp_types, self.headers,
        ]
        arrays = [pa.array(column, type=field.type) for column, field in zip(data, schema, strict=True)]
        return pa.RecordBatch.from_arrays(arrays, schema=schema)
