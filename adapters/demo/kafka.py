"""The Kafka side of ``lakesink demo``: produce to the embedded broker, read the topic back for the audit.

:class:`DemoKafka` wraps a started :class:`~lakesink.adapters.kafka.embedded_broker.EmbeddedKafka`
(librdkafka's mock cluster); :func:`kafka_contents` reads any topic back with a plain consumer,
from the low to the high watermark of each partition, decoded the way the demo's converters
decode it (string keys and headers, JSON values).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from confluent_kafka import Consumer, TopicPartition

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord

Position = tuple[str, int, int]
"""(topic, partition, offset)"""


class Message(Protocol):
    """What :meth:`DemoKafka.produce` reads of a message (the demo's ``OrderMessage`` has it)."""

    @property
    def value(self) -> bytes | None: ...
    @property
    def key(self) -> bytes | None: ...
    @property
    def headers(self) -> tuple[tuple[str, bytes], ...]: ...
    @property
    def timestamp_ms(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class KafkaRecord:
    """A record as the broker holds it, decoded like the demo's converters decode it."""

    key: str | None
    value: Any
    headers: dict[str, str]
    timestamp: int | None


class DemoKafka:
    """A started embedded broker as the demo sees it; starting and stopping it is the owner's job."""

    name = "Kafka (librdkafka mock)"

    def __init__(self, broker: EmbeddedKafka) -> None:
        self._broker = broker

    @property
    def bootstrap_servers(self) -> str:
        return self._broker.bootstrap_servers

    def produce(self, topic: str, messages: Iterable[Message]) -> int:
        """Produce ``messages`` (the partitioner picks each one's partition); returns the count."""
        records = (ProducedRecord(m.value, m.key, m.headers, m.timestamp_ms) for m in messages)
        return self._broker.produce(topic, records)

    def end_data_set(self, topic: str) -> dict[int, int]:
        return self._broker.end_data_set(topic)

    def contents(self, topic: str) -> dict[Position, KafkaRecord]:
        return kafka_contents(self._broker.bootstrap_servers, topic)


def kafka_contents(
    bootstrap_servers: str, topic: str, *, timeout_s: float = 60.0
) -> dict[Position, KafkaRecord]:
    """Every record of ``topic`` between the watermarks, values decoded as JSON, keys and headers as text.

    Raises:
        RuntimeError: a message came back with an error, or not all arrived within ``timeout_s``.
    """
    consumer = Consumer({"bootstrap.servers": bootstrap_servers, "group.id": "lakesink-audit",
                         "enable.auto.commit": False, "enable.partition.eof": False})
    try:
        partitions = sorted(consumer.list_topics(topic, timeout=10).topics[topic].partitions)
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10) for p in partitions}
        consumer.assign([TopicPartition(topic, p, low) for p, (low, high) in ends.items() if high > low])
        wanted = sum(high - low for low, high in ends.values())
        found: dict[Position, KafkaRecord] = {}
        deadline = time.monotonic() + timeout_s
        while len(found) < wanted and time.monotonic() < deadline:
            for message in consumer.consume(1000, 0.5):
                if message.error() is not None:
                    raise RuntimeError(f"reading {topic} back failed: {message.error()}")
                found[(topic, message.partition(), message.offset())] = _decoded(message)
        if len(found) < wanted:
            raise RuntimeError(
                f"read {len(found)} of {wanted} records of {topic} back within {timeout_s:.0f} s"
            )
        return found
    finally:
        consumer.close()


def _decoded(message: Any) -> KafkaRecord:
    kind, timestamp = message.timestamp()
    key = message.key()
    value = message.value()
    return KafkaRecord(
        key=None if key is None else key.decode("utf-8"),
        value=None if value is None else json.loads(value),
        headers={name: raw.decode("utf-8") for name, raw in (message.headers() or []) if raw is not None},
        timestamp=timestamp if kind != 0 else None,
    )

