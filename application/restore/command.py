"""``lakesink restore``'s plan from its config, and the line it prints at the end.

The command itself (Spark started, the restore run, Spark stopped) is wired in
:mod:`lakesink.application.bootstrap.restore`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from lakesink.application.restore.driver import RestoreSummary
from lakesink.domain.dialects.aiven.source_config import aiven_restore_plan, is_aiven_source_config
from lakesink.domain.dialects.registry import sink_dialect
from lakesink.domain.restore.lenses_plan import lenses_restore_plan
from lakesink.domain.restore.plan import RestorePlan


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


def render_summary(summary: RestoreSummary) -> str:
    """One line for the terminal."""
    rate = summary.records / summary.seconds if summary.seconds > 0 else 0.0
    return (
        f"restored {summary.records} records from {summary.objects} objects ({summary.bytes} bytes, "
        f"{summary.skipped_objects} skipped) in {summary.seconds:.1f} s ({rate:.0f} records/s), "
        f"{summary.polls} polls, {summary.list_calls} list calls"
    )
