"""``python -m bench.iceberg_connect_app``: Apache Iceberg's Kafka Connect sink end to end, as the harness's
measured child.

Starts a Kafka Connect standalone worker (its JVM is this process's child, so the harness's process-tree
sampler counts its CPU and memory) with the connector's plugin directory, adds the connector and waits until
the table's current snapshot holds ``--expected`` records (or no new snapshot for ``--idle`` seconds). It
reads the table's metadata from the REST catalog with one HTTP GET per poll (no Iceberg client in this
process: its CPU would count as the connector's). The harness reads the table itself afterwards. Prints
``{"seconds", "records"}``: worker start -> the snapshot that completed the table. With ``--continuous`` it
runs until SIGTERM instead (the streaming ladder reads the table itself). The S3 credentials come from
AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, never from the command line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import urllib.request
from pathlib import Path

from bench.iceberg_connect import connector_config
from lakesink.adapters.demo.s3 import S3Endpoint
from tests.support.connect_standalone import ConnectWorker

POLL_S = 0.25


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--name", "--bootstrap", "--topic", "--table", "--catalog-uri", "--control-topic", "--endpoint",
                 "--region"):
        parser.add_argument(name, required=True)
    parser.add_argument("--commit-ms", type=int, required=True, help="iceberg.control.commit.interval-ms")
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--heap", default="2g", help="the worker's -Xmx (Kafka's connect-standalone.sh: 2g)")
    parser.add_argument("--expected", type=int, help="records to wait for in the table (not with --continuous)")
    parser.add_argument("--idle", type=float, help="seconds without a new snapshot before giving up")
    parser.add_argument("--continuous", action="store_true", help="run until SIGTERM; exit 1 if the worker dies")
    parser.add_argument("--plugin-path", type=Path, required=True, help="the worker's plugin.path, the connector in it")
    parser.add_argument("--keep-log", type=Path, required=True, help="where the worker's log is copied at the end")
    args = parser.parse_args()
    if not args.continuous and (args.expected is None or args.idle is None):
        parser.error("--expected and --idle are required without --continuous")
    s3 = S3Endpoint(args.endpoint, os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"], args.region)
    started_ms = time.time() * 1000
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # at any moment: the worker is stopped cleanly below
    worker = ConnectWorker(args.bootstrap, heap=args.heap, quick_start=False, plugin_path=args.plugin_path)
    records, committed_ms = 0, None
    try:
        worker.start()
        worker.add_connector(args.name, connector_config(args.topic, args.table, args.catalog_uri,
                                                         control_topic=args.control_topic,
                                                         commit_interval_ms=args.commit_ms, tasks=args.tasks, s3=s3))
        if args.continuous:
            print(f"iceberg_connect_app: connector {args.name} running", file=sys.stderr, flush=True)
            print(f"iceberg_connect_app: the Connect worker exited with {worker.run_until_stopped(POLL_S)}",
                  file=sys.stderr)
            return 1
        last_change = time.monotonic()
        while records < args.expected and time.monotonic() - last_change < args.idle:
            time.sleep(POLL_S)
            now, at_ms = current_snapshot(args.catalog_uri, args.table)
            if now != records:
                records, committed_ms, last_change = now, at_ms, time.monotonic()
    finally:
        worker.close(keep_log_in=args.keep_log)
    print(f"iceberg_connect_app: {records:,} records in the table's current snapshot", file=sys.stderr)
    if committed_ms is None:
        return 1
    print(json.dumps({"seconds": (committed_ms - started_ms) / 1000, "records": records}))
    return 0


def current_snapshot(catalog_uri: str, table: str) -> tuple[int, int | None]:
    """(total records, commit time in ms) of ``table``'s current snapshot, from the REST catalog's
    ``loadTable`` answer; (0, None) before the first commit."""
    namespace, name = table.rsplit(".", 1)
    with urllib.request.urlopen(f"{catalog_uri}/v1/namespaces/{namespace}/tables/{name}", timeout=10) as answer:
        metadata = json.load(answer)["metadata"]
    current = metadata.get("current-snapshot-id")
    snapshot = next((s for s in metadata.get("snapshots", []) if s["snapshot-id"] == current), None)
    if snapshot is None:
        return 0, None
    return int(snapshot["summary"].get("total-records", 0)), int(snapshot["timestamp-ms"])


if __name__ == "__main__":
    sys.exit(main())
