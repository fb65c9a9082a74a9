"""A local Spark master retries a failed task as a cluster does (a killed Python worker must not stop the sink)."""

from __future__ import annotations

import pytest

from lakesink.adapters.spark.session import with_task_attempts


@pytest.mark.parametrize(
    ("master", "expected"),
    [("local", "local[1,4]"), ("local[2]", "local[2,4]"), ("local[*]", "local[*,4]")],
)
def test_local_masters_get_a_clusters_four_task_attempts(master: str, expected: str) -> None:
    assert with_task_attempts(master) == expected


@pytest.mark.parametrize("master", ["local[2,1]", "local[*,2]", "spark://127.0.0.1:7077", "local-cluster[2,1,1024]",
                                    "yarn", "k8s://https://127.0.0.1:6443"])
def test_masters_that_say_their_attempts_or_are_clusters_are_kept(master: str) -> None:
    assert with_task_attempts(master) == master
