"""The restore's run loop on the driver: list, order, check, fence, spread over tasks, repeat.

Each poll lists what is new into the compact index, drops what this run already restored,
groups the rest by origin partition (objects in offset order), checks the target topics have
the partitions the origins need, fences origins not fenced yet, and hands one group of origins
per task slot to the task runner. ``once`` stops after one poll; otherwise the loop sleeps
``poll_interval_ms`` between polls.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lakesink.application.restore.fencing import OriginFencing
from lakesink.application.restore.listing import ListingCursors, ListingStats, discover
from lakesink.application.restore_metrics import NO_RESTORE_METRICS, RestoreMetrics
from lakesink.application.sink_metrics import error_kind
from lakesink.domain.ports import ObjectStore
from lakesink.domain.progress import ProgressOutput, Throttle, human_size, rate, silent
from lakesink.domain.restore.balance import balanced_groups
from lakesink.domain.restore.index import WorkItem, group_work
from lakesink.domain.restore.partitions import check_partition_counts, needed_partitions
from lakesink.domain.restore.plan import RestorePlan
from lakesink.domain.restore.ports import OriginTask, RestoreBroker, TaskRunner, TasksDone
from lakesink.domain.restore.progress import already_restored
from lakesink.domain.restore.results import OriginResult

logger = logging.getLogger(__name__)


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


@dataclass(frozen=True, slots=True)
class RestoreServices:
    """What the loop runs on: the store it lists, the driver's Kafka calls, the task runner, and
    ``task``, the work each task does with its origins (shipped to the cluster)."""

    store: ObjectStore
    broker: RestoreBroker
    runner: TaskRunner
    task: OriginTask


def run_restore(
    plan: RestorePlan,
    services: RestoreServices,
    *,
    once: bool,
    sleep: Callable[[float], None] = time.sleep,
    max_polls: int | None = None,
    progress: ProgressOutput = silent,
    metrics: RestoreMetrics = NO_RESTORE_METRICS,
) -> RestoreSummary:
    """One pass with ``once``, else poll until interrupted (or ``max_polls``); ``progress`` gets the
    steps of each poll that finds something to restore (:class:`PollProgress`), ``metrics`` each poll.

    Raises:
        BucketNotFoundError: a root's bucket does not exist.
        ConfigError: a target topic has too few partitions and remapping is off.
    """
    try:
        return _polls(
            plan, services, once=once, sleep=sleep, max_polls=max_polls, progress=progress, metrics=metrics
        )
    except Exception as error:
        metrics.failed(error_kind(error))
        raise


def _polls(
    plan: RestorePlan,
    services: RestoreServices,
    *,
    once: bool,
    sleep: Callable[[float], None],
    max_polls: int | None,
    progress: ProgressOutput,
    metrics: RestoreMetrics,
) -> RestoreSummary:
    store, broker = services.store, services.broker
    for bucket in {root.bucket for root in plan.roots}:
        store.check_bucket(bucket)
    fencing = OriginFencing(progress_topic_created=broker.ensure_progress_topic(plan.progress_topic))
    cursors = ListingCursors()
    summary = RestoreSummary()
    started = time.monotonic()
    while True:
        lines = PollProgress(progress, summary.polls + 1)
        entries, stats = discover(store, plan, cursors, lines.listing)
        summary.polls += 1
        summary.list_calls += stats.list_calls
        items = group_work(e for e in entries if not already_restored(summary.done.get(e.origin), e))
        metrics.poll_started(sum(len(item.objects) for item in items))
        results: list[OriginResult] = []
        if items:
            lines.to_restore(items, stats.objects_listed)
            check_target_partitions(plan, broker, items)
            fencing.fence_new(plan, broker, items)
            # a silent run asks Spark nothing: a library user's job group stays untouched
            results = dispatch(plan, services, items, None if progress is silent else lines.tasks)
            for result in results:
                summary.objects += result.objects
                summary.records += result.records
                summary.bytes += result.bytes
                summary.skipped_objects += result.skipped_objects
                if result.last_key:
                    summary.done[result.origin] = (result.last_offset, result.last_key)
            lines.restored(results, len(items))
        metrics.poll_finished(results)
        logger.info("Poll %d: %d origins, %d records so far", summary.polls, len(items), summary.records)
        if once or (max_polls is not None and summary.polls >= max_polls):
            break
        sleep(plan.poll_interval_ms / 1000)
    summary.seconds = time.monotonic() - started
    return summary


def check_target_partitions(plan: RestorePlan, broker: RestoreBroker, items: Sequence[WorkItem]) -> None:
    """Check the target topics have the partitions the items need.

    Raises:
        ConfigError: a target topic has too few partitions and remapping is off.
    """
    needed = needed_partitions(plan.partition_rule, ((item.topic, item.partition) for item in items))
    check_partition_counts(plan.partition_rule, needed, broker.partition_counts(needed))


def dispatch(
    plan: RestorePlan, services: RestoreServices, items: Sequence[WorkItem], on_tasks: TasksDone | None = None
) -> list[OriginResult]:
    """Restore ``items`` in one group per task slot of near-equal bytes (largest first onto the least
    loaded slot: hash partitioning of a few origins leaves cores idle); one result per origin.
    ``on_tasks`` hears how many of the groups' tasks are done while they run."""
    if not items:
        return []
    slots = plan.parallelism or services.runner.slots()
    groups = balanced_groups([sum(entry.size for entry in item.objects) for item in items], slots)
    return services.runner.run([[items[index] for index in group] for group in groups], services.task, on_tasks)


