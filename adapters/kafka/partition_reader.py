"""Read one offset range of one partition into Arrow record batches (runs in Spark executors).

The driver fixed ``[start, end)``, so a retried task reads the same records. Compaction and
transaction markers leave offsets never delivered, so reading stops when the consumer's
*position* reaches ``end``, not at a record ``end - 1``. Batches carry Spark's Kafka source schema
(:func:`~lakesink.adapters.kafka.source_schemas.kafka_schema`). See docs/kafka.md, "Reading a range
(executors)".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from operator import methodcaller
from typing import Any

import numpy as np
import pyarrow as pa
from confluent_kafka import Consumer, KafkaError, KafkaException, Message, TopicPartition
from pyspark.sql.pandas.types import to_arrow_schema

from lakesink.adapters.kafka.authorization import Acl, denied_as
from lakesink.adapters.kafka.client_config import error_code, error_text
from lakesink.adapters.kafka.consumer_pool import kept_consumer
from lakesink.adapters.kafka.offsets import KafkaDataLossError
from lakesink.adapters.kafka.source_options import DEFAULT_BATCH_RECORDS, DEFAULT_STALL_TIMEOUT_S
from lakesink.adapters.kafka.source_schemas import kafka_schema
from lakesink.domain.offset_range import OffsetRange

logger = logging.getLogger(__name__)

_POLL_TIMEOUT_S = 0.5
CHUNK_RECORDS = 2_000
"""Messages taken from the consumer and turned into Arrow columns at a time.

A batch of ``batch_records`` is built from chunks this small: confluent-kafka makes a Python
object (and a bytes object for the key and the value) per message, and the column passes of
:func:`_to_batch` over 10,000 of them (~4 MB) missed the CPU caches on every pass; 2,000 fit,
and their memory is reused by the next chunk (read_range main-thread CPU per record measured
~1.9 µs with whole batches, ~1.5 µs in chunks of 1,000-2,500).
"""
_ERROR = methodcaller("error")
RANGE_FETCH_WAIT_MS = 1
"""Default ``fetch.wait.max.ms`` of a range's consumer (librdkafka's own: 500).

