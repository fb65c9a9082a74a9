"""Running the restore's task groups as Spark tasks: one RDD element, and one task, per group.

Which group holds which origins is the driver's choice; the task function, handed in by the
application, returns one result per origin. An error no retry fixes comes back as data, so the
driver prints one line instead of a traceback (:class:`SparkTaskRunner`).
See docs/restore.md, "Parallelism on Spark".
"""

from __future__ import annotations

import pickle
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakesink.adapters.spark.task_failures import raised_in_task
from lakesink.domain.errors import AccessDeniedError, ConfigError, error_of_kind
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.ports import OriginTask, TasksDone
from lakesink.domain.restore.results import OriginResult

if TYPE_CHECKING:
    from pyspark import RDD, SparkContext
    from pyspark.sql import SparkSession

WATCH_EVERY_S = 1.0
"""How often a restore's job is asked how many of its tasks are done (the driver's progress lines
throttle what they show)."""


class SparkTaskRunner:
    """The :class:`~lakesink.domain.restore.ports.TaskRunner` on a Spark session.

    Each group is pickled into one element of an RDD with one element per partition, so Spark runs
    one task per group, in parallel up to the number of task slots, while a thread counts the
    finished tasks for the driver's progress lines. A task refused by the store or by Kafka for want
    of a permission, or stopped by an invalid setting, returns that error as data (:class:`_Refused`)
    instead of failing: no retry grants a permission, and the driver raises it as the lakesink error
    it was (the CLI prints one line and exits 2) instead of a Python traceback in a Java exception.
    Any other failure fails the task and Spark's retries apply; when they are used up, a lakesink
    error is raised on the driver as that error (:mod:`lakesink.adapters.spark.task_failures`).
    """

    def __init__(self, spark: SparkSession) -> None:
        self._spark = spark

    def slots(self) -> int:
        """Spark's default parallelism: the task slots of the cluster (cores of a local master)."""
        return int(self._spark.sparkContext.defaultParallelism)

    def run(
        self, groups: Sequence[Sequence[WorkItem]], task: OriginTask, on_tasks: TasksDone | None = None
    ) -> list[OriginResult]:
        if not groups:
            return []
        payloads = [pickle.dumps(list(group)) for group in groups]
        context = self._spark.sparkContext
        tasks = context.parallelize(payloads, len(payloads)).mapPartitions(_unpickled(task))
        if on_tasks is None:
            return _results(_collected(tasks))
        group = f"lakesink-restore-{uuid.uuid4().hex}"
        with _job_group(context, group), _watching(context, group, len(payloads), on_tasks):
            return _results(_collected(tasks))


def _collected(tasks: RDD[OriginResult | _Refused]) -> list[OriginResult | _Refused]:
    """The tasks' results; a task that failed for good with a lakesink error raises that error."""
    from pyspark.errors import PythonException

    try:
        return tasks.collect()
    except PythonException as failure:
        raised = raised_in_task(failure)
        if raised is None:
            raise
        raise raised from None


def _results(collected: list[OriginResult | _Refused]) -> list[OriginResult]:
    """The tasks' results, or the error that refused one raised as the lakesink error it was."""
    refused = next((result for result in collected if isinstance(result, _Refused)), None)
    if refused is not None:
        raise error_of_kind(refused.kind, refused.message)
    return [result for result in collected if isinstance(result, OriginResult)]


@contextmanager
def _job_group(context: SparkContext, group: str) -> Iterator[None]:
    """This thread's next jobs in ``group`` (their tasks can be counted), then in the group it had
    before (a library user's)."""
    previous = {key: context.getLocalProperty(key) for key in _JOB_GROUP_KEYS}
    context.setJobGroup(group, "lakesink restore")
    try:
        yield
    finally:
        for key, value in previous.items():
            context.setLocalProperty(key, value)  # None removes it


_JOB_GROUP_KEYS = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
"""The local properties :meth:`SparkContext.setJobGroup` sets."""


@contextmanager
def _watching(context: SparkContext, group: str, total: int, on_tasks: TasksDone) -> Iterator[None]:
    """Tell ``on_tasks`` every :data:`WATCH_EVERY_S` how many of the ``total`` tasks of ``group``'s
    jobs are done, from a daemon thread, while the block runs (Spark's status tracker: the driver's
    own bookkeeping, no request to the executors)."""
    stop = threading.Event()

    def watch() -> None:
        tracker = context.statusTracker()
        while not stop.wait(WATCH_EVERY_S):
            stages = (
                tracker.getStageInfo(stage)
                for job in tracker.getJobIdsForGroup(group)
                for stage in getattr(tracker.getJobInfo(job), "stageIds", ())
            )
            on_tasks(sum(stage.numCompletedTasks for stage in stages if stage is not None), total)

    watcher = threading.Thread(target=watch, name="lakesink-restore-tasks", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()


@dataclass(frozen=True, slots=True)
class _Refused:
    """The error that stopped a task and that no retry fixes, by class name and message."""

    kind: str
    message: str


def _unpickled(task: OriginTask) -> Callable[[Iterator[bytes]], Iterator[OriginResult | _Refused]]:
    """The function each Spark task runs over its one payload."""

    def run_group(payloads: Iterator[bytes]) -> Iterator[OriginResult | _Refused]:
        items: list[WorkItem] = [item for payload in payloads for item in pickle.loads(payload)]
        try:
            yield from task(items)
        except (AccessDeniedError, ConfigError) as refused:
            yield _Refused(type(refused).__name__, str(refused))

    return run_group
