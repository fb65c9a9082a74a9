"""Quix Streams' S3FileSink as the peer: same topic, same broker, same S3 endpoint.

Quix runs from its own virtualenv (``bench/.quix-venv``, created on first use with
``pip install "quixstreams[s3,parquet]"``) because it pins a confluent-kafka of its own. Its
output is counted with the same readers as lakesink's before a number is reported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.kafka_io import DataSet
from bench.processes import Children
from bench.results import OK, Result, failed
from bench.verify import count_output
from lakesink.adapters.demo.s3 import S3Endpoint

SCENARIOS = ("quix-json", "quix-parquet")
QUIX_VENV = Path(__file__).resolve().parent / ".quix-venv"
QUIX_REQUIREMENT = "quixstreams[s3,parquet]"
IDLE_S = 5.0
COMMIT_EVERY = 50_000
INSTALL_TIMEOUT_S = 900


def quix_python() -> Path:
    """The Quix venv's interpreter, creating the venv first when it is missing or broken."""
    python = QUIX_VENV / "bin" / "python"
    check = [str(python), "-c", "import quixstreams.sinks.community.file.s3"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    print(f"bench: creating {QUIX_VENV} with {QUIX_REQUIREMENT} (first use)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(QUIX_VENV)], check=True,
                   timeout=INSTALL_TIMEOUT_S)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", QUIX_REQUIREMENT], check=True,
                   timeout=INSTALL_TIMEOUT_S)
    return python


def run_quix(children: Children, scenario: str, data: DataSet, *, bootstrap: str, endpoint: S3Endpoint,
             timeout_s: float) -> Result:
    """One S3FileSink run (``quix-json`` or ``quix-parquet``) into a fresh bucket, then counted."""
    fmt = scenario.removeprefix("quix-")
    try:
        python = quix_python()
    except (OSError, subprocess.SubprocessError) as error:
        return failed(scenario, data.records, data.value_bytes, f"cannot set up {QUIX_VENV}: {error}")
    bucket = f"bench-{scenario}"
    endpoint.client().create_bucket(Bucket=bucket)
    argv = [str(python), str(Path(__file__).with_name("quix_app.py")), "--bootstrap", bootstrap,
            "--topic", data.topic, "--endpoint", endpoint.url, "--bucket", bucket, "--format", fmt,
            "--access-key", endpoint.access_key, "--secret-key", endpoint.secret_key, "--region", endpoint.region,
            "--group", f"bench-{scenario}", "--commit-every", str(COMMIT_EVERY), "--idle", str(IDLE_S)]
    run = children.measure(scenario, argv, timeout_s=timeout_s)
    if run.returncode != 0:
        return failed(scenario, data.records, data.value_bytes,
                      f"exit code {run.returncode} (log: {children.log_dir}/{scenario}.log)")
    timing = json.loads(run.stdout.strip().splitlines()[-1])
    output = count_output(endpoint, bucket, "data/")
    extra = {"objects": output.objects, "output_bytes": output.bytes, "wall_seconds": timing["wall_seconds"],
             "cpu_seconds": run.cpu_seconds}
    if output.records != data.records:
        return failed(scenario, data.records, data.value_bytes,
                      f"incomplete: {output.records:,} of {data.records:,} records in {output.objects} objects",
                      extra=extra)
    return Result(scenario, OK, data.records, data.value_bytes, timing["seconds"], run.peak_rss,
                  f"{output.objects} objects, {output.bytes / 1e6:.1f} MB; commit_every={COMMIT_EVERY:,}, "
                  f"{IDLE_S:.0f} s idle stop subtracted; wall {timing['wall_seconds']:.1f} s incl. start-up; "
                  f"{sum(run.cpu_seconds.values()):.1f} CPU s",
                  extra=extra)
