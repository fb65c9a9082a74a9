"""Fakes of confluent-kafka's ``Message`` and of the consume side of its ``Consumer``.

The consumer fake keeps a queue of "fetched" messages and counts how long a real client would
have blocked: ``consume(n, timeout)`` returns only with ``n`` messages or after ``timeout``, and
``poll(timeout)`` waits only while nothing is queued. Tests read :attr:`FakeConsumer.blocked_s`
instead of a clock, so they are exact and fast.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from confluent_kafka import KafkaError, TopicPartition


@dataclass
class FakeMessage:
    """The accessors of ``confluent_kafka.Message`` that the reader calls."""

    _key: bytes | None
    _value: bytes | None
    _offset: int
    _timestamp: tuple[int, int]
    _headers: list[tuple[str, bytes | None]] | None
    _error: KafkaError | None = None

    def key(self) -> bytes | None:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def offset(self) -> int:
        return self._offset

    def timestamp(self) -> tuple[int, int]:
        return self._timestamp

    def headers(self) -> list[tuple[str, bytes | None]] | None:
        return self._headers

    def error(self) -> KafkaError | None:
        return self._error


def record(offset: int) -> FakeMessage:
    """A record with a key, a value, a CreateTime and one header, all derived from its offset."""
    return FakeMessage(f"k{offset}".encode(), f'{{"n":{offset}}}'.encode(), offset, (1, 1_000 + offset), [("h", b"v")])


@dataclass
class FakeConsumer:
    """A consumer whose messages are all fetched already; it records what a real one would wait."""

    queued: deque[FakeMessage] = field(default_factory=deque)
    blocked_s: float = 0.0
    position_offset: int = 0
    calls: list[int] = field(default_factory=list)

    @classmethod
    def with_messages(cls, messages: Iterable[FakeMessage]) -> FakeConsumer:
        return cls(queued=deque(messages))

    def assign(self, partitions: list[TopicPartition]) -> None:
        self.position_offset = partitions[0].offset

    def consume(self, num_messages: int, timeout: float) -> list[FakeMessage]:
        taken = [self.queued.popleft() for _ in range(min(num_messages, len(self.queued)))]
        if len(taken) < num_messages:
            self.blocked_s += timeout  # librdkafka waits for the whole batch until the timeout
        return self._delivered(taken)

    def poll(self, timeout: float) -> FakeMessage | None:
        if not self.queued:
            self.blocked_s += timeout
            return None
        return self._delivered([self.queued.popleft()])[0]

    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        return [TopicPartition(p.topic, p.partition, self.position_offset) for p in partitions]

    def _delivered(self, messages: list[FakeMessage]) -> list[FakeMessage]:
        records = [m for m in messages if m.error() is None]
        if records:
            self.position_offset = records[-1].offset() + 1
        if messages:
            self.calls.append(len(messages))
        return messages
