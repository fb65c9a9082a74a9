"""``python -m bench`` (``make bench``): the end-to-end benchmark; ``--help`` lists the options.

One run, all on 127.0.0.1, bounded by ``--timeout``: start Tansu and moto in child processes,
produce the order events, measure the ceilings, lakesink's sink scenarios, Quix's S3FileSink and
lakesink's restore, check every output, print one table and write ``bench/results/<UTC>.json``.
Every child is killed at the end, on failure, on Ctrl-C and on timeout (unless ``--keep``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from bench import scenarios
from bench.processes import BenchTimeout, Children, install_global_timeout
from bench.results import OK, table, write_json

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="lakesink sink and restore against their ceilings and Quix Streams, on Tansu + moto (127.0.0.1).",
    )
    parser.add_argument("--records", type=int, default=1_000_000, metavar="N", help="events to produce (1000000)")
    parser.add_argument("--partitions", type=int, default=8, metavar="P", help="partitions of the topic (8)")
    parser.add_argument("--scenarios", default=",".join(scenarios.DEFAULT), metavar="A,B,...",
                        help=f"which to run, of: {', '.join(scenarios.ALL)} (all but "
                             f"{', '.join(sorted(set(scenarios.ALL) - set(scenarios.DEFAULT)))})")
    parser.add_argument("--skip-quix", action="store_true", help="leave out the Quix Streams runs")
    parser.add_argument("--timeout", type=int, default=3600, metavar="S", help="global time limit in seconds (3600)")
    parser.add_argument("--master", default="local[2]", help="Spark master of the lakesink runs (local[2])")
    parser.add_argument("--keep", action="store_true",
                        help="leave the broker and S3 server running at the end (for profiling); Ctrl-C stops them")
    parser.add_argument("--scaling", action="store_true",
                        help="instead: backfill ONE partition of N records with local[1] and local[2]")
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.scenarios.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(scenarios.ALL))
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(scenarios.ALL)}")
    if args.skip_quix:
        chosen = [name for name in chosen if not name.startswith("quix-")]
    args.chosen = chosen
    if args.records < 1 or args.partitions < 1:
        parser.error("--records and --partitions must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
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
    return 0 if run.results and all(r.status == OK for r in run.results) else 1


def _report(run: scenarios.Run, args: argparse.Namespace) -> None:
    """Print the table of what finished and write it to bench/results/<UTC>.json."""
    run.reported = True
    print("\n" + table(run.results), flush=True)
    print(f"bench: results in {write_json(RESULTS_DIR, run.results, vars(args))}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