A range ends at an offset the broker already has, so the broker waits only on the fetch sent
after the range's last record, and a kept consumer's next range (:mod:`.consumer_pool`) queued
behind it: 500 ms per range at librdkafka's default. At 1 ms a 500-record range took 2-3 ms
instead of 26-31 ms with a new consumer each (Apache Kafka, 64 ranges). Set
``fetch.max.wait.ms`` to override.
"""


def arrow_schema(header_column: bool = True) -> pa.Schema:
    """The record columns (``headers`` last, or none) as the exact Arrow schema PySpark expects from ``read()``."""
    return to_arrow_schema(kafka_schema(header_column), timezone="UTC")


class RangeStalledError(TimeoutError):
    """The broker delivered nothing for too long while the range was not finished."""


def read_range(
    offset_range: OffsetRange,
    consumer_config: Mapping[str, Any],
    *,
    batch_records: int = DEFAULT_BATCH_RECORDS,
    stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S,
    headers: bool = True,
    header_column: bool = True,
    fail_on_data_loss: bool = False,
) -> Iterator[pa.RecordBatch]:
    """Every record of ``offset_range`` in offset order, ``batch_records`` per Arrow batch.

    ``headers=False`` leaves every ``headers`` list empty, for a consumer that never reads them:
    confluent-kafka builds a message's header tuples on first access, which cost about a third of
    a passthrough sink task's CPU (docs/kafka.md). ``header_column=False`` leaves the column out
    (Spark's ``includeHeaders=false``). ``fail_on_data_loss`` fails the read when its start is no
    longer in Kafka instead of resuming at the earliest record left.

    A start below the low watermark (retention deleted the records) is data loss: with
    ``failOnDataLoss=true`` the task fails (:class:`~lakesink.adapters.kafka.offsets.KafkaDataLossError`,
    from librdkafka's ``auto.offset.reset=error``), with false it resumes at the earliest record still
    present (``auto.offset.reset=earliest``; librdkafka logs the reset).
    """
    if offset_range.end <= offset_range.start:
        return
    schema = arrow_schema(header_column)
    reset = "error" if fail_on_data_loss else "earliest"
    config = {"fetch.wait.max.ms": RANGE_FETCH_WAIT_MS, **consumer_config,
              "enable.partition.eof": True, "auto.offset.reset": reset}
    try:
        with kept_consumer(config, offset_range.topic) as consumer, denied_as(config, Acl(("READ",), "topic", offset_range.topic)):
            yield from _consume(consumer, offset_range, schema, batch_records, stall_timeout_s, headers)
    except KafkaException as exc:
        if error_code(exc) == KafkaError._AUTO_OFFSET_RESET:
            raise KafkaDataLossError(
                f"{offset_range.describe()}: the start offset is no longer in Kafka ({error_text(exc)})"
            ) from None
        raise


def _consume(
    consumer: Consumer,
    rng: OffsetRange,
    schema: pa.Schema,
    batch_records: int,
    stall_timeout_s: float,
    headers: bool,
) -> Iterator[pa.RecordBatch]:
    tp = TopicPartition(rng.topic, rng.partition, rng.start)
    consumer.assign([tp])
    chunks: list[pa.RecordBatch] = []
    pending = delivered = 0
    last_progress = time.monotonic()
    while True:
        messages = _next_messages(consumer, min(CHUNK_RECORDS, batch_records - pending))
        kept: list[Message] = []
        reached_end = _keep(messages, rng.end, kept)
        if messages:
            last_progress = time.monotonic()
        if kept:
            chunks.append(_to_batch(kept, rng, schema, headers=headers))
            pending += len(kept)
        del messages, kept  # free the messages before the next chunk reuses their memory
        if pending >= batch_records:
            yield _joined(chunks)
            delivered += pending
            chunks, pending = [], 0
        if reached_end or _position(consumer, tp) >= rng.end:
            break
        if time.monotonic() - last_progress > stall_timeout_s:
            raise RangeStalledError(
                f"{rng.describe()}: no data from Kafka for {stall_timeout_s:.0f} s "
                f"(position {_position(consumer, tp)})"
            )
    if chunks:
        yield _joined(chunks)
        delivered += pending
    logger.debug("%s: read %d records", rng.describe(), delivered)


def _joined(chunks: list[pa.RecordBatch]) -> pa.RecordBatch:
    """One batch of the chunks (a copy of their buffers, made at C speed)."""
    return chunks[0] if len(chunks) == 1 else pa.concat_batches(chunks)


def _next_messages(consumer: Consumer, limit: int) -> list[Message]:
    """Up to ``limit`` messages: those already fetched, else the first one to arrive (or none).

    ``consume(n, timeout)`` returns only when it has ``n`` messages or the timeout expired, so
    every call that found fewer than ``n`` queued (a range's last batch always) sat out the whole
    timeout with records in hand: one Tansu partition of 250,000 records took 2.0-3.0 s to read
    that way, 1.3 s like this (0.5 s with ``client_config.FETCH_QUEUE_BACKOFF_MS``). So take what
    is queued, block only while nothing is, and drain again after the first arrival.
    """
    messages: list[Message] = consumer.consume(num_messages=limit, timeout=0)
    if messages:
        return messages
    first = consumer.poll(_POLL_TIMEOUT_S)
    if first is None:
        return messages
    return [first, *consumer.consume(num_messages=limit - 1, timeout=0)] if limit > 1 else [first]


def _keep(messages: Sequence[Message], end: int, pending: list[Message]) -> bool:
    """Append the records of ``messages`` below ``end`` to ``pending``; True once the range is done.

    Most responses hold only records inside the range: they are taken whole, with the checks
    done by C loops (``any`` over ``map``) instead of Python code per message.
    """
    # any(): a KafkaError is always true, and comparing one with None (list.count) raises.
    if messages and not any(map(_ERROR, messages)) and messages[-1].offset() < end:  # an error's offset is None
        pending.extend(messages)
        return False
    for message in messages:
        error = message.error()
        if error is not None:
            if error.code() == KafkaError._PARTITION_EOF:
                if message.offset() >= end:
                    return True
                continue
            if error.code() == KafkaError.GROUP_AUTHORIZATION_FAILED:
                continue  # the group only names the reader (never joined nor committed to): no ACL needed
            raise KafkaException(error)
        if message.offset() >= end:
            return True
        pending.append(message)
    return False


def _position(consumer: Consumer, tp: TopicPartition) -> int:
    offset: int = consumer.position([TopicPartition(tp.topic, tp.partition)])[0].offset
    return offset


def _to_batch(
    messages: list[Message], rng: OffsetRange, schema: pa.Schema, *, headers: bool = True
) -> pa.RecordBatch:
    """One Arrow batch from the messages of ``rng``'s partition, column by column.

    Per message only the accessors run (no per-message dicts or appends); topic and partition
    are the range's, timestamps are converted with numpy, and headers are flattened into one
    list array (or, with ``headers=False``, left empty without asking the messages).
    """
    count = len(messages)
    per_message = [m.headers() for m in messages] if headers and "headers" in schema.names else [None] * count
    # fromiter over the flattened (type, millis) pairs: half the cost of np.array on the tuples.
    pairs = chain.from_iterable([m.timestamp() for m in messages])
    stamps = np.fromiter(pairs, dtype=np.int64, count=2 * count).reshape(count, 2)
    kinds = stamps[:, 0]
    # librdkafka: 0 none, 1 create, 2 log-append; Spark/Java: -1 none, 0 create, 1 log-append.
    micros = pa.array(stamps[:, 1] * 1000, type=pa.int64(), mask=kinds == 0)
    timestamps = micros.cast(schema.field("timestamp").type)
    columns = [
        pa.array([m.key() for m in messages], type=pa.binary()),
        pa.array([m.value() for m in messages], type=pa.binary()),
        pa.repeat(pa.scalar(rng.topic, pa.string()), count),
        pa.repeat(pa.scalar(rng.partition, pa.int32()), count),
        _offsets(messages),
        timestamps,
        pa.array(kinds - 1, type=pa.int32()),
    ]
    if "headers" in schema.names:
        columns.append(_headers(per_message, schema.field("headers").type))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def _offsets(messages: list[Message]) -> pa.Array:
    """The offsets column; a run without gaps (the common case) needs only its two ends.

    Offsets of one partition strictly increase, so ``last - first == count - 1`` proves there is
    no gap (gaps come from compaction and transaction markers).
    """
    first, last = messages[0].offset(), messages[-1].offset()
    if last - first == len(messages) - 1:
        return pa.array(np.arange(first, last + 1, dtype=np.int64))
    return pa.array([m.offset() for m in messages], type=pa.int64())


def _headers(per_message: list[list[tuple[str, bytes | None]] | None], list_type: pa.ListType) -> pa.Array:
    """The headers column: an empty list for a message without headers, as Spark's Kafka source."""
    ends = [0]
    names: list[str] = []
    values: list[bytes | None] = []
    for headers in per_message:
        if headers:
            for name, value in headers:
                names.append(name)
                values.append(value)
        ends.append(len(names))
    entry = list_type.value_type
    pairs = pa.StructArray.from_arrays(
        [pa.array(names, type=entry.field("key").type), pa.array(values, type=entry.field("value").type)],
        fields=list(entry),
    )
    return pa.ListArray.from_arrays(pa.array(ends, type=pa.int32()), pairs, type=list_type)
