"""The streaming ladder's table steps, pure parts: commit cadence, table lag, the connector's commit
durations and their rows in the report.

No servers: the snapshots and log lines are built here as a run would see them.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from bench.__main__ import parse_args
from bench.streaming import ONLY_FORMATS, SINKS
from bench.streaming_report import TABLE_HEADER, section, table_step_rows
from bench.table_metrics import SeenSnapshot, coordinator_commits, snapshot_cadence, table_lag

T0 = 1_800_000_000_000  # epoch ms
RATE = 10_000.0


def _snapshot(n: int, committed_s: float, seen_s: float, total: int, added: int = 50_000) -> SeenSnapshot:
    return SeenSnapshot(n, T0 + round(committed_s * 1000), T0 + seen_s * 1000, added, total)


def test_cadence_counts_snapshots_per_minute_and_the_seconds_between_them() -> None:
    snapshots = [_snapshot(3, 15.0, 15.5, 150_000), _snapshot(1, 5.0, 5.8, 50_000), _snapshot(2, 10.0, 11.0, 100_000)]
    cadence = snapshot_cadence(snapshots, window_s=30.0)
    assert cadence["snapshots"] == 3 and cadence["per_minute"] == pytest.approx(6.0)
    assert cadence["interval_s"] == {"p50": 5.0, "p99": 5.0, "max": 5.0}  # sorted by commit time, not by id
    assert cadence["seen_after_commit_ms"]["max"] == pytest.approx(1000.0)
    assert cadence["records"] == 150_000


def test_cadence_of_a_step_without_snapshots_has_no_intervals() -> None:
    cadence = snapshot_cadence([], window_s=45.0)
    assert cadence["snapshots"] == 0 and cadence["per_minute"] == 0
    assert cadence["interval_s"] == {"p50": None, "p99": None, "max": None}


def test_table_lag_is_produced_minus_the_rows_of_the_newest_snapshot_seen_by_then() -> None:
    snapshots = [_snapshot(2, 9.5, 10.2, 24_000), _snapshot(1, 4.6, 5.1, 14_000)]
    at = [T0 + s * 1000 for s in (1, 5.1, 8, 10.2, 12)]
    high = [5_000, 14_000, 18_000, 24_000, 26_000]
    assert table_lag(at, high, snapshots, rows_before=4_000) == [1_000, 0, 4_000, 0, 2_000]


def test_table_lag_never_goes_below_zero() -> None:
    assert table_lag([T0 + 2000.0], [10], [_snapshot(1, 1, 1, 12)], rows_before=0) == [0]


def _line(at: datetime, text: str) -> str:
    return f"[{at.strftime('%Y-%m-%d %H:%M:%S')},{at.microsecond // 1000:03d}] INFO {text} " \
           "(org.apache.iceberg.connect.channel.Coordinator)"


def test_the_connectors_commit_durations_come_from_its_coordinators_lines() -> None:
    first, second, empty = "0b1e6c1a-0000-4000-8000-000000000001", "0b1e6c1a-0000-4000-8000-000000000002", \
        "0b1e6c1a-0000-4000-8000-000000000003"
    base = datetime(2026, 11, 29, 4, 30, 0)
    log = "\n".join([
        _line(base, f"Commit {first} initiated"),
        _line(base.replace(second=1, microsecond=200_000),
              f"Commit {first} complete, committed to 1 table(s), valid-through 2026-11-29T04:29:59Z"),
        _line(base.replace(second=5), f"Commit {second} initiated"),
        "[2026-11-29 04:30:05,300] INFO some other line (org.apache.kafka.connect.runtime.WorkerSinkTask)",
        _line(base.replace(second=5, microsecond=500_000),
              f"Commit {second} complete, committed to 1 table(s), valid-through null"),
        _line(base.replace(second=10), f"Commit {empty} initiated"),
        _line(base.replace(second=10, microsecond=100_000),
              f"Commit {empty} complete, committed to 0 table(s), valid-through null"),
    ])
    commits = coordinator_commits(log, base.timestamp(), base.timestamp() + 60)
    assert commits["commits"] == 2
    assert commits["duration_ms"]["max"] == pytest.approx(1200.0)
    assert commits["duration_ms"]["p50"] == pytest.approx(850.0)
    late = coordinator_commits(log, base.timestamp() + 3, base.timestamp() + 60)
    assert late["commits"] == 1  # only commits completed inside the window


def test_only_lakesink_and_the_iceberg_connector_write_the_iceberg_format() -> None:
    writers = [sink for sink in SINKS if "iceberg" in ONLY_FORMATS.get(sink, ("iceberg",))]
    assert writers == ["lakesink", "iceberg-connect"]
    assert parse_args(["--streaming", "--formats", "iceberg", "--skip-iceberg-connect"]).skip_iceberg_connect


def test_a_table_step_is_reported_with_lag_freshness_and_commit_cadence() -> None:
    step = {"status": "ok", "label": "20k", "sustained": True, "produced_rate": 20_000.0, "lag_p99": 120_000,
            "freshness_ms": {"p50": 4_000.0, "p99": 9_000.0, "max": 9_500.0}, "cpu_us_per_record": 12.5,
            "peak_rss": 2 * 10**9, "sink_batches": {"commit_ms": 140.0},
            "table": {"per_minute": 12.0, "interval_s": {"p50": 5.0, "p99": 6.0, "max": 6.1},
                      "table_lag": {"p50": 40_000.0, "p99": 140_000.0, "max": 150_000.0}}}
    connector = {**step, "table": {**step["table"], "commits": {"commits": 9,
                                                                 "duration_ms": {"p50": 800.0, "p99": 1_900.0,
                                                                                 "max": 2_000.0}}}}
    report = {"runs": [{"sink": "lakesink", "format": "iceberg", "steps": [step]},
                       {"sink": "iceberg-connect", "format": "iceberg",
                        "steps": [connector, {"status": "skipped", "label": "50k"}]}]}
    rows = table_step_rows(report)
    assert len(rows) == 2 and all(len(row) == len(TABLE_HEADER) for row in rows)
    assert rows[0] == ["lakesink", "20k", "yes", "6.0", "7.0", "4.0 / 9.0", "12.0", "5.0 / 6.1", "140 (mean)",
                       "12.5", "2,000"]
    assert rows[1][0] == "Iceberg's Kafka Connect sink" and rows[1][8] == "800 / 2000"


def test_the_generated_section_shows_the_table_steps_only_when_there_are_some() -> None:
    from tests.unit.bench.test_streaming_metrics import _report

    plain = _report()
    assert "Iceberg tables" not in section(plain, "streaming-x.json", "bench/results")
    with_table = _report()
    step = {**with_table["runs"][0]["steps"][0], "label": "20k", "lag_p99": 30_000,  # type: ignore[index]
            "table": {"per_minute": 12.0, "interval_s": {"p50": 5.0, "p99": 5.2, "max": 5.3},
                      "table_lag": {"p50": 20_000.0, "p99": 40_000.0, "max": 41_000.0}}}
    with_table["runs"].append({"sink": "lakesink", "format": "iceberg", "sustained_rate": RATE,  # type: ignore[attr-defined]
                               "steps": [step]})
    text = section(with_table, "streaming-x.json", "bench/results")
    assert "Iceberg tables" in text and "| lakesink | 20k | yes | 3.0 | 4.0 | 4.0 / 6.5 | 12.0 | 5.0 / 5.3 |" in text


def test_a_table_step_drains_only_once_the_table_holds_every_record() -> None:
    from bench.table_probe import TableProbe

    probe = TableProbe(None, "bench.orders")  # type: ignore[arg-type]  # holds() reads what the polls saw
    probe.rows_before = 4_000
    assert probe.holds(4_000) and not probe.holds(20_000)
    probe.snapshots.append(_snapshot(1, 5.0, 5.5, total=20_000))
    assert probe.holds(20_000)


def test_every_sink_and_format_has_a_name_for_the_charts_grid() -> None:
    """The lag chart draws a cell for every sink × format of a run, also those a sink does not write."""
    from bench.streaming import FORMATS
    from bench.streaming_report import _format_name

    names = {(sink, fmt): _format_name(sink, fmt) for sink in SINKS for fmt in FORMATS}
    assert names["iceberg-connect", "json"].startswith("not run")
    assert names["quix", "iceberg"].startswith("not run") and names["lakesink", "iceberg"].startswith("Iceberg table")
