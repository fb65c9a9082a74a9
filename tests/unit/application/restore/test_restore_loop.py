"""The driver's run loop over fake ports: what each poll dispatches, how origins are grouped, checks first."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

import pytest

from lakesink.adapters.metrics.restore_prometheus import PrometheusRestoreMetrics
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application.restore.driver import RestoreServices, run_restore
from lakesink.domain.config.backends import MemorySettings
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.plan import RestorePlan, RestoreRoot
from lakesink.domain.restore.results import OriginResult
from tests.support.restore_fakes import InlineRunner, RecordingBroker


def _store(keys: dict[str, int]) -> InMemoryObjectStore:
    store = InMemoryObjectStore()
    store.create_bucket("bkt")
    for key, size in keys.items():
        store.put("bkt", key, b"x" * size)
    return store


def _plan(parallelism: int | None = None, *, full_relist_every: int = 10) -> RestorePlan:
    root = RestoreRoot(0, "bkt", "", "target", Format.TEXT)
    return RestorePlan(
        "r", "memory", MemorySettings(), (root,), parallelism=parallelism, poll_interval_ms=0,
        full_relist_every=full_relist_every,
    )


class Delivered:
    """A task that 'delivers' every object of its origins, noting the keys."""

    def __init__(self) -> None:
        self.keys: list[list[str]] = []

    def __call__(self, items: Sequence[WorkItem]) -> Iterator[OriginResult]:
        for item in items:
            self.keys.append([entry.key for entry in item.objects])
            last = item.objects[-1]
            size = sum(entry.size for entry in item.objects)
            yield OriginResult(item.origin, len(item.objects), len(item.objects), size, 0, last.position[0], last.key, 0.0)


def test_a_later_poll_dispatches_only_the_objects_that_arrived_since_even_when_it_lists_everything() -> None:
    store = _store({"src/0/000000000001_1_1.text": 1, "src/0/000000000003_1_1.text": 1})
    task = Delivered()
    services = RestoreServices(store, RecordingBroker(), InlineRunner(), task)

    def new_object_arrives(_seconds: float) -> None:
        store.put("bkt", "src/0/000000000005_1_1.text", b"x")

    lines: list[str] = []
    summary = run_restore(
        _plan(full_relist_every=1), services, once=False, sleep=new_object_arrives, max_polls=2, progress=lines.append
    )
    assert task.keys == [
        ["src/0/000000000001_1_1.text", "src/0/000000000003_1_1.text"],
        ["src/0/000000000005_1_1.text"],
    ]
    assert (summary.polls, summary.objects) == (2, 3)
    assert [line.split(" from ")[0] for line in lines] == [  # each poll's steps, for the operator
        "restore poll 1: 1 topic-partitions to restore, 2 objects (2 B) of 2 listed",
        "restore poll 1: restored 1/1 topic-partitions, 2 records",
        "restore poll 2: 1 topic-partitions to restore, 1 objects (1 B) of 3 listed",
        "restore poll 2: restored 1/1 topic-partitions, 1 records",
    ]


def test_origins_go_to_as_many_tasks_as_the_plan_asks_largest_first_onto_the_least_loaded() -> None:
    sizes = {0: 50, 1: 40, 2: 30, 3: 20}
    store = _store({f"src/{p}/000000000001_1_1.text": size for p, size in sizes.items()})
    runner = InlineRunner(slots=4)
    run_restore(_plan(parallelism=2), RestoreServices(store, RecordingBroker(), runner, Delivered()), once=True)
    partitions = [sorted(int(origin.split(",")[2]) for origin in group) for group in runner.groups]
    assert sorted(partitions) == [[0, 3], [1, 2]]


def test_without_a_parallelism_the_runner_s_slots_decide_the_groups() -> None:
    store = _store({f"src/{p}/000000000001_1_1.text": 10 for p in range(4)})
    runner = InlineRunner(slots=3)
    run_restore(_plan(), RestoreServices(store, RecordingBroker(), runner, Delivered()), once=True)
    assert len(runner.groups) == 3


def test_a_target_topic_with_too_few_partitions_fails_before_anything_is_fenced_or_run() -> None:
    store = _store({"src/3/000000000001_1_1.text": 1})
    broker, runner = RecordingBroker(partitions=2), InlineRunner()
    with pytest.raises(ConfigError, match="has 2 partitions but the restore needs 4"):
        run_restore(_plan(), RestoreServices(store, broker, runner, Delivered()), once=True)
    assert (broker.fenced, runner.groups) == ([], [])


def test_origins_are_fenced_unless_this_run_created_the_progress_topic() -> None:
    keys = {"src/0/000000000001_1_1.text": 1}
    fencing, created = RecordingBroker(), RecordingBroker(creates_progress_topic=True)
    run_restore(_plan(), RestoreServices(_store(keys), fencing, InlineRunner(), Delivered()), once=True)
    run_restore(_plan(), RestoreServices(_store(keys), created, InlineRunner(), Delivered()), once=True)
    assert (len(fencing.fenced), created.fenced) == (1, [])


class _Watched(Delivered):
    """Delivers as :class:`Delivered`, noting the restore's backlog gauge while it runs."""

    def __init__(self, metrics: PrometheusRestoreMetrics) -> None:
        super().__init__()
        self.metrics = metrics
        self.backlog: list[float | None] = []

    def __call__(self, items: Sequence[WorkItem]) -> Iterator[OriginResult]:
        self.backlog.append(self.metrics.registry.get_sample_value("lakesink_restore_objects_pending", {"connector": "r"}))
        for result in super().__call__(items):
            yield replace(result, transactions=1)


def test_the_metrics_count_what_each_poll_restored_and_show_its_backlog_while_it_runs() -> None:
    store = _store({"src/0/000000000001_1_1.text": 2, "src/1/000000000003_1_1.text": 3})
    metrics = PrometheusRestoreMetrics("r")
    task = _Watched(metrics)

    def new_object_arrives(_seconds: float) -> None:
        store.put("bkt", "src/0/000000000005_1_1.text", b"x")

    run_restore(_plan(), RestoreServices(store, RecordingBroker(), InlineRunner(), task), once=False,
                sleep=new_object_arrives, max_polls=2, metrics=metrics)

    def sample(name: str) -> float | None:
        return metrics.registry.get_sample_value(name, {"connector": "r"})

    assert task.backlog == [2.0, 2.0, 1.0]  # each task sees its poll's objects (two origins, then one)
    assert (sample("lakesink_restore_objects_total"), sample("lakesink_restore_records_total")) == (3.0, 3.0)
    assert (sample("lakesink_restore_bytes_total"), sample("lakesink_restore_transactions_total")) == (6.0, 3.0)
    assert (sample("lakesink_restore_polls_total"), sample("lakesink_restore_objects_pending")) == (2.0, 0.0)


def test_a_failed_restore_is_counted_by_its_kind() -> None:
    metrics = PrometheusRestoreMetrics("r")
    broker = RecordingBroker(partitions=1)
    with pytest.raises(ConfigError):
        run_restore(_plan(), RestoreServices(_store({"src/3/000000000001_1_1.text": 1}), broker, InlineRunner(),
                                             Delivered()), once=True, metrics=metrics)
    assert metrics.registry.get_sample_value(
        "lakesink_restore_failures_total", {"connector": "r", "kind": "ConfigError"}
    ) == 1.0