class PollProgress:
    """The progress lines of one poll: the listing and the restore tasks (every few seconds while
    they run), what it found to restore, and what the tasks did. A poll that finds nothing new shows nothing (a
    continuous restore polls every few minutes)::

        restore poll 1: listing, 120,000 objects so far
        restore poll 1: 12 topic-partitions to restore, 3,456 objects (1.2 GiB) of 120,000 listed
        restore poll 1: restoring, 1/4 tasks done, 35 s
        restore poll 1: restored 12/12 topic-partitions, 60,000 records from 3,456 objects (1.2 GiB) in 45.2 s (1,327 records/s)
    """

    def __init__(self, show: ProgressOutput, poll: int, now: Callable[[], float] = time.monotonic) -> None:
        self._show = show
        self._prefix = f"restore poll {poll}:"
        self._now = now
        self._started = now()
        self._throttle = Throttle(now)

    def listing(self, stats: ListingStats) -> None:
        """A page was listed: a line when one is due."""
        if self._throttle.due():
            self._show(f"{self._prefix} listing, {stats.objects_listed:,} objects so far")

    def to_restore(self, items: Sequence[WorkItem], listed: int) -> None:
        """The listing found ``items`` to restore among ``listed`` objects."""
        objects = [entry for item in items for entry in item.objects]
        self._show(
            f"{self._prefix} {len(items):,} topic-partitions to restore, {len(objects):,} objects "
            f"({human_size(sum(entry.size for entry in objects))}) of {listed:,} listed"
        )

    def tasks(self, done: int, total: int) -> None:
        """``done`` of the poll's ``total`` restore tasks finished: a line when one is due."""
        if self._throttle.due():
            self._show(f"{self._prefix} restoring, {done:,}/{total:,} tasks done, {self._now() - self._started:.0f} s")

    def restored(self, results: Sequence[OriginResult], origins: int) -> None:
        """The restore tasks of the poll are done: what they sent, over ``origins`` topic-partitions."""
        records = sum(result.records for result in results)
        seconds = self._now() - self._started
        self._show(
            f"{self._prefix} restored {len(results):,}/{origins:,} topic-partitions, {records:,} records from "
            f"{sum(result.objects for result in results):,} objects "
            f"({human_size(sum(result.bytes for result in results))}) in {seconds:.1f} s "
            f"({rate(records, seconds)} records/s)"
        )
