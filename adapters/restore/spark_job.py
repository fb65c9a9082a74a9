"""Spreading origin partitions over Spark tasks.

The driver's work items (one per origin partition, objects in order) are split into one group
per task slot of near-equal bytes (:func:`~lakesink.domain.restore.balance.balanced_groups`;
hash partitioning of a few origins leaves cores idle), each group pickled into one element of
an RDD with exactly one element per partition. Each task runs :class:`OriginDelivery` for its
origins in order and returns one :class:`OriginResult` per origin, which the driver collects
for the summary. Each origin is replayed by exactly one task, in order; groups run in
parallel up to the number of Spark task slots.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from lakesink.adapters.restore.delivery import OriginResult
from lakesink.domain.restore.balance import balanced_groups
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.plan import RestorePlan

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def run_work_items(spark: SparkSession, plan: RestorePlan, items: Sequence[WorkItem]) -> list[OriginResult]:
    """Restore ``items`` on the cluster; returns one result per origin."""
    if not items:
        return []
    slots = plan.parallelism or spark.sparkContext.defaultParallelism
    groups = balanced_groups([sum(entry.size for entry in item.objects) for item in items], slots)
    payloads = [pickle.dumps([items[index] for index in group]) for group in groups]
    tasks = spark.sparkContext.parallelize(payloads, len(payloads))
    return tasks.mapPartitions(_task(plan)).collect()


def _task(plan: RestorePlan) -> Any:
    """The function each Spark task runs over its one payload (imports happen on the executor)."""

    def restore_group(payloads: Iterator[bytes]) -> Iterator[OriginResult]:
        from lakesink.adapters.kafka.client_config import producer_config
        from lakesink.adapters.restore.delivery import OriginDelivery
        from lakesink.adapters.storage import open_store

        store = open_store(plan.backend, plan.storage)
        config = producer_config(plan.producer)
        for payload in payloads:
            group: list[WorkItem] = pickle.loads(payload)
            for item in group:
                yield OriginDelivery(plan, item, store, config).run()

    return restore_group
