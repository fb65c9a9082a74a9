"""lakesink ÷ peer ratios, the side-by-side section and chart, and the Spark job's output check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.peers import cpu_per_record, peer_ratios, ratio_table
from bench.results import FAILED, OK, Result, write_json
from bench.side_by_side import BEGIN, END, load, publish, publishable, section
from bench.spark_job_runs import check_output, checkpoint_committed, committed_keys, job_jars


def _run(name: str, seconds: float, cpu: float, status: str = OK) -> Result:
    return Result(name, status, 1000, 0, seconds=seconds, note="why" if status != OK else "",
                  extra={"cpu_seconds": {"driver": cpu / 2, "jvm": cpu / 2}, "services_cpu_seconds": {"broker": 0.5}})


def test_ratios_are_lakesink_over_each_peer_of_the_same_format() -> None:
    results = [_run("sink-json", 2.0, 1.0), _run("quix-json", 4.0, 4.0), _run("spark-json", 1.0, 2.0),
               _run("spark-parquet", 1.0, 2.0)]
    assert cpu_per_record(results[0]) == pytest.approx(0.001)
    assert peer_ratios(results) == [("sink-json", "quix-json", 2.0, 0.25), ("sink-json", "spark-json", 0.5, 0.5)]
    assert "sink-json ÷ spark-json: records/s 0.50×, CPU/record 0.50×" in ratio_table(results)


def test_a_failed_side_gives_no_ratio() -> None:
    results = [_run("sink-parquet", 2.0, 1.0), _run("spark-parquet", 1.0, 2.0, status=FAILED)]
    assert peer_ratios(results) == [("sink-parquet", "spark-parquet", None, None)]


def test_a_run_publishes_the_section_only_when_every_scenario_passed_beside_a_peer() -> None:
    assert publishable([_run("consume", 1.0, 1.0), _run("sink-json", 2.0, 1.0), _run("quix-json", 4.0, 4.0)])
    assert not publishable([_run("sink-json", 2.0, 1.0), _run("sink-parquet", 2.0, 1.0)])  # no peer
    assert not publishable([_run("sink-json", 2.0, 1.0), _run("quix-json", 4.0, 4.0, status=FAILED)])


def _log(*entries: tuple[str, str]) -> bytes:
    lines = ["v1", *(json.dumps({"path": path, "size": 1, "isDir": False, "action": action})
                     for path, action in entries)]
    return "\n".join(lines).encode()


def test_committed_keys_unite_compacted_and_later_logs() -> None:
    logs = {"data/_spark_metadata/9.compact": _log(("s3a://b/data/country=DE/part-0.parquet", "add"),
                                                  ("s3a://b/data/country=F%20R/part-1.parquet", "add")),
            "data/_spark_metadata/10": _log(("s3a://b/data/part-2.parquet", "add"),
                                            ("s3a://b/data/country=DE/part-0.parquet", "delete"))}
    assert committed_keys(logs, "b") == {"data/country=F R/part-1.parquet", "data/part-2.parquet"}


def test_committed_keys_reject_a_foreign_log() -> None:
    with pytest.raises(ValueError, match="not a Spark file sink log"):
        committed_keys({"data/_spark_metadata/0": b"{}"}, "b")
    with pytest.raises(ValueError, match="outside bucket b"):
        committed_keys({"data/_spark_metadata/0": _log(("s3a://other/x.json", "add"))}, "b")


def test_output_check_needs_the_same_files_and_every_record() -> None:
    assert check_output({"a.json": 3, "b.json": 2}, {"a.json", "b.json"}, 5) is None
    assert "1 listed file(s) not committed" in (check_output({"a.json": 3, "b.json": 2}, {"a.json"}, 5) or "")
    assert check_output({"a.json": 3}, {"a.json"}, 5) == "incomplete: 3 of 5 records in 1 files"


def test_checkpoint_committed_is_the_last_committed_batch_end(tmp_path: Path) -> None:
    assert checkpoint_committed(tmp_path, "t", 2) == {0: 0, 1: 0}  # before the first batch
    (tmp_path / "offsets").mkdir()
    (tmp_path / "commits").mkdir()
    for batch, ends in ((0, {"0": 5, "1": 7}), (1, {"0": 9, "1": 7})):
        (tmp_path / "offsets" / str(batch)).write_text(f'v1\n{{"batchWatermarkMs":0}}\n{json.dumps({"t": ends})}\n')
    (tmp_path / "commits" / "0").write_text("v1\n{}\n")
    assert checkpoint_committed(tmp_path, "t", 2) == {0: 5, 1: 7}  # batch 1 planned, not committed
    (tmp_path / "commits" / "1").write_text("v1\n{}\n")
    assert checkpoint_committed(tmp_path, "t", 2) == {0: 9, 1: 7}


def test_missing_jars_name_the_install_step(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make install"):
        job_jars(tmp_path)


def _results_file(tmp_path: Path) -> Path:
    results = [_run("sink-json", 2.0, 1.0), _run("spark-json", 1.0, 2.0), _run("restore", 1.0, 1.0)]
    return write_json(tmp_path / "results", results, {"records": 1000, "partitions": 8, "scenarios": "x"})


def test_section_shows_the_peers_and_their_ratios_only(tmp_path: Path) -> None:
    path = _results_file(tmp_path)
    report, results = load(path)
    text = section(report, results, path.name, "bench/results/side-by-side.svg")
    assert text.startswith(BEGIN) and text.endswith(END)
    assert "| sink-json ÷ spark-json | 0.50 | 0.50 |" in text
    assert "| spark-json | ok | 1,000 | - | 2000.0 | 500.0 |" in text
    assert "restore" not in text


def test_chart_and_section_regenerate_in_place(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")  # the [bench] extra
    path = _results_file(tmp_path)
    benchmarks = tmp_path / "BENCHMARKS.md"
    benchmarks.write_text("# Benchmarks\n")
    assert publish(path, benchmarks).read_text().startswith("<?xml")
    publish(path, benchmarks)  # a second run replaces the section, it does not append another
    text = benchmarks.read_text()
    assert text.count("## Side by side (issue 34)") == 1 and text.count(BEGIN) == 1
