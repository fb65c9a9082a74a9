"""The restore's ports: what the use case needs from Kafka, the object readers and the cluster.

Adapters implement these structurally (``adapters/restore/``); the use case in
``application/restore/`` sees nothing else, so its order, resume and transaction rules run
against fakes in unit tests. The object store is :class:`~lakesink.domain.ports.ObjectStore`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from lakesink.domain.restore.batch import MessageBatch
from lakesink.domain.restore.index import IndexEntry, WorkItem
from lakesink.domain.restore.plan import RestoreRoot
from lakesink.domain.restore.progress import Progress
from lakesink.domain.restore.results import OriginResult

OriginTask = Callable[[Sequence[WorkItem]], Iterator[OriginResult]]
"""What one cluster task runs: its origins in, one result per origin out (picklable)."""


class BatchReader(Protocol):
    """Reads one downloaded object of a root as message batches, in file order."""

    def __call__(self, root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
        """The object's messages.

        Raises:
            FormatError: the file is not valid for the root's format.
            RecordError: a record cannot be turned into a message.
        """
        ...


class OriginProducer(Protocol):
    """The transactional Kafka producer of one origin: its records and its progress, together."""

    def open(self) -> Progress | None:
        """Initialise the producer (fencing an older one of the origin, aborting its open transaction)
        and read back the origin's last committed progress; None when it never committed any.

        Raises:
            TransientStorageError: the broker gave no metadata or the progress read timed out.
        """
        ...

    def partitions(self, topic: str | None = None) -> int:
        """The partition count of ``topic``, by default the work item's target topic (after :meth:`open`)."""
        ...

    def begin(self) -> None:
        """Begin a transaction."""
        ...

    def produce(
        self,
        batch: MessageBatch,
        start: int,
        stop: int,
        targets: Mapping[int | None, int | None],
        topic: str | None = None,
    ) -> None:
        """Send rows ``[start, stop)`` of ``batch`` in the open transaction, to ``topic`` (by
        default the work item's target topic).

        ``targets``: each origin partition of those rows → the partition to produce to
        (None = the producer's partitioner chooses).
        """
        ...

    def commit(self, progress: Progress) -> None:
        """Add ``progress`` to the open transaction and commit it.

        Raises:
            RecordError: the transaction failed (none of its records nor its progress is visible).
        """
        ...

    def abort(self) -> None:
        """Abort the open transaction."""
        ...

    def close(self) -> None:
        """Wait for what is queued and release the producer."""
        ...


class RestoreBroker(Protocol):
    """The driver's Kafka calls, before any task runs."""

    def ensure_progress_topic(self, topic: str) -> bool:
        """Create the progress topic if the cluster allows it; whether this call created it."""
        ...

    def partition_counts(self, topics: Iterable[str]) -> dict[str, int]:
        """Each topic's partition count.

        Raises:
            TransientStorageError: a topic has no partition metadata in time.
        """
        ...

    def fence(self, transactional_ids: Sequence[str], timeout_ms: int) -> None:
        """Initialise a producer under each id, aborting any transaction a crashed run left open."""
        ...


TasksDone = Callable[[int, int], None]
"""``(done, total)``: how many of a run's tasks finished (a restore's progress while its job runs)."""


class TaskRunner(Protocol):
    """Runs groups of work items as parallel tasks (Spark tasks in production)."""

    def slots(self) -> int:
        """How many tasks run at once when the plan sets no parallelism."""
        ...

    def run(
        self, groups: Sequence[Sequence[WorkItem]], task: OriginTask, on_tasks: TasksDone | None = None
    ) -> list[OriginResult]:
        """Run ``task`` once per group, the groups side by side; every origin's result. ``on_tasks``
        is told, now and then while they run, how many of the tasks are done."""
        ...
