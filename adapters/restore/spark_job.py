"""Spreading origin partitions over Spark tasks.

The driver's work items (one per origin partition, objects in order) become rows
``(origin, item)`` with the item pickled; ``repartition(n, "origin")`` spreads them and
``mapInArrow`` runs :class:`OriginDelivery` for each row inside the task, yielding one result
row per origin that the driver collects for the summary. Each origin is replayed by exactly
one task, in order; origins run in parallel up to the number of Spark task slots.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from lakesink.adapters.restore.delivery import OriginResult
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.plan import RestorePlan

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

RESULT_SCHEMA = (
    "origin string, objects long, records long, bytes long, skipped_objects long, "
    "last_offset long, last_key string, seconds double"
)


def run_work_items(spark: SparkSession, plan: RestorePlan, items: Sequence[WorkItem]) -> list[OriginResult]:
    """Restore ``items`` on the cluster; returns one result per origin."""
    if not items:
        return []
    slots = plan.parallelism or spark.sparkContext.defaultParallelism
    partitions = max(1, min(len(items), slots))
    rows = [(item.origin, pickle.dumps(item)) for item in items]
    frame = spark.createDataFrame(rows, "origin string, item binary").repartition(partitions, "origin")
    collected = frame.mapInArrow(_task(plan), RESULT_SCHEMA).collect()
    return [OriginResult(**row.asDict()) for row in collected]


def _task(plan: RestorePlan) -> Any:
    """The function each Spark task runs over its rows (imports happen on the executor)."""

    def restore_rows(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow as pa

        from lakesink.adapters.kafka.client_config import producer_config
        from lakesink.adapters.restore.delivery import OriginDelivery
        from lakesink.adapters.storage import open_store

        store = open_store(plan.backend, plan.storage)
        config = producer_config(plan.producer)
        for batch in batches:
            for payload in batch.column("item").to_pylist():
                item: WorkItem = pickle.loads(payload)
                result = OriginDelivery(plan, item, store, config).run()
                yield pa.RecordBatch.from_pylist([dataclasses.asdict(result)])

    return restore_rows

