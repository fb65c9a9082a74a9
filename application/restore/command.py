"""``lakesink restore``: the config file becomes a :class:`RestorePlan`, Spark starts, the restore runs.

``--once`` restores what exists at start; otherwise the loop polls every
``source.partition.search.interval`` (Aiven: ``poll.interval.ms``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from lakesink.application.config_file import load_config
from lakesink.application.metrics_serving import serving
from lakesink.application.restore.driver import RestoreSummary
from lakesink.application.restore.wiring import restore
from lakesink.application.restore_metrics import NO_RESTORE_METRICS
from lakesink.domain.config.hidden import HiddenValues
from lakesink.domain.dialects.aiven.source_config import aiven_restore_plan, is_aiven_source_config
from lakesink.domain.dialects.registry import sink_dialect
from lakesink.domain.progress import ProgressOutput, silent
from lakesink.domain.restore.lenses_plan import lenses_restore_plan
from lakesink.domain.restore.plan import RestorePlan


@dataclass(frozen=True, slots=True)
class RestoreCommand:
    """``lakesink restore --config FILE [--once] [--master URL] [--conf KEY=VALUE ...]
    [--metrics-port N [--metrics-host H]]``.

    ``master`` None: the Spark configuration's, else :data:`DEFAULT_MASTER`.
    """

    config_path: str
    once: bool = False
    master: str | None = None
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    metrics_port: int | None = None
    metrics_host: str | None = None


DEFAULT_MASTER = "local[2]"


def load_plan(
    props: Mapping[str, str], *, parallelism: int | None = None, provided: Collection[str] = frozenset()
) -> RestorePlan:
    """The plan of a Lenses-style or an Aiven-style source config, or of a Confluent or Aiven S3 sink
    config (restoring what that sink wrote). An Aiven sink config is told apart by its
    ``connector.class`` before the source form, which takes any config with an Aiven bucket key.

    ``provided`` names the keys whose values a config provider supplied (never shown).
    """
    dialect = sink_dialect(props)
    if dialect is not None:
        return dialect.restore_plan(props, parallelism=parallelism, provided=provided)
    if is_aiven_source_config(props):
        return aiven_restore_plan(props, parallelism=parallelism, provided=provided)
    return lenses_restore_plan(props, parallelism=parallelism, provided=provided)


def run_restore_command(command: RestoreCommand, progress: ProgressOutput = silent) -> RestoreSummary:
    """The CLI's entry: load the config, start Spark, restore (its steps to ``progress``), stop Spark."""
    from lakesink.adapters.spark.session import create_session

    config = load_config(command.config_path)
    plan = load_plan(config.values, provided=config.provided)
    from lakesink.application.preflight import check_restore_environment

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


def render_summary(summary: RestoreSummary) -> str:
    """One line for the terminal."""
    rate = summary.records / summary.seconds if summary.seconds > 0 else 0.0
    return (
        f"restored {summary.records} records from {summary.objects} objects ({summary.bytes} bytes, "
        f"{summary.skipped_objects} skipped) in {summary.seconds:.1f} s ({rate:.0f} records/s), "
        f"{summary.polls} polls, {summary.list_calls} list calls"
    )
