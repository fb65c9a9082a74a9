"""Kafka consumer-group offsets: where an at-least-once sink resumes without a checkpoint.

With ``exactly.once.enable=false`` there is no index on the store, so the sink falls back to what
Kafka Connect does: the group ``connect-<name>`` remembers the next offset to read, committed
after each batch's objects are uploaded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from confluent_kafka import KafkaException, TopicPartition

from lakesink.adapters.kafka.authorization import Acl, denied_as
from lakesink.adapters.kafka.client_config import consumer_config, create_consumer, error_text
from lakesink.adapters.kafka.offsets import Positions, TopicPartitionKey
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import KafkaUnavailableError

_TIMEOUT_S = 30.0


def connect_group_id(connector: str) -> str:
    """Kafka Connect's consumer group name for a sink connector."""
    return f"connect-{connector}"


class GroupOffsets:
    """Reads and commits the offsets of one consumer group (driver side)."""

    def __init__(self, settings: Mapping[str, str | Secret], group_id: str, *, timeout_s: float = _TIMEOUT_S) -> None:
        self._config = consumer_config(settings, group_id=group_id)
        self._timeout_s = timeout_s
        self._consumer = create_consumer(self._config)
        self._acl = Acl(("READ",), "group", group_id)  # commits, and fetching the offsets (DESCRIBE)

    def committed(self, keys: Iterable[TopicPartitionKey]) -> Positions:
        """The committed next offset of each partition that has one."""
        wanted = [TopicPartition(topic, partition) for topic, partition in keys]
        if not wanted:
            return {}
        with denied_as(self._config, self._acl):
            found = self._consumer.committed(wanted, timeout=self._timeout_s)
        return {(tp.topic, tp.partition): tp.offset for tp in found if tp.offset >= 0}

    def commit(self, positions: Mapping[TopicPartitionKey, int]) -> None:
        """Commit ``positions`` (next offsets to read) synchronously."""
        if positions:
            offsets = [TopicPartition(t, p, o) for (t, p), o in sorted(positions.items())]
            with denied_as(self._config, self._acl):
                self._consumer.commit(offsets=offsets, asynchronous=False)

    def close(self) -> None:
        """Leave the group's client (no rebalance: the consumer never subscribed)."""
        self._consumer.close()


def read_group(
    settings: Mapping[str, str | Secret], group_id: str, keys: Iterable[TopicPartitionKey], *, timeout_s: float
) -> Positions:
    """The committed next offsets of ``group_id`` (what kafka-consumer-groups shows), asked once.

    Raises:
        KafkaAccessDeniedError: the principal may not read the group.
        KafkaUnavailableError: the group's coordinator did not answer within ``timeout_s``.
    """
    group = GroupOffsets(settings, group_id, timeout_s=timeout_s)
    try:
        return group.committed(keys)
    except KafkaException as error:
        raise KafkaUnavailableError(f"Consumer group {group_id} not read: {error_text(error)}") from None
    finally:
        group.close()
