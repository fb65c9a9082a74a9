"""The memory scenario's data and settings, and the per-process breakdown of a measured run."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from bench.__main__ import parse_args
from bench.events import order_events
from bench.kafka_io import DataSet
from bench.lakesink_runs import (
    MEMORY_FLUSH_SIZE,
    MEMORY_SCENARIO,
    MEMORY_ZONES,
    SINK_SCENARIOS,
    describe_peak,
    sink_config,
)
from bench.processes import Children, tree_breakdown
from lakesink.adapters.demo.s3 import S3Endpoint

_ENDPOINT = S3Endpoint("http://127.0.0.1:1", "key", "secret", "us-east-1")


def test_zones_add_one_field_and_leave_every_other_byte_of_the_events_alone() -> None:
    plain = list(order_events(500))
    zoned = list(order_events(500, zones=MEMORY_ZONES))
    for before, after in zip(plain, zoned, strict=True):
        value = json.loads(after.value)
        zone = value.pop("zone")
        assert value == json.loads(before.value)
        assert (after.key, after.headers, after.timestamp_ms) == (before.key, before.headers, before.timestamp_ms)
        assert zone.startswith("z") and 0 <= int(zone[1:]) < MEMORY_ZONES


def test_every_partition_of_the_memory_topic_sees_all_fifty_zones() -> None:
    partitions = 64
    zones_by_partition: dict[int, set[str]] = {}
    for event in order_events(200_000, zones=MEMORY_ZONES):
        zones_by_partition.setdefault(int(event.key[2:]) % partitions, set()).add(json.loads(event.value)["zone"])
    assert len(zones_by_partition) == partitions
    assert all(len(zones) == MEMORY_ZONES for zones in zones_by_partition.values())


def test_memory_sink_partitions_by_zone_and_cuts_files_on_size_only() -> None:
    data = DataSet("orders-zones", 64, 100, 100, 0.0)
    config = sink_config(MEMORY_SCENARIO, data, bootstrap="b:1", endpoint=_ENDPOINT, name="n", bucket="bkt")
    kcql = config["connect.s3.kcql"]
    assert "PARTITIONBY _value.zone STOREAS `PARQUET`" in kcql
    assert f"'flush.size'={MEMORY_FLUSH_SIZE}" in kcql and MEMORY_FLUSH_SIZE == 10_485_760
    count = int(kcql.split("'flush.count'=")[1].split(",")[0])
    assert count >= 1_000_000 * 10  # never reached before the size: only flush.size or the range's end cuts


def test_other_sink_scenarios_keep_their_flush_count() -> None:
    data = DataSet("orders", 8, 100, 100, 0.0)
    for scenario in SINK_SCENARIOS:
        kcql = sink_config(scenario, data, bootstrap="b:1", endpoint=_ENDPOINT, name="n", bucket="b")["connect.s3.kcql"]
        assert "PROPERTIES('flush.count'=50000, 'flush.interval'=3600" in kcql


def test_sink_memory_is_chosen_by_name_only() -> None:
    assert "sink-memory" not in parse_args([]).chosen
    assert parse_args(["--scenarios", "sink-json,sink-memory"]).chosen == ["sink-json", "sink-memory"]


def test_breakdown_splits_the_tree_by_role_and_adds_the_proportional_size(tmp_path: Path) -> None:
    child = "import sys,time; b=bytearray(20_000_000); print('ready', file=sys.stderr, flush=True); time.sleep(30)"
    script = f"import subprocess,sys,time; b=bytearray(40_000_000); c=subprocess.Popen([sys.executable,'-c',{child!r}]); time.sleep(30)"
    with Children(tmp_path) as children:
        parent = children.spawn("tree", [sys.executable, "-c", script], pipe_stderr=True)
        assert parent.stderr is not None and parent.stderr.readline().strip() == b"ready"
        parts = tree_breakdown(parent.pid, pss=True)
    assert parts["driver"] > 40_000_000
    assert parts["python_worker_count"] == 1 and parts["python_workers"] > 20_000_000
    assert parts["largest_python_worker"] == parts["python_workers"]
    assert parts["jvm"] == 0
    assert 0 < parts["pss"] <= parts["driver"] + parts["python_workers"] + parts["other"]


def test_measure_keeps_the_breakdown_of_the_peak_a_timeline_and_the_peak_pss(tmp_path: Path) -> None:
    script = "import time; b=bytearray(30_000_000); time.sleep(3); del b; time.sleep(0.5)"
    with Children(tmp_path) as children:
        run = children.measure("probe", [sys.executable, "-c", script], timeout_s=30)
    assert run.peak_breakdown["driver"] == run.peak_rss > 30_000_000
    times = [at for at, _ in run.timeline]
    # sampled from the start (the first sample waits for the child to exist: later on a loaded machine)
    assert times and times[0] <= 0.5 and times == sorted(times) and times[-1] >= 3.0
    assert 30_000_000 < run.peak_pss <= run.peak_rss


def test_describe_peak_names_each_role_in_megabytes() -> None:
    parts = Counter(driver=170_000_000, jvm=812_000_000, python_workers=420_000_000, python_worker_count=3,
                    largest_python_worker=170_000_000)
    assert describe_peak(dict(parts)) == "JVM 812 + driver 170 + 3 workers 420 (largest 170) MB"
    assert describe_peak({}) == "not measured"
