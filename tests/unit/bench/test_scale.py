"""The scale bench's measurement, bounded to 8 and 64 partitions: its counts agree with the run's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench import scale
from bench.scale_model import Fit
from lakesink.application.sink_index import PARTITION_THREADS


@pytest.fixture(scope="module")
def rungs() -> list[scale.Rung]:
    return [scale.measure(8), scale.measure(64)]


def test_each_batch_writes_one_lock_per_partition_it_advanced_and_one_plan_and_object_per_range(
    rungs: list[scale.Rung],
) -> None:
    for rung in rungs:
        assert len(rung.batches) == scale.BATCHES + 1  # the timed ones and the traced one
        for batch in rung.batches:
            assert batch.committed == batch.ranges == rung.partitions  # every partition had records
            assert batch.requests["driver/put/locks"] == batch.committed
            assert batch.requests["task/get/locks"] == batch.requests["task/put/plans"] == batch.ranges
            assert batch.requests["task/put/data"] == batch.ranges  # 3 records, flush.count 3: one object
            # the driver drops the plans it committed: a listing and one DeleteObjects per partition
            assert batch.requests["driver/list/plans"] == batch.requests["driver/delete_many/plans"] == batch.committed


def test_the_counting_store_and_the_sinks_own_batch_reports_count_the_same_requests(rungs: list[scale.Rung]) -> None:
    for rung in rungs:
        assert [sum(batch.requests.values()) for batch in rung.batches] == rung.reported


def test_the_driver_parts_are_timed_apart_from_the_tasks_and_only_the_traced_batch_has_a_peak(
    rungs: list[scale.Rung],
) -> None:
    for rung in rungs:
        timed, traced = rung.batches[:-1], rung.batches[-1]
        assert all(b.driver_peak_bytes is None for b in timed) and (traced.driver_peak_bytes or 0) > 0
        assert all(b.tasks_cpu_s > 0 and b.commit_s > 0 and b.planning_s > 0 for b in rung.batches)
        assert all(b.commit_cpu_s > 0 and b.planning_cpu_s > 0 for b in rung.batches)  # the store's time taken out
    assert rungs[1].startup_requests["driver/put/locks"] == 64  # every partition claimed at start


def test_the_fit_finds_one_lock_write_per_partition_and_the_projection_follows_it(rungs: list[scale.Rung]) -> None:
    summed = scale.summary(rungs)
    lock = Fit(**summed["fits"]["driver/put/locks"])
    assert lock.b == pytest.approx(1) and lock.a == pytest.approx(0, abs=1e-9)
    projected = scale.projection(summed)
    assert projected["prefixes"]["locks"]["writes_per_s"] == pytest.approx(10_000 / 5)
    assert projected["prefixes"]["locks"]["saturates_at"] == pytest.approx(3_500 * 5)
    assert projected["requests_per_object"] == {"lakesink": pytest.approx(6), "lenses": 9}
    # three round trips of 25 ms per partition, PARTITION_THREADS partitions at a time, whatever the CPU adds
    assert 0.5 * 5 / 0.075 * PARTITION_THREADS < projected["commit_fits"]["as_is"] <= 5 / 0.075 * PARTITION_THREADS


def test_the_results_and_both_generated_sections_are_written_and_rewritten_in_place(
    rungs: list[scale.Rung], tmp_path: Path
) -> None:
    (tmp_path / "docs").mkdir()
    shutil.copy(scale.ROOT / "BENCHMARKS.md", tmp_path / "BENCHMARKS.md")
    shutil.copy(scale.ROOT / "docs" / "operations.md", tmp_path / "docs" / "operations.md")
    summed = scale.summary(rungs)
    report = {"finished": "2026-01-01 00:00", "settings": {"records_per_batch": 3, "batches": 3, "interval_s": 5},
              "summary": summed, "projection": scale.projection(summed)}
    first = scale.write(report, tmp_path)
    scale.write(report, tmp_path)
    sizing = (tmp_path / "docs" / "operations.md").read_text()
    assert first.name.startswith("scale-") and first.exists()
    assert sizing.count(scale.SIZING_BEGIN) == sizing.count("## Sizing") == sizing.count("| P=64 |") == 1
    benchmarks = (tmp_path / "BENCHMARKS.md").read_text()
    assert benchmarks.count(scale.BENCH_BEGIN) == benchmarks.count(scale.BENCH_END) == 1
