"""A Kafka-compatible broker inside this process: librdkafka's mock cluster.

For the demo and tests that need a broker other processes (Spark executors) can reach, without
Java or Docker; :class:`EmbeddedKafka` keeps it open until closed. Small data only (about 5 MiB a
partition). See docs/kafka.md, "Embedded broker".
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaException, Producer

from lakesink.adapters.kafka.topic_metadata import TopicMetadata
from lakesink.domain.subscription import TopicSelection

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ProducedRecord:
    """One message to produce; ``partition=None`` lets the producer's partitioner choose."""

    value: bytes | None
    key: bytes | None = None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    timestamp_ms: int | None = None
    partition: int | None = None


class BrokerHandle:
    """What tests and the demo do with any broker they started: produce a data set and read its
    watermarks. Subclasses give :attr:`bootstrap_servers` (a plaintext listener on 127.0.0.1)."""

    _producer: Producer | None = None

    @property
    def bootstrap_servers(self) -> str:
        raise NotImplementedError

    def produce(self, topic: str, records: Iterable[ProducedRecord]) -> int:
        """Produce ``records`` to ``topic`` and wait until all are acknowledged; returns the count."""
        producer = self._shared_producer()
        failures: list[str] = []

        def on_delivery(err: Any, _msg: Any) -> None:
            if err is not None:
                failures.append(str(err))

        count = 0
        for record in records:
            kwargs: dict[str, Any] = {"key": record.key, "value": record.value, "on_delivery": on_delivery}
            if record.headers:
                kwargs["headers"] = list(record.headers)
            if record.timestamp_ms is not None:
                kwargs["timestamp"] = record.timestamp_ms
            if record.partition is not None:
                kwargs["partition"] = record.partition
            _produce_with_backpressure(producer, topic, kwargs)
            count += 1
        self.end_data_set(topic)
        if failures:
            raise KafkaException(f"{len(failures)} of {count} records to {topic} failed: {failures[0]}")
        return count

    def end_data_set(self, topic: str) -> dict[int, int]:
        """Flush everything produced to ``topic`` and return its high watermark per partition.

        The mock and Apache Kafka report exact high watermarks, so no terminating batch is needed
        (unlike Tansu); the returned watermarks let callers assert that the data set is complete.
        """
        producer = self._shared_producer()
        remaining = producer.flush(30)
        if remaining:
            raise KafkaException(f"{remaining} records to {topic} still unacknowledged after 30 s")
        return {partition: high for partition, (_low, high) in self.watermarks(topic).items()}

    def watermarks(self, topic: str) -> dict[int, tuple[int, int]]:
        """``{partition: (low, high)}`` for every partition of ``topic``; the high one is the last stable
        offset (an open transaction's records are not counted). Through the sink's own
        :class:`~.topic_metadata.TopicMetadata`, so a topic whose leader is still being elected (one
        created a moment ago) is asked again rather than failing."""
        metadata = TopicMetadata({"bootstrap.servers": self.bootstrap_servers}, timeout_s=10)
        try:
            keys = metadata.partitions(TopicSelection(topic, None))
            lows, highs = metadata.earliest(keys), metadata.latest(keys)
        finally:
            metadata.close()
        return {partition: (lows[(topic, partition)], highs[(topic, partition)]) for _topic, partition in keys}

    def _shared_producer(self) -> Producer:
        if self._producer is None:
            # Idempotent: a retry (a topic created a moment ago answers "unknown partition" at first)
            # cannot reorder a partition's records, so they land at the offsets of their production order.
            self._producer = Producer(
                {"bootstrap.servers": self.bootstrap_servers, "linger.ms": 5, "enable.idempotence": True}
            )
        return self._producer

    def _close_producer(self) -> None:
        if self._producer is not None:
            self._producer.flush(5)
        self._producer = None


class EmbeddedKafka(BrokerHandle):
    """A running librdkafka mock cluster; use as a context manager.

    Example::

        with EmbeddedKafka() as kafka:
            kafka.produce("orders", [ProducedRecord(b'{"id": 1}', key=b"1")])
            spark_options = {"kafka.bootstrap.servers": kafka.bootstrap_servers}

    Any client created with ``test.mock.num.brokers`` starts the cluster on a real TCP port and lives
    as long as that client. Produce, fetch, list-offsets, headers, consumer groups, offset commits
    and transactions (commit markers leave offset gaps, as on a real broker) work; CreateTopics does
    not (topics are auto-created with 4 partitions), and each partition keeps only about 5 MiB or
    100,000 messages.
    """

    def __init__(self, *, num_brokers: int = 1, start_timeout_s: float = 15.0) -> None:
        self._num_brokers = num_brokers
        self._start_timeout_s = start_timeout_s
        self._host: Producer | None = None
        self._bootstrap: str | None = None

    def __enter__(self) -> EmbeddedKafka:
        self.start()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the cluster and learn its address; idempotent.

        The address comes from the hosting client's metadata, not from its ``debug=mock`` log:
        a debug log nobody polls piles up in that client's queue for as long as the cluster runs
        (thousands of lines per topic), which slowed long test sessions down.
        """
        if self._host is not None:
            return
        # log_level 4: without it the client prints a NOTICE that its bootstrap.servers is replaced
        host = Producer({"bootstrap.servers": "unused:1", "test.mock.num.brokers": self._num_brokers, "log_level": 4})
        try:
            brokers = host.list_topics(timeout=self._start_timeout_s).brokers
        except KafkaException as error:
            raise RuntimeError(f"librdkafka mock cluster did not answer in time: {error}") from error
        self._bootstrap = ",".join(_loopback_only(f"{brokers[i].host}:{brokers[i].port}") for i in sorted(brokers))
        self._host = host
        logger.info("Embedded Kafka (librdkafka mock) listening on %s", self._bootstrap)

    def close(self) -> None:
        """Stop the cluster; every client connected to it loses its broker."""
        self._close_producer()
        self._host = None
        self._bootstrap = None

    @property
    def bootstrap_servers(self) -> str:
        """``127.0.0.1:PORT``, reachable from any process on this machine."""
        if self._bootstrap is None:
            raise RuntimeError("EmbeddedKafka is not started")
        return self._bootstrap


def _produce_with_backpressure(producer: Producer, topic: str, kwargs: Mapping[str, Any]) -> None:
    """Produce, serving delivery reports and retrying while the local queue is full."""
    while True:
        try:
            producer.produce(topic, **kwargs)
            producer.poll(0)
            return
        except BufferError:
            producer.poll(0.1)


def _loopback_only(address: str) -> str:
    """The mock binds loopback; insist on it so nothing is exposed beyond this machine."""
    host, _, port = address.rpartition(":")
    if host not in {"127.0.0.1", "localhost"}:
        raise RuntimeError(f"librdkafka mock cluster bound {address}, expected 127.0.0.1")
    return f"127.0.0.1:{port}"
