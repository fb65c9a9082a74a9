"""The scale projection's arithmetic: the fit, S3's per-prefix rates, the driver's commit, the bill."""

from __future__ import annotations

import math

import pytest

from bench import scale_model
from bench.scale_model import Target

LAKESINK = {"driver/put/locks": 1.0, "driver/list/plans": 1.0, "driver/delete_many/plans": 1.0,
            "task/get/locks": 1.0, "task/put/plans": 1.0, "task/put/data": 1.0}
"""lakesink's requests per partition per batch, one object each (what bench/scale.py measures)."""


def test_the_fit_recovers_a_line_and_tells_a_per_partition_cost_from_a_fixed_one() -> None:
    fit = scale_model.fit_line([8, 64, 512, 4096], [2 + 3 * p for p in (8, 64, 512, 4096)])
    assert (fit.a, fit.b, fit.r2) == (pytest.approx(2), pytest.approx(3), pytest.approx(1))
    assert fit.at(10_000) == pytest.approx(30_002) and fit.grows(4096)
    flat = scale_model.fit_line([8, 64, 512], [5.0, 5.0, 5.0])
    assert flat.b == 0 and flat.r2 == 1 and not flat.grows(4096)
    assert not scale_model.Fit(a=100.0, b=0.01, r2=1.0).grows(4096)  # 41 per-partition against 100 fixed


def test_a_prefix_saturates_where_its_writes_per_flush_reach_s3s_rate() -> None:
    assert scale_model.rate_per_second(1, 10_000, 5) == 2_000
    assert scale_model.saturating_partitions(1, 5) == 17_500  # one lock write per partition per 5 s
    assert scale_model.saturating_partitions(4, 5) == 4_375  # Lenses: four per file
    assert scale_model.saturating_partitions(1, 5, scale_model.READ_LIMIT) == 27_500
    assert scale_model.saturating_partitions(0, 5) == math.inf


def test_the_loads_per_prefix_count_lakesinks_locks_plans_and_the_unsplit_index() -> None:
    loads = scale_model.prefix_loads(LAKESINK, Target())
    assert set(loads) == {"locks", "plans", "index"}
    assert (loads["locks"]["writes_per_partition"], loads["locks"]["reads_per_partition"]) == (1, 1)
    assert loads["plans"]["writes_per_s"] == 4_000 and loads["plans"]["saturates_at"] == 8_750
    assert loads["index"]["writes_per_partition"] == 3
    lenses = scale_model.prefix_loads(scale_model.LENSES_PER_OBJECT, Target())
    assert lenses["locks"]["writes_per_s"] == 8_000 and lenses["temp"]["writes_per_partition"] == 3


def test_dropping_plans_once_per_batch_leaves_a_page_and_a_delete_per_thousand_partitions() -> None:
    batched = scale_model.batched_cleanup(LAKESINK, 10_000)
    assert batched["driver/list/plans"] == batched["driver/delete_many/plans"] == pytest.approx(10 / 10_000)
    assert batched["driver/put/locks"] == 1 and batched["task/put/plans"] == 1


def test_the_commit_is_its_round_trips_over_its_threads_but_never_faster_than_the_prefix_takes_them() -> None:
    assert scale_model.driver_commit_seconds(30_000, 10_000, 0.5, 1) == pytest.approx(0.5 + 750)
    assert scale_model.driver_commit_seconds(30_000, 10_000, 0.5, 8) == pytest.approx(0.5 + 3_750 * 0.025)
    assert scale_model.driver_commit_seconds(30_000, 10_000, 0.0, 10_000) == pytest.approx(10_000 / 3_500)
    driver = scale_model.driver_commit(LAKESINK, 0.4, Target(threads=(1, 32)))
    assert driver["requests"] == 30_000 and set(driver["seconds"]) == {1, 32}


def test_a_commit_fits_as_many_partitions_as_their_round_trips_and_cpu_leave_in_the_interval() -> None:
    assert scale_model.partitions_within(5, 3, 0.0) == pytest.approx(5 / 0.075)  # 66 partitions, one at a time
    assert scale_model.partitions_within(5, 3, 0.0, threads=8) == pytest.approx(8 * 5 / 0.075)
    assert scale_model.partitions_within(5, 1, 0.025) == pytest.approx(100)  # the CPU is not shared out


def test_the_threads_that_fit_a_commit_in_one_interval_are_the_fewest_that_do() -> None:
    threads = scale_model.threads_to_fit(30_000, 10_000, 0.4, 5)
    assert threads is not None
    assert scale_model.driver_commit_seconds(30_000, 10_000, 0.4, threads) <= 5
    assert scale_model.driver_commit_seconds(30_000, 10_000, 0.4, threads - 1) > 5
    assert scale_model.threads_to_fit(30_000, 20_000, 0.4, 5) is None  # the prefix alone needs 5.7 s
    assert scale_model.threads_to_fit(30_000, 10_000, 6.0, 5) is None  # the CPU alone


def test_an_executor_runs_its_share_of_ranges_in_waves_of_its_slots() -> None:
    # 10,000 ranges on 100 executors: 100 each, 25 waves of 4; 3 round trips and 1 ms of CPU per range
    assert scale_model.executor_seconds(10_000, 100, 4, 3, 0.001) == pytest.approx(25 * (0.001 + 0.075))


def test_the_bill_per_tb_prices_each_kind_of_request() -> None:
    # Lenses at 1 MB: a million files, each 6 class-A (PUT x5, COPY), 1 HEAD, 2 free DELETEs
    assert scale_model.dollars_per_tb(scale_model.LENSES_PER_OBJECT, 1_000_000) == pytest.approx(30.4)
    # lakesink: PUT x3, LIST, DeleteObjects (a POST) and one GET
    assert scale_model.dollars_per_tb(LAKESINK, 1_000_000) == pytest.approx(25.4)
    assert scale_model.dollars_per_tb(LAKESINK, 64_000_000) == pytest.approx(25.4 / 64)
