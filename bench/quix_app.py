"""Quix Streams' S3FileSink on the benchmark's topic; runs in bench/.quix-venv, not in lakesink's venv.

Quix pins its own confluent-kafka, so this file imports only quixstreams, botocore and the
standard library. It follows the recipe of field-research.md §2: ``commit_every`` sets the
object size, and ``app.run(timeout=IDLE)`` stops IDLE seconds after the last message; that
idle wait is subtracted. Prints ``{"seconds": s, "wall_seconds": w}`` on stdout.
``--continuous`` (the streaming scenario, bench/streaming.py): run until SIGTERM, committing
every ``--commit-interval`` seconds (or ``--commit-every`` records), as a deployed app does.
"""

from __future__ import annotations

import argparse
import json
import logging
import time

from botocore.config import Config
from quixstreams import Application
from quixstreams.sinks.community.file.s3 import S3FileSink


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--bootstrap", "--topic", "--endpoint", "--bucket", "--format", "--access-key", "--secret-key",
                 "--region", "--group"):
        parser.add_argument(name, required=True)
    parser.add_argument("--commit-every", type=int, default=50_000)
    parser.add_argument("--idle", type=float, default=5.0)
    parser.add_argument("--commit-interval", type=float, default=5.0)
    parser.add_argument("--continuous", action="store_true", help="run until stopped (no idle timeout)")
    parser.add_argument("--state-dir", default="state", help="Quix's state directory (it creates one even unused)")
    args = parser.parse_args()
    started = time.perf_counter()
    app = Application(broker_address=args.bootstrap, consumer_group=args.group, auto_offset_reset="earliest",
                      commit_every=args.commit_every, commit_interval=args.commit_interval, state_dir=args.state_dir,
                      loglevel=logging.WARNING)
    sink = S3FileSink(bucket=args.bucket, endpoint_url=args.endpoint, directory="data", format=args.format,
                      aws_access_key_id=args.access_key, aws_secret_access_key=args.secret_key,
                      region_name=args.region, config=Config(s3={"addressing_style": "path"}))
    app.dataframe(app.topic(args.topic, value_deserializer="json")).sink(sink)
    if args.continuous:
        app.run()
        return
    run_started = time.perf_counter()
    app.run(timeout=args.idle, collect=False)
    finished = time.perf_counter()
    print(json.dumps({"seconds": finished - run_started - args.idle, "wall_seconds": finished - started}))


if __name__ == "__main__":
    main()
