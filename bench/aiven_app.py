"""``python -m bench.aiven_app``: the Aiven peer end to end, as the harness's measured child.

Starts a Kafka Connect standalone worker (its JVM is this process's child, so the harness's process-tree
sampler counts its CPU and memory) with bench/connect_plugins/AivenCommonsS3Sink.java, adds the connector and waits
until the plugin has logged uploads of ``--expected`` records (or nothing new for ``--idle`` seconds). The
harness counts the objects itself afterwards. Prints ``{"seconds", "work_seconds", "objects_logged"}``:
worker start -> last object, and first record handed to a task -> last object. With ``--continuous`` it
runs until SIGTERM instead (the streaming ladder reads the connector's committed offsets from its group,
``connect-<name>``). The S3 credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, never from
the command line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

from bench.aiven_peer import connector_config, progress
from lakesink.adapters.demo.s3 import S3Endpoint
from tests.support.connect_standalone import ConnectWorker

POLL_S = 0.25


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--name", "--bootstrap", "--topic", "--endpoint", "--bucket", "--region"):
        parser.add_argument(name, required=True)
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--max-records", type=int, required=True)
    parser.add_argument("--flush-ms", type=int, required=True, help="the worker's offset.flush.interval.ms")
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--heap", default="3g",
                        help="the worker's -Xmx (Kafka's connect-standalone.sh: 2g, which the records Aiven's task "
                             "holds between flushes outgrow at 1M records: OutOfMemoryError in flush)")
    parser.add_argument("--expected", type=int, help="records to wait for (not with --continuous)")
    parser.add_argument("--idle", type=float, help="seconds without a new upload before giving up")
    parser.add_argument("--continuous", action="store_true", help="run until SIGTERM; exit 1 if the worker dies")
    parser.add_argument("--output-fields", help="format.output.fields (Aiven's default: value)")
    parser.add_argument("--session-timeout-ms", type=int,
                        help="the task consumers' session.timeout.ms (Kafka's default: 45000)")
    parser.add_argument("--one-group", action="store_true",
                        help="keep the worker JVM in this process's group (a crash test kills the group)")
    parser.add_argument("--plugin-path", type=Path, required=True,
                        help="the worker's plugin.path, the peer installed in it (bench/aiven_runs.py)")
    parser.add_argument("--keep-log", type=Path, required=True, help="where the worker's log is copied at the end")
    args = parser.parse_args()
    if not args.continuous and (args.expected is None or args.idle is None):
        parser.error("--expected and --idle are required without --continuous")
    endpoint = S3Endpoint(args.endpoint, os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"],
                          args.region)
    started_ms = time.time() * 1000
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # at any moment: the worker is stopped cleanly below
    worker = ConnectWorker(args.bootstrap, offset_flush_interval_ms=args.flush_ms, heap=args.heap,
                           quick_start=False, plugin_path=args.plugin_path, own_session=not args.one_group)
    seen = progress("")
    try:
        worker.start()
        worker.add_connector(args.name, connector_config(args.topic, args.bucket, endpoint, gzip=args.gzip,
                                                         max_records=args.max_records, tasks=args.tasks,
                                                         output_fields=args.output_fields,
                                                         session_timeout_ms=args.session_timeout_ms))
        if args.continuous:
            print(f"aiven_app: connector {args.name} running", file=sys.stderr, flush=True)
            print(f"aiven_app: the Connect worker exited with {worker.run_until_stopped(POLL_S)}", file=sys.stderr)
            return 1
        last_change = time.monotonic()
        while seen.uploaded_records < args.expected and time.monotonic() - last_change < args.idle:
            time.sleep(POLL_S)
            now = progress(worker.log_path.read_text(errors="replace"))
            if now != seen:
                seen, last_change = now, time.monotonic()
    finally:
        worker.close(keep_log_in=args.keep_log)
    print(f"aiven_app: {seen.uploaded_records:,} records in {seen.objects} objects logged", file=sys.stderr)
    if seen.last_upload_ms is None or seen.first_records_ms is None:
        return 1
    print(json.dumps({"seconds": (seen.last_upload_ms - started_ms) / 1000,
                      "work_seconds": (seen.last_upload_ms - seen.first_records_ms) / 1000,
                      "objects_logged": seen.objects}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
