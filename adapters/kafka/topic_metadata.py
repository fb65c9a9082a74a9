"""Which topic-partitions the source reads, and how far each goes: broker metadata for the driver.

``subscribe`` topics that do not exist yet are skipped until they appear; ``assign`` reads the named
partitions that exist. The selection is re-evaluated on every planning call, so new partitions and
topics are picked up. Watermarks take one ListOffsets request per kind; under ``read_committed``
(librdkafka's default) "latest" is the last stable offset, so a batch never ends inside an open
transaction. See docs/kafka.md, "Options".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from typing import Any

from confluent_kafka import IsolationLevel, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from lakesink.adapters.kafka.client_config import error_code
from lakesink.adapters.kafka.client_logs import client_logger, last_client_line
from lakesink.adapters.kafka.offsets import TopicPartitionKey
from lakesink.domain.subscription import TopicSelection

logger = logging.getLogger(__name__)
_RETRY_PAUSE_S = 0.2
"""Between two asks of partitions refused with a retriable error (a leader being elected)."""


class TopicMetadata:
    """Lists selected partitions and their watermarks through an AdminClient (driver only)."""

    def __init__(
        self, admin_config: Mapping[str, Any], *, read_committed: bool = True, timeout_s: float = 30.0
    ) -> None:
        self._config = dict(admin_config)
        self._isolation = IsolationLevel.READ_COMMITTED if read_committed else IsolationLevel.READ_UNCOMMITTED
        self._timeout_s = timeout_s
        self._admin: AdminClient | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self._config, "isolation": self._isolation, "timeout": self._timeout_s}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._config, self._isolation, self._timeout_s = state["config"], state["isolation"], state["timeout"]
        self._admin = None

    def partitions(self, selection: TopicSelection) -> list[TopicPartitionKey]:
        """Every selected topic-partition that exists now, sorted."""
        try:
            metadata = self._client().list_topics(timeout=self._timeout_s)
        except KafkaException as exc:
            seen = last_client_line()
            raise ConnectionError(f"Kafka metadata request failed: {exc}" + (f" (the client said: {seen})" if seen else "")) from exc
        return sorted(
            (topic, partition)
            for topic, info in metadata.topics.items()
            if selection.matches(topic) and info.error is None
            for partition in info.partitions
            if selection.selects((topic, partition))
        )

    def earliest(self, keys: Iterable[TopicPartitionKey]) -> dict[TopicPartitionKey, int]:
        """The low watermark of each partition."""
        return self._list_offsets(keys, OffsetSpec.earliest())

    def latest(self, keys: Iterable[TopicPartitionKey]) -> dict[TopicPartitionKey, int]:
        """The high watermark (last stable offset under read_committed) of each partition."""
        return self._list_offsets(keys, OffsetSpec.latest())

    def _list_offsets(
        self, keys: Iterable[TopicPartitionKey], spec: OffsetSpec
    ) -> dict[TopicPartitionKey, int]:
        """ListOffsets of ``keys``, partitions refused with a retriable error asked again.

        Right after a broker restart or a leader change a partition answers with a retriable error
        (``UNKNOWN_LEADER_EPOCH``, ``NOT_LEADER_OR_FOLLOWER``, ``LEADER_NOT_AVAILABLE``) until the
        metadata catches up. Java's AdminClient asks such partitions again; librdkafka's fails the
        future, so those are asked again here, within the request timeout.
        """
        request = {TopicPartition(topic, partition): spec for topic, partition in keys}
        result: dict[TopicPartitionKey, int] = {}
        deadline = time.monotonic() + self._timeout_s
        while request:
            futures = self._client().list_offsets(
                request, isolation_level=self._isolation, request_timeout=self._timeout_s
            )
            again = {}
            for tp, future in futures.items():
                try:
                    result[(tp.topic, tp.partition)] = future.result().offset
                except KafkaException as exc:
                    if error_code(exc) not in _LEADER_MOVING or time.monotonic() > deadline:
                        raise ConnectionError(f"ListOffsets failed for {tp.topic}-{tp.partition}: {exc}") from exc
                    again[TopicPartition(tp.topic, tp.partition)] = spec
            if again:  # a new client: the old one may hold the leader epochs that were refused
                self._admin = None
                time.sleep(_RETRY_PAUSE_S)
            request = again
        return result

    def close(self) -> None:
        """Drop the admin client (it holds broker connections)."""
        self._admin = None

    def _client(self) -> AdminClient:
        if self._admin is None:
            self._admin = AdminClient(self._config, logger=client_logger())
        return self._admin


_LEADER_MOVING = frozenset({
    KafkaError.UNKNOWN_LEADER_EPOCH, KafkaError.FENCED_LEADER_EPOCH, KafkaError.NOT_LEADER_FOR_PARTITION,
    KafkaError.LEADER_NOT_AVAILABLE, KafkaError.OFFSET_NOT_AVAILABLE, KafkaError.REQUEST_TIMED_OUT,
})
"""ListOffsets errors Kafka calls retriable (a leader being elected or catching up). librdkafka builds the
admin result's errors from the bare code, so their ``retriable()`` is always false: the codes decide."""
