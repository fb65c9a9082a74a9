"""Running the restore's task groups as Spark tasks: one RDD element, and one task, per group.

Each group of work items is pickled into one element of an RDD with exactly one element per
partition, so Spark runs one task per group (which group holds which origins is the driver's
choice, :mod:`lakesink.application.restore.driver`); the task function, handed in by the
application, replays the group's origins and returns one result per origin, which the driver
collects. Groups run in parallel up to the number of Spark task slots.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

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
        return tasks.mapPartitions(_unpickled(task)).collect()


def _unpickled(task: OriginTask) -> Callable[[Iterator[bytes]], Iterator[OriginResult]]:
    """The function each Spark task runs over its one payload."""

    def run_group(payloads: Iterator[bytes]) -> Iterator[OriginResult]:
        items: list[WorkItem] = [item for payload in payloads for item in pickle.loads(payload)]
        yield from task(items)

    return run_group
