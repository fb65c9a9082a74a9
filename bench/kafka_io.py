"""Producing the data set, counting a topic, and the raw-consume ceiling.

Tansu's ListOffsets(latest) returns the base offset of the last produced batch + 1, so a high
watermark is right only when the last batch holds one record. :func:`produce_data_set` therefore
ends every partition with one single-record batch (``linger.ms=0``, flushed one by one): those
"closing" records are ordinary events too, and every check expects ``records + partitions``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from bench.events import Event, order_events

FLUSH_TIMEOUT_S = 120.0


@dataclass(frozen=True, slots=True)
class DataSet:
    """What was produced: the topic, its partitions, and how many records and value bytes in all."""

    topic: str
    partitions: int
    records: int
    value_bytes: int
    produce_seconds: float


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    """Create ``topic`` (idempotent enough for a fresh broker); raises RuntimeError on failure."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    future = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])[topic]
    try:
        future.result(timeout=30)
    except Exception as error:  # noqa: BLE001 - the broker's reason is in the message
        if "TOPIC_ALREADY_EXISTS" not in str(error):
            raise RuntimeError(f"cannot create topic {topic!r} with {partitions} partitions: {error}") from error


def produce_data_set(bootstrap: str, topic: str, *, records: int, partitions: int, zones: int = 0) -> DataSet:
    """``records`` order events round-robin over ``partitions``, then one closing record per partition.

    ``zones``: see :func:`~bench.events.order_events` (0: the standard events).
    """
    started = time.perf_counter()
    bulk = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1_000_000,
                     "queue.buffering.max.messages": 500_000, "acks": "all"})
    value_bytes = 0
    for event in order_events(records, zones=zones):
        value_bytes += len(event.value)
        _produce(bulk, topic, event, int(event.key[2:]) % partitions)
    _flush(bulk, topic)
    closing = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "acks": "all"})
    for partition, event in enumerate(order_events(partitions, start=records, zones=zones)):
        value_bytes += len(event.value)
        _produce(closing, topic, event, partition)
        _flush(closing, topic)
    return DataSet(topic, partitions, records + partitions, value_bytes, time.perf_counter() - started)


def _produce(producer: Producer, topic: str, event: Event, partition: int) -> None:
    while True:
        try:
            producer.produce(topic, value=event.value, key=event.key, headers=list(event.headers),
                             timestamp=event.timestamp_ms, partition=partition)
            return
        except BufferError:
            producer.poll(0.05)


def _flush(producer: Producer, topic: str) -> None:
    if producer.flush(FLUSH_TIMEOUT_S) != 0:
        raise RuntimeError(f"producing to {topic!r}: messages still queued after {FLUSH_TIMEOUT_S:.0f} s")


def consume_count(bootstrap: str, topic: str, partitions: int, *, expected: int, idle_s: float) -> int:
    """Messages in ``topic`` read from the beginning (assign, no group): stops ``idle_s`` after the last one.

    Reading on past ``expected`` (until idle) lets a check see duplicates, not just losses.
    """
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-count", "enable.auto.commit": False,
                         "enable.partition.eof": False, "fetch.wait.max.ms": 50})
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    count, last = 0, time.monotonic()
    try:
        while time.monotonic() - last < idle_s:
            messages = consumer.consume(num_messages=10_000, timeout=0.2 if count >= expected else 1.0)
            good = sum(1 for m in messages if m.error() is None)
            if good:
                count += good
                last = time.monotonic()
    finally:
        consumer.close()
    return count


def main() -> None:
    """``python -m bench.kafka_io``: the raw-consume ceiling, measured in its own process.

    Counts messages only (no decoding, no processing) until ``--expected`` arrived, and prints
    ``{"records": n, "seconds": s}``; s runs from ``assign`` (the client exists) to the last message.
    """
    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--expected", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    # The fastest plain confluent-kafka loop we know: fetch backoff 10 ms (librdkafka's 1 s default
    # stalls each partition once its prefetch queue is full) and take what is queued without waiting
    # for a full batch (consume(n, timeout) sits out its timeout whenever fewer than n are queued),
    # as lakesink's own reader does (adapters/kafka/partition_reader.py).
    consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": "bench-raw", "enable.auto.commit": False,
                         "fetch.max.bytes": 52_428_800, "max.partition.fetch.bytes": 10_485_760,
                         "fetch.queue.backoff.ms": 10})
    started = time.perf_counter()
    consumer.assign([TopicPartition(args.topic, p, OFFSET_BEGINNING) for p in range(args.partitions)])
    count, deadline = 0, time.monotonic() + args.timeout
    while count < args.expected and time.monotonic() < deadline:
        messages = consumer.consume(num_messages=10_000, timeout=0) or consumer.consume(num_messages=1, timeout=1.0)
        count += sum(1 for m in messages if m.error() is None)
    seconds = time.perf_counter() - started
    consumer.close()
    print(json.dumps({"records": count, "seconds": seconds}))
    sys.exit(0 if count == args.expected else 1)


if __name__ == "__main__":
    main()
