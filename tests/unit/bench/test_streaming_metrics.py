"""The streaming scenario's pure parts: the ladder, the bounded-lag rule, freshness, the report.

No servers: the samples are built here as a run would collect them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench.__main__ import parse_args
from bench.streaming import ratios
from bench.streaming_metrics import (
    MAX,
    estimated_lines,
    freshness_ms,
    interpolated_stamps,
    json_stamps,
    judge_step,
    parse_ladder,
    percentiles,
    rate_label,
    slope,
    sustained_rate,
)
from bench.streaming_probes import lag_of
from bench.streaming_producer import event_pool
from bench.streaming_report import BEGIN, END, section, table, update_benchmarks

FLUSH = 5.0
RATE = 10_000.0


def _sawtooth(seconds: int, rate: float, *, keep_up: float = 1.0, period: int = 5) -> tuple[list[float], list[int]]:
    """Lag sampled every second of a sink committing every ``period`` s at ``keep_up`` × the rate."""
    times, lags, committed = [], [], 0.0
    for t in range(seconds + 1):
        if t and t % period == 0:
            committed = keep_up * rate * t
        times.append(float(t))
        lags.append(max(0, round(rate * t - committed)))
    return times, lags


# --- the ladder ---------------------------------------------------------------------------------


def test_ladder_accepts_plain_numbers_suffixes_and_max_last() -> None:
    assert parse_ladder("20k, 50K,100000,1.5m,max") == (20_000, 50_000, 100_000, 1_500_000, MAX)
    assert parse_ladder("500") == (500,)


@pytest.mark.parametrize("text, message", [
    ("max,20k", "last step"),
    ("50k,20k", "must rise"),
    ("20k,20k", "must rise"),
    ("fast", "not a rate"),
    ("0", "above 0"),
    (" , ", "empty"),
])
def test_ladder_rejects_what_is_not_a_rising_ladder(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_ladder(text)


def test_rate_labels() -> None:
    assert [rate_label(r) for r in (500, 20_000, 1_500_000, MAX)] == ["500", "20k", "1.5M", "max"]


def test_streaming_options_default_and_smoke() -> None:
    args = parse_args(["--streaming"])
    assert args.ladder == (20_000, 50_000, 100_000, 200_000, MAX)
    assert args.step_seconds == 45 and args.partitions == 4 and args.formats == ["json", "parquet", "iceberg"]
    smoke = parse_args(["--streaming", "--smoke"])
    assert smoke.ladder == (1_000, 2_000) and smoke.step_seconds == 10
    assert parse_args([]).partitions == 8  # the batch scenarios keep theirs


def test_a_bad_ladder_option_is_an_argument_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--streaming", "--ladder", "max,10k"])
    assert "--ladder" in capsys.readouterr().err


# --- the bounded-lag rule -------------------------------------------------------------------------


def test_a_sink_that_commits_every_flush_interval_is_sustained() -> None:
    times, lags = _sawtooth(45, RATE)
    verdict = judge_step(times, lags, start=0, end=45, rate=RATE, flush_interval_s=FLUSH)
    assert verdict.sustained, verdict.why
    assert verdict.bound == 2 * FLUSH * RATE


def test_a_sink_ten_percent_behind_fails_on_growth_before_its_lag_is_out_of_bounds() -> None:
    times, lags = _sawtooth(45, RATE, keep_up=0.9)
    verdict = judge_step(times, lags, start=0, end=45, rate=RATE, flush_interval_s=FLUSH)
    assert not verdict.sustained
    assert verdict.end_lag < verdict.bound and "grew" in verdict.why


def test_a_lag_over_two_flush_intervals_at_the_end_is_not_sustained() -> None:
    times = [float(t) for t in range(46)]
    lags = [round(RATE * 11)] * 46  # constant but over the bound: not growing, still too far behind
    verdict = judge_step(times, lags, start=0, end=45, rate=RATE, flush_interval_s=FLUSH)
    assert not verdict.sustained and "at the end" in verdict.why


def test_samples_outside_the_step_are_ignored_and_too_few_samples_fail() -> None:
    times, lags = _sawtooth(45, RATE)
    verdict = judge_step([-1.0, *times, 60.0], [10**9, *lags, 10**9], start=0, end=45, rate=RATE,
                         flush_interval_s=FLUSH)
    assert verdict.sustained
    assert not judge_step([0.0, 1.0], [0, 0], start=0, end=45, rate=RATE, flush_interval_s=FLUSH).sustained


def test_sustained_rate_is_the_highest_sustained_steps_achieved_rate() -> None:
    steps = [{"produced_rate": 19_900.0, "sustained": True}, {"produced_rate": 49_800.0, "sustained": True},
             {"produced_rate": 97_000.0, "sustained": False}, {"nominal_rate": 200_000, "sustained": False}]
    assert sustained_rate(steps) == 49_800.0
    assert sustained_rate(steps[2:]) is None


def test_committed_rate_is_the_slope_of_the_committed_positions() -> None:
    assert slope([0, 1, 2, 3], [0, 10, 20, 30]) == pytest.approx(10)
    assert slope([1], [5]) == 0.0
    times = [float(t) for t in range(46)]
    staircase = [RATE * (t - t % 5) for t in range(46)]  # a commit every 5 s
    assert slope(times, staircase) == pytest.approx(RATE, rel=0.05)


def test_lag_is_produced_minus_committed_per_partition_never_negative() -> None:
    assert lag_of({0: 100, 1: 50}, {0: 40, 1: 60}) == 60
    assert lag_of({0: 100, 1: 50}, {}) == 150


def test_ratios_compare_sustained_rates_and_cpu_at_the_highest_common_step() -> None:
    def step(rate: int, sustained: bool, cpu: float) -> dict[str, object]:
        return {"nominal_rate": rate, "sustained": sustained, "cpu_us_per_record": cpu}

    runs = [
        {"sink": "lakesink", "format": "json", "sustained_rate": 200_000.0,
         "steps": [step(20_000, True, 12.0), step(50_000, True, 6.0), step(200_000, True, 4.0)]},
        {"sink": "quix", "format": "json", "sustained_rate": 50_000.0,
         "steps": [step(20_000, True, 16.0), step(50_000, True, 15.0), step(200_000, False, 15.0)]},
    ]
    assert ratios(runs) == {"json": {"sustained_rate": 4.0, "cpu_per_record_quix_over_lakesink": 2.5,
                                     "cpu_compared_at": 50_000}}
    spark = {"sink": "spark", "format": "json", "sustained_rate": 100_000.0,
             "steps": [step(20_000, True, 30.0), step(50_000, True, 24.0), step(200_000, False, 20.0)]}
    assert ratios([*runs, spark])["json"]["vs_spark"] == {
        "sustained_rate": 2.0, "cpu_per_record_peer_over_lakesink": 4.0, "cpu_compared_at": 50_000}
    assert ratios([runs[0], spark]) == {"json": {"vs_spark": ratios([*runs, spark])["json"]["vs_spark"]}}


# --- freshness ----------------------------------------------------------------------------------


def test_produce_times_are_read_from_lakesink_and_quix_json_lines() -> None:
    lakesink = b'{"order_id":"o-1","created_at":1700000000123,"updated_at":1700000000999}\n'
    quix = b'{"_timestamp":1,"_key":"o-2","_value":{"created_at": 1700000000456,"updated_at":2}}\n'
    assert json_stamps(lakesink + quix) == [1_700_000_000_123, 1_700_000_000_456]


def test_the_producer_stamps_created_at_keeping_the_events_bytes() -> None:
    key, head, tail, _ = event_pool(3)[1]
    value = head + b"1763000000999" + tail
    assert json.loads(value)["created_at"] == 1_763_000_000_999
    assert json_stamps(value) == [1_763_000_000_999]


def test_records_of_a_large_json_object_are_estimated_from_its_size() -> None:
    line = b'{"created_at":1700000000000,"pad":"' + b"x" * 60 + b'"}\n'
    head = (line * 1000)[:65_536]
    assert estimated_lines(len(line) * 5_000, head) == 5_000
    assert estimated_lines(10, b"no newline") == 1


def test_freshness_percentiles_over_evenly_produced_records() -> None:
    produced = interpolated_stamps(1_000, 2_000, 1_001)
    assert produced[0] == 1_000 and produced[-1] == 2_000 and len(produced) == 1_001
    fresh = freshness_ms(7_000, produced)  # object seen at 7 s: records 5 to 6 s old
    figures = percentiles(fresh)
    assert figures["p50"] == pytest.approx(5_500)
    assert figures["p99"] == pytest.approx(5_990)
    assert figures["max"] == pytest.approx(6_000)


def test_percentiles_of_several_objects_weigh_every_record() -> None:
    values = np.concatenate([freshness_ms(10_000, [9_000] * 99), freshness_ms(10_000, [0])])
    assert percentiles(values)["p50"] == 1_000
    assert percentiles(values)["max"] == 10_000
    assert percentiles([]) == {"p50": None, "p99": None, "max": None}


# --- the generated section ------------------------------------------------------------------------


def _report() -> dict[str, object]:
    times, lags = _sawtooth(10, RATE)
    ok = {"status": "ok", "label": "10k", "nominal_rate": 10_000, "sustained": True, "why": "bounded lag",
          "produced_rate": RATE, "committed_rate": RATE, "end_lag": lags[-1],
          "freshness_ms": {"p50": 4_000.0, "p99": 6_500.0, "max": 7_000.0}, "cpu_us_per_record": 5.0,
          "sink_cpu_seconds": {"driver": 0.1, "jvm": 0.5, "python_workers": 1.0, "other": 0.0},
          "services_cpu_seconds": {"broker": 0.2, "s3": 0.1}, "producer_cpu_seconds": 0.3,
          "machine_busy_percent": 80.0, "others_busy_percent": 3.0,
          "sink_batches": {"batches": 5, "seconds_between": 2.1, "records_per_batch": 20_000, "files_per_batch": 4,
                           "commit_ms": 90.0}, "peak_rss": 10**9, "series": {"t": times, "lag": lags}}
    return {"finished": "2026-11-25 12:00", "commit": "abc1234", "partitions": 4, "flush_interval_s": 5,
            "step_seconds": 10, "machine": {"nproc": 2, "cpu": "test CPU"},
            "run": {"ladder_text": "10k", "step_seconds": 10, "master": "local[2]", "load_average_at_start": [0.5]},
            "runs": [{"sink": "lakesink", "format": "json", "sustained_rate": RATE, "steps": [ok]},
                     {"sink": "quix", "format": "json", "sustained_rate": None,
                      "steps": [{"status": "skipped", "label": "10k", "nominal_rate": 10_000, "sustained": False,
                                 "why": "not run"}]}],
            "ratios": {"json": {"sustained_rate": None, "cpu_per_record_quix_over_lakesink": None,
                                "cpu_compared_at": None}}}


def test_the_section_is_regenerated_between_its_markers_only(tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "BENCHMARKS.md"
    path.write_text(f"# Benchmarks\n\nbefore\n\n{BEGIN}\nold numbers\n{END}\n\nafter\n")
    update_benchmarks(path, section(_report(), "streaming-x.json", "bench/results"))
    text = path.read_text()
    assert "old numbers" not in text and text.startswith("# Benchmarks\n\nbefore") and text.endswith("after\n")
    assert text.count(BEGIN) == 1 and "streaming-x.json" in text and "streaming-lag.png" in text
    assert "| lakesink | JSON passthrough | **10,000** |" in text
    assert "JVM 0.5 + driver 0.1 + workers 1.0" in text
    assert "lakesink JSON passthrough: sustained 10,000 records/s" in table(_report())


def test_a_peer_other_than_quix_gets_its_own_ratio_line() -> None:
    report = _report()
    report["ratios"]["json"]["vs_spark"] = {  # type: ignore[index]
        "sustained_rate": 2.0, "cpu_per_record_peer_over_lakesink": 3.5, "cpu_compared_at": 10_000}
    line = ("JSON passthrough: lakesink / plain Spark job sustained = 2.00; plain Spark job / lakesink CPU per "
            "record = 3.50 (at 10,000 records/s)")
    assert f"* {line}" in section(report, "streaming-x.json", "bench/results") and line in table(report)


def test_the_aiven_peer_is_named_with_its_format_and_its_two_processes() -> None:
    report = _report()
    aiven = {**report["runs"][0]["steps"][0], "sink_cpu_seconds": {"driver": 0.3, "jvm": 9.1}}  # type: ignore[index]
    report["runs"].append({"sink": "aiven", "format": "json", "sustained_rate": RATE, "steps": [aiven]})  # type: ignore[attr-defined]
    text = section(report, "streaming-x.json", "bench/results")
    assert "| Aiven's commons on Connect | jsonl (JsonConverter, value envelope) | **10,000** |" in text
    assert "| JVM 9.1 + launcher 0.3 |" in text


def test_the_charts_are_written_as_png(tmp_path) -> None:  # noqa: ANN001
    pytest.importorskip("matplotlib")  # the bench extra
    from bench.streaming_report import charts

    report = _report()  # a PARQUET run beside the Aiven peer's JSON-only one leaves an empty cell
    report["runs"] += [{**report["runs"][0], "format": "parquet"},  # type: ignore[operator,index]
                       {**report["runs"][0], "sink": "aiven"}]  # type: ignore[index]
    paths = charts(report, tmp_path)
    assert [p.name for p in paths] == ["streaming-lag.png", "streaming-ratios.png", "streaming-cpu.png"]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in paths)


def test_lakesinks_batch_lines_in_the_step_are_summarised() -> None:
    from datetime import datetime

    from bench.streaming_metrics import sink_batches

    def line(clock: str, records: int, files: int, commit: float) -> str:
        return (f"2026-11-25 {clock} INFO lakesink.application.sink_run: Batch 3: {records} records, 425267 bytes, "
                f"{files} files, 0 skipped, 0 poison skipped (0 to the dead-letter topic), lag 1504, commit {commit} ms")

    log = "\n".join([line("11:43:40,000", 4004, 40, 80.0), "2026-11-25 11:43:41,000 INFO other: noise",
                     line("11:43:43,000", 6000, 40, 100.0), line("11:43:45,500", 0, 0, 5.0),
                     line("11:43:49,000", 2000, 20, 200.0)])
    start = datetime(2026, 11, 25, 11, 43, 42).timestamp()
    summary = sink_batches(log, start, start + 60)
    assert summary == {"batches": 2, "records_per_batch": 4000, "files_per_batch": 30, "seconds_between": 6.0,
                       "commit_ms": 150.0}
    assert sink_batches("", start, start + 60)["batches"] == 0


def test_the_section_shows_lakesinks_batches() -> None:
    text = section(_report(), "streaming-x.json", "bench/results")
    assert "| json | 10k | 5 | 2.1 | 20,000 | 4 | 90 |" in text


def test_a_py_spy_profile_is_summed_by_process_role_and_leaf_function() -> None:
    from bench.streaming_metrics import profile_summary

    raw = ('process 1:"python -m lakesink.application.cli sink --config c";process 9:"python -m pyspark.daemon";'
           "write (pyarrow/parquet.py:10);encode (x.py:3) 30\n"
           'process 1:"python -m lakesink.application.cli sink --config c";process 9:"python -m pyspark.daemon";'
           "write (pyarrow/parquet.py:10);encode (x.py:4) 30\n"
           'process 1:"python -m lakesink.application.cli sink --config c";run (sink_run.py:5) 30\n'
           'process 1:"python -m lakesink.application.cli sink --config c";SocketIO.readinto (socket.py:9) 10\n')
    summary = profile_summary(raw)
    assert summary["samples"] == 100 and summary["waiting"] == 0.1
    assert summary["by_role"] == {"driver": 0.4, "python_workers": 0.6}
    assert summary["top_leaves"][:2] == [("python_workers: encode (x.py)", 0.6), ("driver: run (sink_run.py)", 0.3)]
    assert profile_summary("")["samples"] == 0
