"""Spreading origin partitions over Spark tasks.

The driver's work items (one per origin partition, objects in order) are split into one group
per task slot of near-equal bytes (:func:`~lakesink.domain.restore.balance.balanced_groups`;
hash partitioning of a few origins leaves cores idle), each group pickled into one element of
an RDD with exactly one element per partition. Each task delivers its origins one after
another, one :class:`OriginDelivery` (with its own transactional producer) per origin, and
returns one :class:`OriginResult` per origin, which the driver collects for the summary. Each
origin is replayed by exactly one task, in order; groups run in parallel up to the number of
Spark task slots.

While an origin is delivered, the next :data:`OPEN_AHEAD` origins are opened on other threads
(:meth:`OriginDelivery.open`: ``init_transactions``, metadata, reading the progress back). Those
are broker waits (librdkafka releases the GIL), 0.05-0.65 s an origin measured in Spark tasks on
Tansu, which one after another took a tenth to two fifths of a task. Delivering several at the
same time was measured too and rejected: on 2 cores running 2 tasks and the broker, the CPU is
already busy, and concurrent transactions cost the client and the broker more CPU per record
(client 5.3 → 8 µs, Tansu 3.3 → 5 µs with 4 at a time) for no gain in wall time.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol

from lakesink.adapters.restore.delivery import OriginResult
from lakesink.domain.restore.balance import balanced_groups
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.plan import RestorePlan

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

OPEN_AHEAD = 4
"""Origins opened ahead of the one being delivered; each holds an initialised producer."""


class Delivery(Protocol):
    """What :func:`deliver_in_order` needs of an origin's delivery (:class:`OriginDelivery`)."""

    def open(self) -> None: ...

    def prefetch(self) -> None: ...

    def run(self) -> OriginResult: ...

    def close(self) -> None: ...


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
        items: list[WorkItem] = [item for payload in payloads for item in pickle.loads(payload)]
        yield from deliver_in_order([OriginDelivery(plan, item, store, config) for item in items], OPEN_AHEAD)

    return restore_group


def deliver_in_order(deliveries: Sequence[Delivery], ahead: int) -> Iterator[OriginResult]:
    """Run the deliveries one after another, each opened on a helper thread up to ``ahead`` earlier.

    While one origin is delivered, the next one also fetches its first object once opened
    (:meth:`OriginDelivery.prefetch`), so its delivery starts without waiting for S3 and the
    decoder. A failed open is raised when its origin's turn comes (origins before it are
    delivered); opens still running then finish before the error leaves, no later origin is
    delivered, and fetching ahead stops.
    """
    if ahead < 1 or len(deliveries) <= 1:
        for delivery in deliveries:
            yield delivery.run()
        return
    with ThreadPoolExecutor(max_workers=ahead, thread_name_prefix="lakesink-open") as pool:
        opening: list[Future[None]] = [pool.submit(d.open) for d in deliveries[:ahead]]
        try:
            for index, delivery in enumerate(deliveries):
                opening[index].result()
                if index + ahead < len(deliveries):
                    opening.append(pool.submit(deliveries[index + ahead].open))
                if index + 1 < len(deliveries):
                    opening[index + 1].add_done_callback(_prefetch_when_opened(deliveries[index + 1]))
                yield delivery.run()
        finally:
            pool.shutdown(wait=True)  # no open (nor its prefetch callback) runs after this
            for delivery in deliveries:
                delivery.close()


def _prefetch_when_opened(delivery: Delivery) -> Callable[[Future[None]], None]:
    def prefetch(opened: Future[None]) -> None:
        if opened.exception() is None:
            delivery.prefetch()

    return prefetch
