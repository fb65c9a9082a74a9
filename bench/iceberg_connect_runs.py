"""Apache Iceberg's Kafka Connect sink as the peer of ``sink-iceberg`` (bench/iceberg_connect.py): same topic,
same broker, same S3 server and the same Iceberg REST catalog (tests/support/iceberg_rest.py, started by the
harness for both), each into a table of its own in its own bucket.

``iceberg-connect``: JSON values (JsonConverter, schemas off) into a table created beforehand with the order
events' fields, Parquet data files (the connector's default format), two tasks (``tasks.max=2``, as lakesink
runs ``local[2]``), a commit every :data:`COMMIT_MS` (``iceberg.control.commit.interval-ms``; Iceberg's
default is 5 minutes). lakesink's ``--once`` run commits one snapshot per batch of ``flush.count`` records
per partition; the connector commits whatever its tasks wrote since the last commit, so 10 s is a beat at
which neither waits on a timer much longer than it takes to write a batch. The table is read back through
the catalog (rows and distinct order ids) before a number is reported.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from bench.iceberg_connect import LABEL, PLUGIN, create_orders_table, missing_reason
from bench.kafka_io import DataSet, create_topic
from bench.lakesink_runs import bucket_of
from bench.processes import Children
from bench.results import OK, Result, failed
from bench.verify import table_commits
from lakesink.adapters.demo.s3 import S3Endpoint
from tests.support.connect_standalone import install_plugin
from tests.support.iceberg_rest import IcebergRestServer

SCENARIO = "iceberg-connect"
SCENARIOS = (SCENARIO,)
COMMIT_MS = 10_000
TASKS = 2
IDLE_S = 6 * COMMIT_MS / 1000
"""No new snapshot for six commit beats: the connector is stuck, stop and read what it committed."""
TABLE = "bench.orders_iceberg_connect"


def connect_command(name: str, *, bootstrap: str, topic: str, table: str, catalog_uri: str, control_topic: str,
                    endpoint: S3Endpoint, commit_ms: int, plugin_path: Path,
                    keep_log: Path) -> tuple[list[str], dict[str, str]]:
    """``python -m bench.iceberg_connect_app`` for connector ``name`` (its group is ``connect-<name>``) and its
    environment (the S3 keys travel there, not on the command line); the caller adds ``--expected`` and
    ``--idle``, or ``--continuous``."""
    argv = [sys.executable, "-m", "bench.iceberg_connect_app", "--name", name, "--bootstrap", bootstrap,
            "--topic", topic, "--table", table, "--catalog-uri", catalog_uri, "--control-topic", control_topic,
            "--endpoint", endpoint.url, "--region", endpoint.region, "--commit-ms", str(commit_ms),
            "--tasks", str(TASKS), "--plugin-path", str(plugin_path), "--keep-log", str(keep_log)]
    env = {**os.environ, "AWS_ACCESS_KEY_ID": endpoint.access_key, "AWS_SECRET_ACCESS_KEY": endpoint.secret_key}
    return argv, env


def run_iceberg_connect(children: Children, data: DataSet, *, bootstrap: str, endpoint: S3Endpoint,
                        catalog: IcebergRestServer | None, why_no_catalog: str | None, timeout_s: float) -> Result:
    """One run of the connector into a fresh table of ``catalog`` on S3, then the table read back."""
    reason = missing_reason() or why_no_catalog
    if reason is not None or catalog is None:
        return failed(SCENARIO, data.records, data.value_bytes, reason or "no REST catalog")
    plugin_path = children.log_dir / f"{SCENARIO}-plugins"
    install_plugin(PLUGIN, plugin_path)
    bucket = bucket_of(SCENARIO)
    endpoint.client().create_bucket(Bucket=bucket)
    create_orders_table(catalog.catalog(), TABLE, location=f"s3://{bucket}/out")
    control = f"{data.topic}-{SCENARIO}-control"
    create_topic(bootstrap, control, 1)
    argv, env = connect_command(f"bench-{SCENARIO}", bootstrap=bootstrap, topic=data.topic, table=TABLE,
                                catalog_uri=catalog.uri, control_topic=control, endpoint=endpoint, commit_ms=COMMIT_MS,
                                plugin_path=plugin_path, keep_log=children.log_dir / f"{SCENARIO}-connect.log")
    argv += ["--expected", str(data.records), "--idle", str(IDLE_S)]
    run = children.measure(SCENARIO, argv, timeout_s=timeout_s, env=env)
    if run.returncode != 0:
        return failed(SCENARIO, data.records, data.value_bytes,
                      f"exit code {run.returncode} after {run.seconds:.0f} s (logs: {children.log_dir}/{SCENARIO}.log, "
                      f"{SCENARIO}-connect.log)")
    timing = json.loads(run.stdout.strip().splitlines()[-1])
    commits = table_commits(catalog.catalog().load_table(TABLE))
    extra = {"objects": commits.data_files, "output_bytes": commits.data_bytes, "wall_seconds": run.seconds,
             "cpu_seconds": run.cpu_seconds, "peak_rss_by_process": run.peak_breakdown, "peer": LABEL,
             "snapshots": commits.snapshots, "mean_commit_gap_s": commits.mean_gap_s}
    if (commits.rows, commits.distinct) != (data.records, data.records):
        return failed(SCENARIO, data.records, data.value_bytes,
                      f"{commits.rows:,} rows ({commits.distinct:,} distinct order ids) of {data.records:,} records",
                      extra=extra)
    cpu = sum(run.cpu_seconds.values())
    return Result(SCENARIO, OK, data.records, data.value_bytes, timing["seconds"], run.peak_rss,
                  f"{LABEL}; {commits.describe()}, {commits.data_bytes / 1e6:.1f} MB; "
                  f"iceberg.control.commit.interval-ms={COMMIT_MS:,}, tasks.max={TASKS}, Parquet; worker start -> "
                  f"the snapshot completing the table; CPU s: worker + harness {cpu:.1f}", extra=extra)
