"""``python -m bench`` (``make bench``): the end-to-end benchmark; ``--help`` lists the options.

One run, all on 127.0.0.1, bounded by ``--timeout``: start the broker (Apache Kafka, or Tansu with
``--broker tansu``) and moto in child processes, produce the order events, measure the ceilings,
lakesink's sink scenarios, its peers (Quix's S3FileSink, the plain Spark job) and lakesink's restore, check every output, print one table and write ``bench/results/<UTC>.json``.
Every child is killed at the end, on failure, on Ctrl-C and on timeout (unless ``--keep``).
``--streaming`` runs the continuous-mode ladder instead (bench/streaming.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import iceberg_connect_runs, scenarios, side_by_side, streaming, streaming_report
from bench.lakesink_runs import MEMORY_ZONES
from bench.peers import ratio_table
from bench.processes import BenchTimeout, Children, install_global_timeout
from bench.results import OK, machine, table, write_json
from bench.streaming_metrics import parse_ladder

RESULTS_DIR = Path(__file__).resolve().parent / "results"
BENCHMARKS = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="lakesink sink and restore against their ceilings and peers (Quix Streams, a plain Spark job), "
                    "on Apache Kafka (or Tansu) + moto (127.0.0.1).",
    )
    parser.add_argument("--records", type=int, default=1_000_000, metavar="N", help="events to produce (1000000)")
    parser.add_argument("--partitions", type=int, default=None, metavar="P",
                        help="partitions of the topic (8; --streaming: 4)")
    parser.add_argument("--scenarios", default=",".join(scenarios.DEFAULT), metavar="A,B,...",
                        help=f"which to run, of: {', '.join(scenarios.ALL)} (all but "
                             f"{', '.join(sorted(set(scenarios.ALL) - set(scenarios.DEFAULT)))})")
    parser.add_argument("--skip-quix", action="store_true", help="leave out the Quix Streams runs")
    parser.add_argument("--skip-spark", action="store_true", help="leave out the plain Spark job's runs")
    parser.add_argument("--skip-aiven", action="store_true", help="leave out the Aiven peer's runs (Connect worker)")
    parser.add_argument("--skip-iceberg-connect", action="store_true",
                        help="leave out Apache Iceberg's Kafka Connect sink's runs (Connect worker)")
    parser.add_argument("--timeout", type=int, default=3600, metavar="S", help="global time limit in seconds (3600)")
    parser.add_argument("--master", default="local[2]", help="Spark master of the lakesink runs (local[2])")
    parser.add_argument("--zones", type=int, default=MEMORY_ZONES, metavar="Z",
                        help=f"partition values of sink-memory's events ({MEMORY_ZONES}; issue 19's per-object case: 500)")
    parser.add_argument("--keep", action="store_true",
                        help="leave the broker and S3 server running at the end (for profiling); Ctrl-C stops them")
    parser.add_argument("--scaling", action="store_true",
                        help="instead: backfill ONE partition of N records with local[1] and local[2]")
    parser.add_argument("--broker", choices=("auto", "kafka", "tansu"), default="auto",
                        help="auto: Apache Kafka when `make install` fetched its jars, else Tansu")
    parser.add_argument("--chart", metavar="FILE", type=Path,
                        help="render lakesink-vs-peers chart and BENCHMARKS.md's side-by-side section from a "
                             "results file, run nothing")
    streams = parser.add_argument_group("streaming (continuous mode, bench/streaming.py)")
    streams.add_argument("--streaming", action="store_true",
                         help="instead: lakesink, Quix, the plain Spark job, (JSON) the Aiven peer and (ICEBERG) "
                              "Iceberg's Kafka Connect sink in continuous mode against a producer at fixed rates")
    streams.add_argument("--ladder", metavar="R,R,...",
                         help=f"records/s of the steps, rising, 'max' last ({streaming.DEFAULT_LADDER}; "
                              f"--smoke: {streaming.SMOKE_LADDER})")
    streams.add_argument("--step-seconds", type=float, metavar="S",
                         help=f"how long each step produces ({streaming.DEFAULT_STEP_S:g}; --smoke: "
                              f"{streaming.SMOKE_STEP_S:g})")
    streams.add_argument("--formats", default=",".join(streaming.FORMATS), metavar="F,F",
                         help=f"of {', '.join(streaming.FORMATS)} (all)")
    streams.add_argument("--profile", action="store_true",
                         help="py-spy the lakesink sink's Python processes during each step (their leaf functions "
                              "in the results; costs some CPU)")
    streams.add_argument("--smoke", action="store_true",
                         help="a short run whose results, charts and section stay in the work directory")
    streams.add_argument("--streaming-report", metavar="FILE", type=Path,
                         help="render the charts and BENCHMARKS.md's streaming section from a results file, run nothing")
    args = parser.parse_args(argv)
    if args.chart and not args.chart.is_file():
        parser.error(f"--chart: no results file {args.chart}")
    if args.partitions is None:
        args.partitions = streaming.PARTITIONS if args.streaming else 8
    try:
        args.ladder_text = args.ladder or (streaming.SMOKE_LADDER if args.smoke else streaming.DEFAULT_LADDER)
        args.ladder = parse_ladder(args.ladder_text)
    except ValueError as error:
        parser.error(f"--ladder: {error}")
    if args.step_seconds is None:
        args.step_seconds = streaming.SMOKE_STEP_S if args.smoke else streaming.DEFAULT_STEP_S
    args.formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    if not args.formats or set(args.formats) - set(streaming.FORMATS):
        parser.error(f"--formats: choose from {', '.join(streaming.FORMATS)}")
    if args.step_seconds < 3:
        parser.error("--step-seconds must be at least 3 (the lag rule compares thirds of the step)")
    chosen = [name.strip() for name in args.scenarios.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(scenarios.ALL))
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(scenarios.ALL)}")
    if args.skip_quix:
        chosen = [name for name in chosen if not name.startswith("quix-")]
    if args.skip_spark:
        chosen = [name for name in chosen if not name.startswith("spark-")]
    if args.skip_aiven:
        chosen = [name for name in chosen if not name.startswith("aiven-")]
    if args.skip_iceberg_connect:
        chosen = [name for name in chosen if name not in iceberg_connect_runs.SCENARIOS]
    args.chosen = chosen
    if args.records < 1 or args.partitions < 1:
        parser.error("--records and --partitions must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.chart:
        print(f"bench: chart {side_by_side.publish(args.chart, BENCHMARKS)}; regenerated the side-by-side "
              f"section of {BENCHMARKS}", flush=True)
        return 0
    if args.streaming_report:
        report = json.loads(args.streaming_report.read_text())
        _publish_streaming(report, args.streaming_report, RESULTS_DIR, benchmarks=True)
        return 0
    if args.streaming:
        return _streaming(args)
    args.load_average_at_start = os.getloadavg()  # a busy machine shows here (2-core machines are shared)
    install_global_timeout(args.timeout)
    deadline = time.monotonic() + args.timeout
    work = Path(tempfile.mkdtemp(prefix="lakesink-bench-"))
    print(f"bench: work directory and logs in {work}", flush=True)
    run: scenarios.Run | None = None
    try:
        with Children(work) as children:
            run = scenarios.Run(args, children, work, deadline)
            run.scaling() if args.scaling else run.all()
            _report(run, args)
            if args.keep:
                run.keep_alive()
    except (BenchTimeout, KeyboardInterrupt) as stop:
        why = "interrupted" if isinstance(stop, KeyboardInterrupt) else str(stop)
        print(f"bench: {why}; every child process was stopped", file=sys.stderr)
        if run is not None and run.results and not run.reported:
            _report(run, args)
        return 130 if isinstance(stop, KeyboardInterrupt) else 1
    finally:
        if run is not None:
            run.close()
        _keep_only_logs(work)
    return 0 if run.results and all(r.status == OK for r in run.results) else 1


#: what a finished run leaves in its work directory: logs, profiles and results, not its data
KEPT_SUFFIXES = frozenset({".log", ".txt", ".json", ".png", ".svg"})


def _keep_only_logs(work: Path) -> None:
    """Delete the run's data (broker logs, stores, checkpoints: up to tens of GB) and keep what explains it."""
    for path in sorted(work.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_symlink() or path.is_file():
            if path.suffix not in KEPT_SUFFIXES or path.stem.isdigit():  # 00000000000000000000.log: a Kafka segment
                path.unlink(missing_ok=True)
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def _report(run: scenarios.Run, args: argparse.Namespace) -> None:
    """Print the table of what finished and write it to bench/results/<UTC>.json."""
    run.reported = True
    print("\n" + table(run.results), flush=True)
    print(ratio_table(run.results), flush=True)
    path = write_json(RESULTS_DIR, run.results, vars(args))
    print(f"bench: results in {path}", flush=True)
    if side_by_side.publishable(run.results):
        print(f"bench: chart {side_by_side.publish(path, BENCHMARKS)}; regenerated the side-by-side section of "
              f"{BENCHMARKS}", flush=True)


def _streaming(args: argparse.Namespace) -> int:
    """The continuous-mode ladder; what finished is written even after a timeout or Ctrl-C."""
    args.load_average_at_start = os.getloadavg()
    install_global_timeout(args.timeout)
    deadline = time.monotonic() + args.timeout
    work = Path(tempfile.mkdtemp(prefix="lakesink-bench-streaming-"))
    print(f"bench: work directory and logs in {work}", flush=True)
    runs: list[dict[str, Any]] = []
    status = 0
    try:
        with Children(work) as children:
            streaming.run_ladder(args, children, work, deadline, runs)
    except (BenchTimeout, KeyboardInterrupt) as stop:
        why = "interrupted" if isinstance(stop, KeyboardInterrupt) else str(stop)
        print(f"bench: {why}; every child process was stopped", file=sys.stderr)
        status = 130 if isinstance(stop, KeyboardInterrupt) else 1
    finally:
        _keep_only_logs(work)
    if not runs:
        return status or 1
    run = {key: value for key, value in vars(args).items() if key != "streaming_report"}
    report = {"kind": "streaming", "finished": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "commit": _commit(),
              "run": run, "machine": machine(), "partitions": args.partitions,
              "flush_interval_s": streaming.FLUSH_INTERVAL_S, "step_seconds": args.step_seconds,
              "drain_timeout_s": streaming.DRAIN_TIMEOUT_S,
              "runs": runs, "ratios": streaming.ratios(runs)}
    directory = work if args.smoke else RESULTS_DIR
    path = streaming_report.write_results(directory, report)
    _publish_streaming(report, path, directory, benchmarks=not args.smoke and status == 0)
    failed = any(step["status"] == "FAILED" for entry in runs for step in entry["steps"])
    return status or (1 if failed else 0)


def _publish_streaming(report: dict[str, Any], path: Path, directory: Path, *, benchmarks: bool) -> None:
    """Table, charts next to the results and (``benchmarks``) BENCHMARKS.md's generated section."""
    print("\n" + streaming_report.table(report), flush=True)
    print(f"bench: results in {path}", flush=True)
    for chart in streaming_report.charts(report, directory):
        print(f"bench: chart {chart}", flush=True)
    if benchmarks:
        streaming_report.update_benchmarks(BENCHMARKS, streaming_report.section(report, path.name, "bench/results"))
        print(f"bench: regenerated the streaming section of {BENCHMARKS}", flush=True)


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=BENCHMARKS.parent, timeout=10).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


if __name__ == "__main__":
    sys.exit(main())
