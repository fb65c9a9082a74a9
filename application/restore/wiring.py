"""The restore's composition: settings and a Spark session in, adapters wired to the use case.

The driver side (:func:`restore`) builds the store, the Kafka calls and the Spark task runner;
the executor side (:class:`OriginTasks`, pickled into every task) builds each task's store,
producers and object readers. Adapters are imported where they are built, so importing the
restore entry loads no Kafka client or format library.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lakesink.application.restore.driver import RestoreServices, RestoreSummary, run_restore
from lakesink.application.restore.origin import OriginReplay
from lakesink.application.restore.tasks import OPEN_AHEAD, deliver_in_order
from lakesink.application.restore_metrics import NO_RESTORE_METRICS, RestoreMetrics
from lakesink.domain.commit.store_probe import read_probe_key
from lakesink.domain.ports import ObjectStore
from lakesink.domain.progress import ProgressOutput, silent
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.plan import RestorePlan
from lakesink.domain.restore.results import OriginResult


def restore(
    plan: RestorePlan,
    spark: Any,
    *,
    once: bool,
    store: ObjectStore | None = None,
    sleep: Callable[[float], None] = time.sleep,
    max_polls: int | None = None,
    progress: ProgressOutput = silent,
    metrics: RestoreMetrics = NO_RESTORE_METRICS,
) -> RestoreSummary:
    """Run the restore on ``spark`` (a ``pyspark.sql.SparkSession``; typed loosely because this layer
    imports no pyspark): one pass with ``once``, else poll until interrupted (or ``max_polls``);
    ``progress`` gets each poll's steps and ``metrics`` each poll's figures."""
    from lakesink.adapters.kafka.client_config import producer_config
    from lakesink.adapters.restore.broker import KafkaRestoreBroker
    from lakesink.adapters.restore.spark_job import SparkTaskRunner
    from lakesink.adapters.storage import open_store, settled_storage

    if store is None:  # the executors build their stores from the plan: it carries what the probe found
        first = plan.roots[0]
        probe = read_probe_key(first.list_prefix, str(uuid.uuid4()))
        plan = dataclasses.replace(plan, storage=settled_storage(plan.storage, first.bucket, probe, writes=False))
        store = open_store(plan.backend, plan.storage)
    services = RestoreServices(
        store=store,
        broker=KafkaRestoreBroker(producer_config(plan.producer)),
        runner=SparkTaskRunner(spark),
        task=OriginTasks(plan),
    )
    return run_restore(
        plan, services, once=once, sleep=sleep, max_polls=max_polls, progress=progress, metrics=metrics
    )


@dataclass(frozen=True, slots=True)
class OriginTasks:
    """One task's work: its origins replayed in order, opened ahead (runs on an executor)."""

    plan: RestorePlan

    def __call__(self, items: Sequence[WorkItem]) -> Iterator[OriginResult]:
        from lakesink.adapters.kafka.client_config import producer_config
        from lakesink.adapters.storage import open_store

        store = open_store(self.plan.backend, self.plan.storage)
        config = producer_config(self.plan.producer)
        yield from deliver_in_order([origin_replay(self.plan, item, store, config) for item in items], OPEN_AHEAD)


def origin_replay(plan: RestorePlan, item: WorkItem, store: ObjectStore, config: Mapping[str, Any]) -> OriginReplay:
    """The replay of one origin over a confluent-kafka producer (``config``) and the format readers
    (a Confluent sink's objects with their stored keys and headers, an Aiven sink's files, Quix
    objects as their rows)."""
    from lakesink.adapters.dialects.registry import restore_reader
    from lakesink.adapters.restore.delivery import KafkaOriginProducer

    read = restore_reader(plan.roots[item.root])
    return OriginReplay(plan, item, producer=KafkaOriginProducer(plan, item, config), store=store, read=read)
