"""Which origins the driver fences before a poll's tasks start: each once per run, or none at all."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.plan import RestorePlan
from lakesink.domain.restore.ports import RestoreBroker
from lakesink.domain.restore.progress import transactional_id

logger = logging.getLogger(__name__)


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

    def fence_new(self, plan: RestorePlan, broker: RestoreBroker, items: Sequence[WorkItem]) -> int:
        """Fence the origins of ``items`` not fenced yet; returns how many were fenced."""
        if not self._needed:
            return 0
        ids = [transactional_id(plan.name, item.origin) for item in items if item.origin not in self._fenced]
        if ids:
            broker.fence(ids, plan.transaction_timeout_ms)
            logger.info("Fenced %d origin producers of restore %s", len(ids), plan.name)
        self._fenced.update(item.origin for item in items)
        return len(ids)
