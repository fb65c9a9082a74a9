"""While a restore's Spark job runs, the runner counts its finished tasks for the progress lines
(Spark's status tracker), and leaves the thread's job group as it found it."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.restore import spark_job
from lakesink.adapters.restore.spark_job import SparkTaskRunner
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.results import OriginResult

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class _QuickThenSlow:
    """The first task is quick; the second runs until the driver counted the first one done (``seen``
    exists) or 30 s passed, so the count is seen however long a loaded machine takes to start workers."""

    seen: Path

    def __call__(self, items: Sequence[WorkItem]) -> Iterator[OriginResult]:
        for item in items:
            if item.partition == 0:
                time.sleep(0.2)
            else:
                deadline = time.monotonic() + 30.0
                while not self.seen.exists() and time.monotonic() < deadline:
                    time.sleep(0.05)
            yield OriginResult(item.origin, objects=0, records=1, bytes=0, skipped_objects=0, last_offset=-1,
                               last_key="", seconds=0.0)


def test_the_runner_counts_the_finished_tasks_while_the_job_runs(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(spark_job, "WATCH_EVERY_S", 0.3)
    counts: list[tuple[int, int]] = []
    seen = tmp_path / "first-task-counted"

    def counted(done: int, total: int) -> None:
        counts.append((done, total))
        if done:
            seen.touch()

    groups = [[WorkItem(f"o-{p}", 0, "t", p, ())] for p in (0, 1)]
    context = spark.sparkContext
    context.setJobGroup("users-group", "a library user's jobs")
    try:
        results = SparkTaskRunner(spark).run(groups, _QuickThenSlow(seen), counted)
        assert context.getLocalProperty("spark.jobGroup.id") == "users-group"
    finally:
        for key in ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel"):
            context.setLocalProperty(key, None)  # None removes it: the next tests run in no group

    assert sorted(result.origin for result in results) == ["o-0", "o-1"]
    assert counts and {total for _, total in counts} == {2}, counts
    assert (1, 2) in counts, counts  # the quick task done, the slow one running
    assert [done for done, _ in counts] == sorted(done for done, _ in counts)
