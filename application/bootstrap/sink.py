"""The sink's composition root: connector settings in, a :class:`~.sink_run.SinkRun` wired to its adapters out.

The one place that picks the adapters: the store backend the settings name, Kafka for the topics
and the consumer group, Spark for the compute, Prometheus for the metrics when a metrics port is set. Tests pass their own store here (a wrapper that
injects faults, for one); nothing else in the product has a test-only parameter.
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from lakesink.adapters.clock import WallClock
from lakesink.adapters.kafka.advisory_group import AdvisoryGroup
from lakesink.adapters.kafka.client_config import admin_config, connector_client_settings
from lakesink.adapters.kafka.dead_letter_queue import KafkaDeadLetterQueue
from lakesink.adapters.kafka.group_offsets import GroupOffsets, connect_group_id
from lakesink.adapters.kafka.topic_metadata import TopicMetadata
from lakesink.adapters.spark.sink_checkpoint import default_checkpoint
from lakesink.adapters.spark.sink_job import SparkSink
from lakesink.adapters.storage import open_store, settled_storage
from lakesink.adapters.tables.opening import table_opener
from lakesink.application.metrics_serving import FLAGS, serve_or_refuse
from lakesink.application.sink_metrics import NO_METRICS, EveryMetrics, SinkMetrics
from lakesink.application.sink_progress import SinkProgress
from lakesink.application.sink_run import SinkRun
from lakesink.application.sink_tables import SinkTables
from lakesink.application.table_maintain import remove_unreferenced
from lakesink.domain.commit.store_probe import checksum_probe_key
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore
from lakesink.domain.progress import ProgressOutput, silent
from lakesink.domain.statement_plan import plan_sink

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from lakesink.adapters.metrics.prometheus import PrometheusSinkMetrics
    from lakesink.adapters.spark.session import SparkSession
    from lakesink.adapters.spark.session_launch import SessionLaunch


def sink_run(
    settings: ConnectorSettings,
    spark: SparkSession | Callable[[], SparkSession],
    *,
    checkpoint_dir: str | None = None,
    once: bool = False,
    store: ObjectStore | None = None,
    metrics: SinkMetrics = NO_METRICS,
) -> SinkRun:
    """One sink run of ``settings`` on ``spark`` (or the session a callable gives at the first batch:
    a run with nothing to write never waits for the JVM); ``store`` replaces the backend the settings
    name; the run reports its batches to ``metrics`` (:func:`serving_metrics`).

    The store is asked at start what every client of the run must know (S3: whether it takes
    boto3's default request checksums, :func:`~lakesink.adapters.storage.settled_storage`); the
    answer goes into the settings the driver and the executors build their clients from.

    Raises:
        StorageError: the store refused the start-up probe.
    """
    plan = plan_sink(settings)
    run_id = str(uuid.uuid4())
    if store is None:
        bucket = min(statement.bucket for statement in plan.statements)
        probe = checksum_probe_key(settings.indexes_name, settings.name, run_id)
        settings = dataclasses.replace(settings, storage=settled_storage(settings.storage, bucket, probe, writes=True))
        store = open_store(settings.backend, settings.storage)
    client = connector_client_settings(settings)
    compute = SparkSink(
        settings,
        plan,
        spark,
        store,
        run_id=run_id,
        checkpoint_dir=checkpoint_dir or default_checkpoint(settings),
        once=once,
    )
    return SinkRun(
        settings,
        plan,
        store=store,
        compute=compute,
        # A library run may write a DataFrame without knowing Kafka: its partitions open batch by batch.
        metadata=TopicMetadata(admin_config(client), read_committed=True) if settings.bootstrap_servers else None,
        group=lambda: GroupOffsets(client, connect_group_id(settings.name)),
        # exactly-once resumes from the index; the group is kept current for the lag tools that read it
        lag_group=(
            (lambda: AdvisoryGroup(client, connect_group_id(settings.name)))
            if settings.exactly_once and settings.bootstrap_servers
            else None
        ),
        run_id=run_id,
        clock=WallClock(),
        dead_letters=(
            (lambda: KafkaDeadLetterQueue(client, connector=settings.name, reporting=settings.error_reporting))
            if settings.error_reporting.dlq_topic is not None
            else None
        ),
        metrics=metrics,
        tables=SinkTables(
            plan,
            table_opener(settings),
            connector=settings.name,
            owner=run_id,
            maintenance=settings.table_maintenance,
            remove_orphans=lambda: remove_unreferenced(settings, store, table_opener(settings), WallClock(),
                                                       dry_run=False),
        ),
    )


def with_metrics_flags(settings: ConnectorSettings, port: int | None, host: str | None) -> ConnectorSettings:
    """``settings`` with the command's ``--metrics-port`` / ``--metrics-host`` (when given) in place of
    ``connect.<p>.metrics.port`` / ``metrics.host``: the flags win."""
    if port is not None:
        settings = dataclasses.replace(settings, metrics_port=port)
    if host is not None:
        settings = dataclasses.replace(settings, metrics_host=host)
    return settings


@contextmanager
def serving_metrics(settings: ConnectorSettings) -> Iterator[SinkMetrics]:
    """The metrics a run of ``settings`` reports to: served by Prometheus on ``metrics_host:metrics_port``
    while the block runs, or nowhere when no port is set.

    Raises:
        ConfigError: the address cannot be listened on (taken, or not this machine's).
    """
    metrics = served_metrics(settings)
    if metrics is None:
        yield NO_METRICS
        return
    try:
        yield metrics
    finally:
        metrics.close()


def served_metrics(settings: ConnectorSettings) -> PrometheusSinkMetrics | None:
    """Prometheus metrics of ``settings``'s runs, served on ``metrics_host:metrics_port`` until closed;
    None when no port is set.

    Raises:
        ConfigError: the address cannot be listened on (taken, or not this machine's).
    """
    if settings.metrics_port is None:
        return None
    from lakesink.adapters.metrics.prometheus import PrometheusSinkMetrics

    metrics = PrometheusSinkMetrics(settings.name, hide=lambda value: str(settings.hidden.mask_leaves(value)))
    flags = f"{FLAGS} ({settings.prefix}.metrics.port / {settings.prefix}.metrics.host)"
    serve_or_refuse(metrics, settings.metrics_port, settings.metrics_host, flags=flags)
    return metrics


def run_sink(
    settings: ConnectorSettings,
    launch: SessionLaunch,
    *,
    once: bool,
    checkpoint: str | None = None,
    metrics_port: int | None = None,
    metrics_host: str | None = None,
    progress: ProgressOutput = silent,
) -> int:
    """The ``lakesink sink`` command on a session that is starting; returns the number of records written.

    The caller validated ``settings`` (:func:`.sink_settings.load_settings`) before it started
    ``launch``, and imported this module while the JVM started; leaving ``launch``'s ``with`` block
    (the caller's or this one's) stops the session. ``metrics_port`` / ``metrics_host`` (the
    command's flags) win over the settings'. ``progress`` gets a line per committed batch and the
    run's summary (:class:`.sink_progress.SinkProgress`), before the session stops.

    Raises:
        LakesinkError: the run failed.
    """
    settings = with_metrics_flags(settings, metrics_port, metrics_host)
    with launch, serving_metrics(settings) as metrics, summed_up(SinkProgress(progress)) as lines:
        run = sink_run(
            settings, launch.session, checkpoint_dir=checkpoint, once=once, metrics=EveryMetrics(metrics, lines)
        )
        with stopped_by_sigterm(run):
            run.run()
    return sum(report.records for report in run.reports)


@contextmanager
def summed_up(progress: SinkProgress) -> Iterator[SinkProgress]:
    """``progress`` while the block runs, and its summary however the block ends: done, stopped by
    SIGTERM, interrupted (Ctrl-C's KeyboardInterrupt) or failed (the error follows the summary)."""
    try:
        yield progress
    finally:
        progress.finish()


@contextmanager
def stopped_by_sigterm(run: SinkRun) -> Iterator[None]:
    """SIGTERM (``kill``, ``docker stop``, Kubernetes) ends the run after its batch in progress is
    committed, instead of killing it mid-batch (which is safe, but redoes the batch's work).

    The handler only starts a thread that stops the run: the main thread may hold the lock the stop
    signal takes. Outside the main thread (an embedding application) nothing is installed.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigterm(_signum: int, _frame: object) -> None:
        logger.info("SIGTERM: the sink stops after the batch in progress")
        threading.Thread(target=run.stop, name="lakesink-sigterm", daemon=True).start()

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
