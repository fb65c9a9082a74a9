"""The restore use case: objects in a bucket back into Kafka topics (``lakesink restore``).

Thin by design: the config becomes a :class:`RestorePlan` (Lenses or Aiven form), then each
poll lists what is new into the compact index, groups it by origin partition, prepares the
producers and lets Spark tasks replay the origins. ``--once`` restores what exists at start;
otherwise the loop polls every ``source.partition.search.interval`` (Aiven: ``poll.interval.ms``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lakesink.application.config_file import read_config_file
from lakesink.domain.config.aiven_source import aiven_restore_plan, is_aiven_source_config
from lakesink.domain.ports import ObjectStore
from lakesink.domain.restore.index import IndexEntry, group_work
from lakesink.domain.restore.lenses_plan import lenses_restore_plan
from lakesink.domain.restore.plan import RestorePlan

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RestoreCommand:
    """``lakesink restore --config FILE [--once] [--master URL]``."""

    config_path: str
    once: bool = False
    master: str = "local[2]"


@dataclass
class RestoreSummary:
    """Totals over the whole run."""

    polls: int = 0
    list_calls: int = 0
    objects: int = 0
    records: int = 0
    bytes: int = 0
    skipped_objects: int = 0
    seconds: float = 0.0
    done: dict[str, tuple[int, str]] = field(default_factory=dict)


def load_plan(props: Mapping[str, str], *, parallelism: int | None = None) -> RestorePlan:
    """The plan of a Lenses-style or an Aiven-style source config."""
    if is_aiven_source_config(props):
        return aiven_restore_plan(props, parallelism=parallelism)
    return lenses_restore_plan(props, parallelism=parallelism)


def restore(
    plan: RestorePlan,
    spark: SparkSession,
    *,
    once: bool,
    store: ObjectStore | None = None,
    sleep: Callable[[float], None] = time.sleep,
    max_polls: int | None = None,
) -> RestoreSummary:
    """Run the restore: one pass with ``once``, else poll until interrupted (or ``max_polls``)."""
    from lakesink.adapters.kafka.client_config import producer_config
    from lakesink.adapters.restore.listing import ListingCursors, discover
    from lakesink.adapters.restore.preflight import OriginFencing, check_target_partitions
    from lakesink.adapters.restore.progress_topic import ensure_progress_topic
    from lakesink.adapters.restore.spark_job import run_work_items
    from lakesink.adapters.storage import open_store

    store = store or open_store(plan.backend, plan.storage)
    for bucket in {root.bucket for root in plan.roots}:
        store.check_bucket(bucket)
    config = producer_config(plan.producer)
    fencing = OriginFencing(progress_topic_created=ensure_progress_topic(config, plan.progress_topic))
    cursors = ListingCursors()
    summary = RestoreSummary()
    started = time.monotonic()
    while True:
        entries, stats = discover(store, plan, cursors)
        summary.polls += 1
        summary.list_calls += stats.list_calls
        items = group_work(e for e in entries if not _already_done(summary, e))
        if items:
            check_target_partitions(plan, config, items)
            fencing.fence_new(plan, config, items)
            for result in run_work_items(spark, plan, items):
                summary.objects += result.objects
                summary.records += result.records
                summary.bytes += result.bytes
                summary.skipped_objects += result.skipped_objects
                if result.last_key:
                    summary.done[result.origin] = (result.last_offset, result.last_key)
        logger.info("Poll %d: %d origins, %d records so far", summary.polls, len(items), summary.records)
        if once or (max_polls is not None and summary.polls >= max_polls):
            break
        sleep(plan.poll_interval_ms / 1000)
    summary.seconds = time.monotonic() - started
    return summary


def _already_done(summary: RestoreSummary, entry: IndexEntry) -> bool:
    done = summary.done.get(entry.origin)
    return done is not None and entry.position <= done


def run_restore_command(command: RestoreCommand) -> RestoreSummary:
    """The CLI's entry: load the config, start Spark, restore, stop Spark."""
    from lakesink.adapters.spark.session import create_session

    plan = load_plan(read_config_file(command.config_path))
    spark = create_session(command.master, app_name=f"lakesink-restore-{plan.name}")
    try:
        return restore(plan, spark, once=command.once)
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
