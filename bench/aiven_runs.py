"""Aiven's S3 sink as the peer, as closely as Maven Central allows: Aiven's commons on a real Kafka Connect
worker (bench/aiven_peer.py), same topic, same broker, same S3 server as lakesink's ``sink-json``.

``aiven-jsonl`` and ``aiven-jsonl-gzip``: JSON values (JsonConverter, schemas off) to Aiven's jsonl files,
uncompressed or gzip. ``file.max.records`` is lakesink's ``flush.count`` (50,000), so neither cuts a
partition's file more often than the other; Aiven also writes whatever it holds every
``offset.flush.interval.ms`` (10 s here; Connect's default is 60 s), which cuts more files when a partition's
records arrive over several flushes. Two tasks (``tasks.max=2``), as lakesink runs ``local[2]``. The objects
are listed and every record counted (gzip opened, lines counted) before a number is reported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.aiven_peer import LABEL, PLUGIN, missing_reason
from bench.kafka_io import DataSet
from bench.lakesink_runs import FLUSH_COUNT, bucket_of, describe_cpu
from bench.processes import Children
from bench.results import OK, Result, failed
from bench.verify import count_output
from lakesink.adapters.demo.s3 import S3Endpoint
from tests.support.connect_standalone import install_plugin

SCENARIOS = ("aiven-jsonl", "aiven-jsonl-gzip")
FLUSH_MS = 10_000
"""The worker's offset.flush.interval.ms: Aiven writes its files on this beat."""
TASKS = 2
IDLE_S = 3 * FLUSH_MS / 1000
"""No new object for three flush beats: the peer is stuck, stop and count what it wrote."""


def install(plugin_path: Path) -> str | None:
    """Build the peer's plugin into ``plugin_path`` (not in the measured run: a user installs the connector's
    jar, nothing is compiled); why it cannot run here, or None."""
    reason = missing_reason()
    if reason is not None:
        return reason
    try:
        install_plugin(PLUGIN, plugin_path)
    except (OSError, subprocess.SubprocessError) as error:
        return f"cannot build {PLUGIN.source.name}: {error}"
    return None


def aiven_command(name: str, *, bootstrap: str, topic: str, bucket: str, endpoint: S3Endpoint, flush_ms: int,
                  plugin_path: Path, keep_log: Path, gzip: bool = False) -> tuple[list[str], dict[str, str]]:
    """``python -m bench.aiven_app`` for connector ``name`` (its group is ``connect-<name>``) and its
    environment (the S3 keys travel there, not on the command line); the caller adds ``--expected`` and
    ``--idle``, or ``--continuous``."""
    argv = [sys.executable, "-m", "bench.aiven_app", "--name", name, "--bootstrap", bootstrap, "--topic", topic,
            "--endpoint", endpoint.url, "--bucket", bucket, "--region", endpoint.region,
            "--max-records", str(FLUSH_COUNT), "--flush-ms", str(flush_ms), "--tasks", str(TASKS),
            "--plugin-path", str(plugin_path), "--keep-log", str(keep_log), *(["--gzip"] if gzip else [])]
    env = {**os.environ, "AWS_ACCESS_KEY_ID": endpoint.access_key, "AWS_SECRET_ACCESS_KEY": endpoint.secret_key}
    return argv, env


def run_aiven(children: Children, scenario: str, data: DataSet, *, bootstrap: str, endpoint: S3Endpoint,
              timeout_s: float) -> Result:
    """One run of the Aiven peer (``aiven-jsonl`` or ``aiven-jsonl-gzip``) into a fresh bucket, then counted."""
    plugin_path = children.log_dir / f"{scenario}-plugins"
    problem = install(plugin_path)
    if problem is not None:
        return failed(scenario, data.records, data.value_bytes, problem)
    bucket = bucket_of(scenario)
    endpoint.client().create_bucket(Bucket=bucket)
    # the connector's name is its consumer group's: each scenario reads the topic from its start
    argv, env = aiven_command(f"bench-{scenario}", bootstrap=bootstrap, topic=data.topic, bucket=bucket,
                              endpoint=endpoint, flush_ms=FLUSH_MS, plugin_path=plugin_path,
                              keep_log=children.log_dir / f"{scenario}-connect.log", gzip=scenario.endswith("-gzip"))
    argv += ["--expected", str(data.records), "--idle", str(IDLE_S)]
    run = children.measure(scenario, argv, timeout_s=timeout_s, env=env)
    if run.returncode != 0:
        return failed(scenario, data.records, data.value_bytes,
                      f"exit code {run.returncode} after {run.seconds:.0f} s (logs: {children.log_dir}/{scenario}.log, "
                      f"{scenario}-connect.log)")
    timing = json.loads(run.stdout.strip().splitlines()[-1])
    output = count_output(endpoint, bucket)
    extra = {"objects": output.objects, "output_bytes": output.bytes, "wall_seconds": run.seconds,
             "work_seconds": timing["work_seconds"], "records_per_s_inside": data.records / timing["work_seconds"],
             "cpu_seconds": run.cpu_seconds, "peak_rss_by_process": run.peak_breakdown, "peer": LABEL}
    if output.records != data.records:
        return failed(scenario, data.records, data.value_bytes,
                      f"{'incomplete' if output.records < data.records else 'too many'}: {output.records:,} of "
                      f"{data.records:,} records in {output.objects} objects", extra=extra)
    return Result(scenario, OK, data.records, data.value_bytes, timing["seconds"], run.peak_rss,
                  f"{LABEL}; {output.objects} objects, {output.bytes / 1e6:.1f} MB; file.max.records={FLUSH_COUNT:,}, "
                  f"offset.flush.interval.ms={FLUSH_MS:,}, tasks.max={TASKS}; worker start -> last object; work "
                  f"{timing['work_seconds']:.1f} s ({data.records / timing['work_seconds']:,.0f} rec/s, first record "
                  f"-> last object); {describe_cpu(run.cpu_seconds)}", extra=extra)
