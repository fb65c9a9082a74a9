"""``lakesink restore`` wired: the config in, Spark started, adapters handed to the use case.

:func:`run_restore_command` is the command; :func:`restore` runs a plan on a session. The driver
side builds the store, the Kafka calls and the Spark task runner;
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

from lakesink.application.bootstrap.config_file import load_config
from lakesink.application.bootstrap.spark_command import SparkCommand
from lakesink.application.metrics_serving import serving
from lakesink.application.restore.command import load_plan
from lakesink.application.restore.driver import RestoreServices, RestoreSummary, run_restore
from lakesink.application.restore.origin import OriginReplay
from lakesink.application.restore.tasks import OPEN_AHEAD, deliver_in_order
from lakesink.application.restore_metrics import NO_RESTORE_METRICS, RestoreMetrics
from lakesink.domain.commit.store_probe import read_probe_key
from lakesink.domain.config.hidden import HiddenValues
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


@dataclass(frozen=True, slots=True)
class RestoreCommand(SparkCommand):
    """``lakesink restore``'s flags; its default master is :data:`DEFAULT_MASTER`."""


DEFAULT_MASTER = "local[2]"


def run_restore_command(command: RestoreCommand, progress: ProgressOutput = silent) -> RestoreSummary:
    """The CLI's entry: load the config, start Spark, restore (its steps to ``progress``), stop Spark."""
    from lakesink.adapters.spark.session import create_session

    config = load_config(command.config_path)
    plan = load_plan(config.values, provided=config.provided)
    from lakesink.application.bootstrap.preflight import check_restore_environment  # loads the SDKs

    check_restore_environment(config.values, plan, config.provided)  # one line naming the setting, before Spark prints anything
    from lakesink.adapters.metrics.restore_prometheus import PrometheusRestoreMetrics

    hidden = HiddenValues.of(config.values, config.provided)
    endpoint = serving(
        lambda: PrometheusRestoreMetrics(plan.name, hide=lambda value: str(hidden.mask_leaves(value))),
        command.metrics_port,
        command.metrics_host,
    )
    with endpoint as metrics:
        spark = create_session(
            command.master, f"lakesink-restore-{plan.name}", command.spark_conf, default_master=DEFAULT_MASTER
        )
        try:
            return restore(
                plan, spark, once=command.once, progress=progress, metrics=metrics or NO_RESTORE_METRICS
            )
        finally:
            spark.stop()
