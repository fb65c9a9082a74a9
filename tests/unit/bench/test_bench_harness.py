"""The benchmark harness's own logic: counting output, the report, options and child clean-up."""

from __future__ import annotations

import gzip
import io
import json
import sys
import time
from pathlib import Path

import fastavro
import psutil
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bench.__main__ import parse_args
from bench.events import order_events
from bench.processes import Children
from bench.results import FAILED, OK, Result, table
from bench.scenarios import _pick_ceilings
from bench.verify import count_records


def _parquet(rows: int) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.table({"a": list(range(rows))}), sink)
    return sink.getvalue()


def _avro(rows: int) -> bytes:
    sink = io.BytesIO()
    schema = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "long"}]}
    fastavro.writer(sink, schema, [{"a": i} for i in range(rows)])
    return sink.getvalue()


def test_count_records_reads_each_format_by_its_extension() -> None:
    assert count_records(_parquet(7), "t/0/1.parquet") == 7
    assert count_records(_avro(5), "t/0/1.avro") == 5
    assert count_records(b'{"a":1}\n{"a":2}\n', "t/0/1.json") == 2
    assert count_records(b'{"a":1}\n{"a":2}', "data/t/0/0000.jsonl") == 2
    assert count_records(gzip.compress(b"1\n2\n3\n"), "t/0/1.json.gz") == 3


def test_count_records_refuses_an_unknown_extension() -> None:
    with pytest.raises(ValueError, match="unknown extension"):
        count_records(b"x", "t/0/1.csv")


def test_failed_run_prints_no_numbers_but_its_reason() -> None:
    broken = Result("sink-json", FAILED, 1000, 200_000, seconds=2.0, note="incomplete: 990 of 1,000 records")
    report = table([broken])
    row = report.splitlines()[2]
    assert "FAILED" in row and "500" not in row
    assert "incomplete: 990 of 1,000 records" in report


def test_ratio_compares_with_the_slower_ceiling() -> None:
    results = [
        Result("consume", OK, 1000, 0, seconds=0.1),
        Result("encode-json", OK, 1000, 0, seconds=0.01),
        Result("sink-json", OK, 1000, 0, seconds=2.0, ceiling="encode-json"),
    ]
    _pick_ceilings(results)
    assert results[2].ceiling == "consume"  # the slower ceiling bounds the sink
    row = table(results).splitlines()[4].split()
    assert row[-1] == "0.05"


def test_skip_quix_removes_the_quix_scenarios() -> None:
    args = parse_args(["--records", "10", "--skip-quix"])
    assert not [name for name in args.chosen if name.startswith("quix-")]
    assert "sink-json" in args.chosen and "spark-json" in args.chosen


def test_skip_spark_removes_the_spark_job_scenarios() -> None:
    args = parse_args(["--records", "10", "--skip-spark"])
    assert not [name for name in args.chosen if name.startswith("spark-")]
    assert "quix-json" in args.chosen


def test_skip_aiven_removes_the_aiven_peer_scenarios() -> None:
    args = parse_args(["--records", "10", "--skip-aiven"])
    assert not [name for name in args.chosen if name.startswith("aiven-")]
    assert "spark-json" in args.chosen and args.skip_aiven


def test_unknown_scenario_is_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--scenarios", "sink-json,sink-orc"])
    assert "sink-orc" in capsys.readouterr().err


def test_order_events_are_deterministic_json_of_about_200_bytes() -> None:
    first = list(order_events(200))
    assert first == list(order_events(200))
    assert 180 <= sum(len(e.value) for e in first) / len(first) <= 260
    assert all(json.loads(e.value)["country"] and len(e.headers) == 2 for e in first)
    assert list(order_events(1, start=199))[0].key == first[199].key


def test_children_are_killed_with_their_grandchildren_on_close(tmp_path: Path) -> None:
    with Children(tmp_path) as children:
        parent = children.spawn("tree", ["sh", "-c", "sleep 60 & sleep 60"])
        deadline = time.monotonic() + 10
        grandchildren: list[psutil.Process] = []
        while not grandchildren and time.monotonic() < deadline:  # the shell forks when it gets a core
            time.sleep(0.05)
            grandchildren = psutil.Process(parent.pid).children(recursive=True)
        assert grandchildren
    assert parent.poll() is not None
    assert not [p for p in grandchildren if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def test_measure_gives_exit_code_output_peak_rss_and_log_marks(tmp_path: Path) -> None:
    script = "import sys,time; b=bytearray(30_000_000); print('ready', file=sys.stderr, flush=True); " \
             "time.sleep(0.6); print('done')"
    with Children(tmp_path) as children:
        run = children.measure("probe", [sys.executable, "-c", script], timeout_s=30, watch=["ready"])
    assert (run.returncode, run.stdout.strip()) == (0, "done")
    assert run.peak_rss > 30_000_000
    assert 0 < run.marks["ready"] < run.seconds


def test_measure_kills_a_run_that_exceeds_its_timeout(tmp_path: Path) -> None:
    with Children(tmp_path) as children:
        run = children.measure("slow", [sys.executable, "-c", "import time; time.sleep(60)"], timeout_s=0.5)
    assert run.returncode != 0 and run.seconds < 10


def test_measure_splits_cpu_seconds_between_the_root_and_its_python_children(tmp_path: Path) -> None:
    burn = "import time; end = time.process_time() + 0.6\nwhile time.process_time() < end: pass"
    script = (f"import subprocess, sys; child = subprocess.Popen([sys.executable, '-c', {burn!r}]); "
              f"exec({burn!r}); child.wait(); import time; time.sleep(0.3)")
    with Children(tmp_path) as children:
        run = children.measure("burner", [sys.executable, "-c", script], timeout_s=30)
    assert run.returncode == 0
    assert run.cpu_seconds["driver"] >= 0.5
    assert run.cpu_seconds["python_workers"] >= 0.4  # the child's last sample may miss up to 0.2 s


def test_measure_gives_the_first_and_the_last_arrival_of_a_watched_text(tmp_path: Path) -> None:
    script = ("import sys, time\nfor n in range(3):\n    print(f'Batch {n} done', file=sys.stderr, flush=True)\n"
              "    time.sleep(0.3)\n")
    with Children(tmp_path) as children:
        run = children.measure("batches", [sys.executable, "-c", script], timeout_s=30, watch=["Batch "])
    assert run.returncode == 0
    assert 0.5 < run.last_marks["Batch "] - run.marks["Batch "] < run.seconds


def test_a_restore_is_compared_with_the_produce_ceiling() -> None:
    results = [
        Result("consume", OK, 1000, 0, seconds=0.1),
        Result("produce", OK, 1000, 0, seconds=0.4),
        Result("restore", OK, 1000, 0, seconds=1.0, ceiling="produce"),
    ]
    _pick_ceilings(results)

    assert results[2].ceiling == "produce", "only a sink takes the slower of its ceilings"
    assert table(results).splitlines()[4].split()[-1] == "0.40"
