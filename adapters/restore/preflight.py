"""Driver-side checks and fencing before a batch of work items is dispatched."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lakesink.adapters.kafka.client_config import create_producer
from lakesink.adapters.restore.progress_topic import fence, partition_count, transactional_id
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.partitions import check_partition_counts, needed_partitions
from lakesink.domain.restore.plan import RestorePlan

logger = logging.getLogger(__name__)

_PARALLEL_FENCES = 16


def check_target_partitions(plan: RestorePlan, config: Mapping[str, Any], items: Sequence[WorkItem]) -> None:
    """Check the target topics have the partitions the items need.

    Raises:
        ConfigError: a target topic has too few partitions and remapping is off.
    """
    needed = needed_partitions(plan.partition_rule, ((item.topic, item.partition) for item in items))
    producer = create_producer(dict(config))
    try:
        actual = {topic: partition_count(producer, topic) for topic in needed}
    finally:
        producer.flush(5)
    check_partition_counts(plan.partition_rule, needed, actual)


class OriginFencing:
    """Fences each origin once per run, before any task reads progress.

    Fencing (re-initialising an origin's transactional id) aborts a transaction a crashed run
    left open; until then ``read_committed`` reads of its progress partition, which other
    origins share, would wait for the broker to time it out. An origin needs it the first time
    this run dispatches it: after a successful poll none of this run's transactions is open.
    None needs it when this run created the progress topic: every run ensures the topic before
    its first transaction, so no earlier run can have left one open in it (the tasks still
    re-initialise their own producers, which aborts an origin's stale data transaction).
    """

    def __init__(self, *, progress_topic_created: bool) -> None:
        self._needed = not progress_topic_created
        self._fenced: set[str] = set()

    def fence_new(self, plan: RestorePlan, config: Mapping[str, Any], items: Sequence[WorkItem]) -> int:
        """Fence the origins of ``items`` not fenced yet; returns how many were fenced."""
        if not self._needed:
            return 0
        ids = [transactional_id(plan.name, item.origin) for item in items if item.origin not in self._fenced]
        if ids:
            # Each fence is a broker round trip or more (InitProducerId, aborting a left-over
            # transaction); run them side by side (each took 0.1-0.3 s on Tansu here).
            with ThreadPoolExecutor(max_workers=min(_PARALLEL_FENCES, len(ids))) as pool:
                list(pool.map(lambda tid: fence(config, tid, plan.transaction_timeout_ms), ids))
            logger.info("Fenced %d origin producers of restore %s", len(ids), plan.name)
        self._fenced.update(item.origin for item in items)
        return len(ids)
