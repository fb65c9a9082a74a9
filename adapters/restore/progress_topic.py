"""The progress topic: where each origin's last committed point lives, next to the data.

``__lakesink_restore_<name>``, keyed by origin, one progress partition per origin; created
compacted where the cluster allows (:func:`ensure_progress_topic`), else auto-created, and read
``read_committed`` (:func:`read_progress`). See docs/restore.md, "Delivery guarantees".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from lakesink.adapters.kafka.authorization import Acl, access_denied, denied_as, is_denied
from lakesink.adapters.kafka.client_config import admin_config, create_producer
from lakesink.adapters.kafka.client_logs import client_logger
from lakesink.domain.errors import TransientStorageError
from lakesink.domain.restore.progress import Progress

logger = logging.getLogger(__name__)

_METADATA_TIMEOUT_S = 30.0
_CREATE_TIMEOUT_S = 3.0


def ensure_progress_topic(config: Mapping[str, Any], topic: str) -> bool:
    """Create the compacted progress topic if the cluster allows it; otherwise auto-create it.

    Returns whether this call created it (False when it existed, or was left to auto-creation).
    """
    admin = AdminClient(admin_config(config), logger=client_logger())
    if topic in admin.list_topics(timeout=_METADATA_TIMEOUT_S).topics:
        return False
    futures = admin.create_topics(
        [NewTopic(topic, num_partitions=4, config={"cleanup.policy": "compact"})], request_timeout=_CREATE_TIMEOUT_S
    )
    try:
        futures[topic].result(timeout=_CREATE_TIMEOUT_S + 1)
    except (KafkaException, TimeoutError) as error:
        logger.info("Progress topic %s not created (%r); relying on auto-creation", topic, error)
        return False
    logger.info("Created progress topic %s", topic)
    return True


def partition_count(producer: Any, topic: str, config: Mapping[str, Any], needs: tuple[str, ...] = ("WRITE",)) -> int:
    """Partitions of ``topic`` (auto-created on first use where the cluster allows).

    Raises:
        KafkaAccessDeniedError: the principal in ``config`` may not DESCRIBE it, so not do ``needs`` either.
    """
    deadline = time.monotonic() + _METADATA_TIMEOUT_S
    while True:
        metadata = producer.list_topics(topic, timeout=_METADATA_TIMEOUT_S).topics.get(topic)
        if metadata is not None and metadata.error is None and metadata.partitions:
            return len(metadata.partitions)
        if metadata is not None and is_denied(metadata.error):  # never answered otherwise: no retry
            raise access_denied(Acl(needs, "topic", topic), config, "DESCRIBE")
        if time.monotonic() > deadline:
            raise TransientStorageError(f"Kafka topic {topic} has no partition metadata after {_METADATA_TIMEOUT_S} s.")
        time.sleep(0.2)


def fence(config: Mapping[str, Any], transactional: str, timeout_ms: int) -> None:
    """Initialise a producer under ``transactional``: aborts any transaction a crashed run left open."""
    producer = create_producer({**config, "transactional.id": transactional, "transaction.timeout.ms": timeout_ms})
    with denied_as(config, origin_ids(transactional)):
        producer.init_transactions(timeout_ms / 1000 + 30)
    producer.flush(5)


def origin_ids(transactional: str) -> Acl:
    """The ACL of the restore's transactional ids: WRITE on their common prefix (one id per origin,
    ``lakesink-restore-<name>-<crc>``), granted once for every origin to come."""
    return Acl(("WRITE",), "transactional id", transactional.rsplit("-", 1)[0] + "-", prefixed=True)


def read_progress(config: Mapping[str, Any], topic: str, partition: int, origin: str, timeout_ms: int) -> Progress | None:
    """The last committed progress of ``origin``, or None when it never committed any.

    ``read_committed`` up to the high watermark: a progress record is visible only if its transaction,
    and so the records it vouches for, committed. A transaction a crashed run left open is aborted when
    the origin's producer is re-initialised (:func:`fence`), which the driver does for every origin
    before any task reads; another run's short transactions just make the read wait, for at most the
    transaction timeout.
    """
    consumer = Consumer(
        {
            "bootstrap.servers": config["bootstrap.servers"],
            **{k: v for k, v in config.items() if k.startswith(("sasl.", "ssl.", "security."))},
            "group.id": f"lakesink-restore-progress-{topic}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        },
        logger=client_logger(),
    )
    try:
        tp = TopicPartition(topic, partition)
        low, high = consumer.get_watermark_offsets(tp, timeout=_METADATA_TIMEOUT_S)
        if high <= low:
            return None
        consumer.assign([TopicPartition(topic, partition, low)])
        wanted = origin.encode("utf-8")
        latest: Progress | None = None
        deadline = time.monotonic() + timeout_ms / 1000 + 30
        while True:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None and message.key() == wanted:
                latest = Progress.decode(message.value())
            position = consumer.position([tp])[0].offset
            if position >= high:
                return latest
            if time.monotonic() > deadline:
                raise TransientStorageError(
                    f"Progress topic {topic}[{partition}] stayed behind offset {high} (an open transaction?) "
                    f"for {timeout_ms / 1000 + 30:.0f} s."
                )
    finally:
        consumer.close()
