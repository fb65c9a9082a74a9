"""The driver's Kafka calls before tasks start: the progress topic, partition counts, fencing."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lakesink.adapters.kafka.client_config import create_producer
from lakesink.adapters.restore.progress_topic import ensure_progress_topic, fence, partition_count

_PARALLEL_FENCES = 16


class KafkaRestoreBroker:
    """The :class:`~lakesink.domain.restore.ports.RestoreBroker` on confluent-kafka (producer ``config``)."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self._config = dict(config)

    def ensure_progress_topic(self, topic: str) -> bool:
        return ensure_progress_topic(self._config, topic)

    def partition_counts(self, topics: Iterable[str]) -> dict[str, int]:
        producer = create_producer(dict(self._config))
        try:
            return {topic: partition_count(producer, topic, self._config) for topic in topics}
        finally:
            producer.flush(5)

    def fence(self, transactional_ids: Sequence[str], timeout_ms: int) -> None:
        """Fence the ids side by side: each is a broker round trip or more (InitProducerId, aborting a
        left-over transaction), 0.1-0.3 s each on Tansu here."""
        if not transactional_ids:
            return
        with ThreadPoolExecutor(max_workers=min(_PARALLEL_FENCES, len(transactional_ids))) as pool:
            list(pool.map(lambda tid: fence(self._config, tid, timeout_ms), transactional_ids))
