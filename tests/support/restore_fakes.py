"""Fakes of the restore's ports (lakesink.domain.restore.ports) for use-case tests without a broker or Spark."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.ports import OriginTask, TasksDone
from lakesink.domain.restore.results import OriginResult


class RecordingBroker:
    """The driver's Kafka calls: topics of ``partitions`` partitions; notes what was fenced."""

    def __init__(self, *, partitions: int = 4, creates_progress_topic: bool = False) -> None:
        self.partitions = partitions
        self.creates_progress_topic = creates_progress_topic
        self.fenced: list[str] = []

    def ensure_progress_topic(self, topic: str) -> bool:
        return self.creates_progress_topic

    def partition_counts(self, topics: Iterable[str]) -> dict[str, int]:
        return dict.fromkeys(topics, self.partitions)

    def fence(self, transactional_ids: Sequence[str], timeout_ms: int) -> None:
        self.fenced.extend(transactional_ids)


class InlineRunner:
    """Runs every group in this thread, one after another; notes the groups it was given."""

    def __init__(self, slots: int = 2) -> None:
        self._slots = slots
        self.groups: list[list[str]] = []

    def slots(self) -> int:
        return self._slots

    def run(
        self, groups: Sequence[Sequence[WorkItem]], task: OriginTask, on_tasks: TasksDone | None = None
    ) -> list[OriginResult]:
        self.groups.extend([item.origin for item in group] for group in groups)
        results = []
        for done, group in enumerate(groups, 1):
            results.extend(task(group))
            if on_tasks is not None:
                on_tasks(done, len(groups))
        return results
