"""Running the restore's task groups as Spark tasks: one RDD element, and one task, per group.

Each group of work items is pickled into one element of an RDD with exactly one element per
partition, so Spark runs one task per group (which group holds which origins is the driver's
choice, :mod:`lakesink.application.restore.driver`); the task function, handed in by the
application, replays the group's origins and returns one result per origin, which the driver
collects. Groups run in parallel up to the number of Spark task slots.

A task refused by the store or by Kafka for want of a permission, or stopped by an invalid setting,
returns that error as data (:class:`_Refused`) instead of failing: Spark would retry a failed task
(no retry grants a permission) and hand the driver a Python traceback in a Java exception, where
the error as data is raised on the driver as the lakesink error it was, so the CLI prints its one
line and exits 2. Any other failure fails the task as before, and Spark's task retries apply.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakesink.domain.errors import AccessDeniedError, ConfigError, error_of_kind
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.ports import OriginTask
from lakesink.domain.restore.results import OriginResult

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class SparkTaskRunner:
    """The :class:`~lakesink.domain.restore.ports.TaskRunner` on a Spark session."""

    def __init__(self, spark: SparkSession) -> None:
        self._spark = spark

    def slots(self) -> int:
        """Spark's default parallelism: the task slots of the cluster (cores of a local master)."""
        return int(self._spark.sparkContext.defaultParallelism)

    def run(self, groups: Sequence[Sequence[WorkItem]], task: OriginTask) -> list[OriginResult]:
        if not groups:
            return []
        payloads = [pickle.dumps(list(group)) for group in groups]
        tasks = self._spark.sparkContext.parallelize(payloads, len(payloads))
        collected: list[OriginResult | _Refused] = tasks.mapPartitions(_unpickled(task)).collect()
        refused = next((result for result in collected if isinstance(result, _Refused)), None)
        if refused is not None:
            raise error_of_kind(refused.kind, refused.message)
        return [result for result in collected if isinstance(result, OriginResult)]


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
