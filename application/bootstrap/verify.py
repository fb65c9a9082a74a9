"""``lakesink verify --config FILE [--json]``: the sink config in, its store and cluster wired to the check, a report out.

The config is the sink's own (Lenses KCQL, Confluent or Aiven S3 sink), validated exactly as
``lakesink sink`` validates it, so a wrong setting is the same one ``lakesink: error:`` line
(exit 2). Its buckets are checked the same way before anything is listed. Kafka is optional:
a cluster that does not answer (in a few seconds, not the sink's 30) is reported and the store is
verified all the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from lakesink.adapters.kafka.client_config import admin_config, connector_client_settings
from lakesink.adapters.kafka.reachability import kafka_topics
from lakesink.adapters.kafka.record_offsets import record_offsets
from lakesink.adapters.kafka.topic_metadata import TopicMetadata
from lakesink.adapters.storage import open_store
from lakesink.adapters.verify.contents import envelope_offsets, record_count
from lakesink.application.bootstrap.config_file import load_config
from lakesink.application.bootstrap.preflight import check_sink_buckets
from lakesink.application.metrics_serving import serving
from lakesink.application.restore.command import load_plan
from lakesink.application.sink_settings import runnable_sink_settings
from lakesink.application.verify import KafkaView, ObjectReaders, TableChecker, run_verify
from lakesink.application.verify_metrics import NO_VERIFY_METRICS, VerifyMetrics
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import LakesinkError
from lakesink.domain.ports import ObjectStore
from lakesink.domain.progress import ProgressOutput, silent
from lakesink.domain.statement_plan import plan_sink
from lakesink.domain.subscription import TopicSelection
from lakesink.domain.tables.target import TableTarget
from lakesink.domain.verify.report import VerifyReport
from lakesink.domain.verify.tables import LogObject, TableCheck
from lakesink.domain.verify.targets import VerifyPlan, dialect_targets, lenses_targets, verify_plan

KAFKA_TIMEOUT_S = 10.0
"""How long verify waits for the cluster: its offsets are a comparison, not what is verified."""


def load_verify_plan(config_path: str) -> tuple[ConnectorSettings, VerifyPlan]:
    """The sink config's settings and what verify lists and checks.

    Raises:
        ConfigError: the sink would refuse the config (the same message).
    """
    config = load_config(config_path)
    settings = runnable_sink_settings(config)
    if settings.writing is None:
        return settings, verify_plan(settings, lenses_targets(plan_sink(settings)))
    restore = load_plan(config.values, provided=config.provided)
    return settings, verify_plan(settings, dialect_targets(settings, restore))


def opened_verify_plan(config_path: str) -> tuple[ConnectorSettings, VerifyPlan, ObjectStore]:
    """:func:`load_verify_plan`, its buckets checked to answer, and its store (verify's and status's start).

    Raises:
        ConfigError: an invalid config, a missing bucket or refused credentials.
        StorageError: the store does not answer.
    """
    settings, plan = load_verify_plan(config_path)
    check_sink_buckets(settings)
    return settings, plan, open_store(settings.backend, settings.storage)


def run_verify_command(
    config_path: str,
    progress: ProgressOutput = silent,
    *,
    metrics_port: int | None = None,
    metrics_host: str | None = None,
    table_rows: bool = True,
) -> VerifyReport:
    """Load the config, check its buckets answer, then verify the store against the cluster (its
    steps to ``progress``) and, with ``table_rows``, each change table against its change log; with
    ``metrics_port``, the run's figures are served to Prometheus while it runs (not the sink config's
    ``metrics.port``: the sink itself may be serving there).

    Raises:
        ConfigError: an invalid config, a missing bucket, refused credentials or a metrics address taken.
        StorageError: the store does not answer.
        CommitError: a lock or range plan is malformed.
    """
    settings, plan, store = opened_verify_plan(config_path)
    from lakesink.adapters.metrics.verify_prometheus import PrometheusVerifyMetrics

    endpoint = serving(
        lambda: PrometheusVerifyMetrics(settings.name, hide=lambda value: str(settings.hidden.mask_leaves(value))),
        metrics_port,
        metrics_host,
    )
    with endpoint as served:
        metrics: VerifyMetrics = served or NO_VERIFY_METRICS
        readers = ObjectReaders(record_count, envelope_offsets)
        tables = change_table_checker(settings, store) if table_rows else None
        report = run_verify(plan, store, readers, kafka_view(settings), progress, tables)
        metrics.verified(report)
    return report


def change_table_checker(settings: ConnectorSettings, store: ObjectStore) -> TableChecker:
    """What compares a change table of ``settings`` with its change log (pyiceberg or deltalake is
    imported only when a config has one)."""

    def check(target: TableTarget, log: Sequence[LogObject]) -> TableCheck:
        from lakesink.adapters.tables.opening import table_opener
        from lakesink.adapters.verify.change_tables import check_change_table

        return check_change_table(target, table_opener(settings), store, settings.name, log)

    return check


def kafka_view(settings: ConnectorSettings) -> KafkaView:
    """The sink's partitions on the cluster and a client for their watermarks, or why there are none."""
    config = admin_config(connector_client_settings(settings))
    try:
        kafka_topics(config, timeout_s=KAFKA_TIMEOUT_S)
        metadata = TopicMetadata(config, timeout_s=KAFKA_TIMEOUT_S)
        selection = TopicSelection(",".join(settings.topics) or None, settings.topics_regex)
        client = connector_client_settings(settings)
        return KafkaView(
            tuple(metadata.partitions(selection)), metadata,
            records=lambda where, start, end: record_offsets(client, *where, start, end, timeout_s=KAFKA_TIMEOUT_S),
        )
    except (LakesinkError, ConnectionError) as error:
        return KafkaView(error=settings.hidden.scrub(str(error)))
