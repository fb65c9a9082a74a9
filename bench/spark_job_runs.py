"""The plain Spark Kafka job (bench/spark_job_app.py) as a peer: same topic, same broker, same S3 server.

``spark-parquet`` partitions by ``country`` as sink-parquet's ``PARTITIONBY _value.country`` does;
``spark-json`` writes JSON lines as sink-json does. The job gets only what a plain user has: PySpark,
the spark-sql-kafka and hadoop-aws jars with ``--jars``, S3 credentials in the environment. It does
NOT get lakesink's JVM class archive (``.venv/var``), so its JVM start is a plain user's.

Before a number is reported the output is counted twice with readers that share nothing with Spark:
the files the job committed (the adds in its ``_spark_metadata`` log) and every file under the
prefix. Both must hold every record and name the same files; an uncommitted leftover or a missing
commit is FAILED, not a number.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

from bench.kafka_io import DataSet
from bench.processes import Children
from bench.results import OK, Result, failed
from bench.verify import count_records
from lakesink.adapters.demo.s3 import S3Endpoint

SCENARIOS = ("spark-json", "spark-parquet")
PARTITION_BY = {"spark-parquet": "country", "spark-json": ""}
PREFIX = "data"
METADATA = "_spark_metadata/"
MAVEN = Path(__file__).resolve().parent.parent / ".tools" / "maven"
JAR_DIRS = ("spark-kafka", "hadoop-aws")


def job_jars(maven: Path = MAVEN) -> str:
    """The comma list for ``--jars``; FileNotFoundError names the ``make install`` step that fetches them."""
    jars: list[str] = []
    for name in JAR_DIRS:
        found = sorted(str(jar) for jar in (maven / name).glob("*.jar"))
        if not found:
            raise FileNotFoundError(f"no jars in {maven / name}: run `make install` (tools/{name})")
        jars += found
    return ",".join(jars)


def committed_keys(log_files: dict[str, bytes], bucket: str) -> set[str]:
    """The object keys Spark's file sink log says are committed: adds minus deletes over every log file.

    Compaction (every 10th batch, ``N.compact``) repeats earlier adds and may delete the older files,
    so taking the union is right whichever of them are still there. Each file is a ``v1`` line then
    one JSON entry per line with an ``s3a://bucket/key`` path (percent-encoded).
    """
    added: set[str] = set()
    deleted: set[str] = set()
    for name, body in log_files.items():
        lines = body.decode().splitlines()
        if not lines or lines[0] != "v1":
            raise ValueError(f"{name}: not a Spark file sink log (first line {lines[:1]!r}, expected 'v1')")
        for line in filter(None, lines[1:]):
            entry = json.loads(line)
            url = urlparse(entry["path"])
            if url.netloc != bucket:
                raise ValueError(f"{name}: commits {entry['path']} outside bucket {bucket}")
            (added if entry["action"] == "add" else deleted).add(unquote(url.path).lstrip("/"))
    return added - deleted


def _count(endpoint: S3Endpoint, bucket: str) -> tuple[dict[str, int], set[str], int]:
    """Records per data file under the prefix, the committed files, and the bytes of the data files."""
    client = endpoint.client()
    logs: dict[str, bytes] = {}
    records: dict[str, int] = {}
    size = 0
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=f"{PREFIX}/"):
        for item in page.get("Contents", []):
            key = item["Key"]
            if key.endswith("/"):  # an S3A directory marker, no data
                continue
            body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
            if f"/{METADATA}" in f"/{key}":
                logs[key] = body
            else:
                records[key] = count_records(body, key)
                size += item["Size"]
    return records, committed_keys(logs, bucket), size


def check_output(records: dict[str, int], committed: set[str], expected: int) -> str | None:
    """Why the output is wrong (None when right): committed and listed files must be the same set,
    and hold exactly ``expected`` records."""
    listed = set(records)
    if committed != listed:
        return (f"{len(listed - committed)} listed file(s) not committed, {len(committed - listed)} committed "
                f"file(s) missing (e.g. {sorted(listed ^ committed)[0]})")
    total = sum(records.values())
    if total != expected:
        return f"incomplete: {total:,} of {expected:,} records in {len(listed)} files"
    return None


def job_command(fmt: str, *, bootstrap: str, topic: str, bucket: str, checkpoint: Path, endpoint: S3Endpoint,
                master: str, trigger: str) -> tuple[list[str], dict[str, str]]:
    """The job's argv and environment (S3 credentials there, as S3A's default chain reads them, and
    never on the command line); FileNotFoundError when the jars are missing."""
    argv = [sys.executable, str(Path(__file__).with_name("spark_job_app.py")), "--bootstrap", bootstrap,
            "--topic", topic, "--path", f"s3a://{bucket}/{PREFIX}", "--checkpoint", str(checkpoint),
            "--endpoint", endpoint.url, "--jars", job_jars(), "--format", fmt,
            "--partition-by", PARTITION_BY[f"spark-{fmt}"], "--trigger", trigger, "--master", master]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
           "SPARK_LOCAL_IP": "127.0.0.1", "AWS_ACCESS_KEY_ID": endpoint.access_key,
           "AWS_SECRET_ACCESS_KEY": endpoint.secret_key, "AWS_REGION": endpoint.region}
    return argv, env


def checkpoint_committed(checkpoint: Path, topic: str, partitions: int) -> dict[int, int]:
    """The job's committed positions: the end offsets of the last micro-batch in ``commits/``, read
    from ``offsets/<batch>`` (``v1``, the batch's metadata, then ``{topic: {partition: offset}}``).

    The job commits no consumer group, so this is what its lag is measured against; 0 for a
    partition before the first committed batch.
    """
    done = [int(p.name) for p in (checkpoint / "commits").glob("[0-9]*") if p.name.isdigit()]
    positions = dict.fromkeys(range(partitions), 0)
    if done:
        lines = (checkpoint / "offsets" / str(max(done))).read_text().splitlines()
        ends = json.loads(lines[2])[topic]
        positions.update({int(partition): int(offset) for partition, offset in ends.items()})
    return positions


def run_spark_job(children: Children, scenario: str, data: DataSet, *, bootstrap: str, endpoint: S3Endpoint,
                  work: Path, master: str, timeout_s: float) -> Result:
    """One ``--trigger available-now`` run of the plain job into a fresh bucket, then counted."""
    bucket = f"bench-{scenario}"
    try:
        argv, env = job_command(scenario.removeprefix("spark-"), bootstrap=bootstrap, topic=data.topic,
                                bucket=bucket, checkpoint=work / "checkpoints" / scenario, endpoint=endpoint,
                                master=master, trigger="available-now")
    except FileNotFoundError as error:
        return failed(scenario, data.records, data.value_bytes, str(error))
    endpoint.client().create_bucket(Bucket=bucket)
    run = children.measure(scenario, argv, timeout_s=timeout_s, env=env)
    if run.returncode != 0:
        return failed(scenario, data.records, data.value_bytes,
                      f"exit code {run.returncode} after {run.seconds:.0f} s (log: {children.log_dir}/{scenario}.log)")
    timing = json.loads(run.stdout.strip().splitlines()[-1])
    records, committed, size = _count(endpoint, bucket)
    extra = {"objects": len(records), "committed_objects": len(committed), "output_bytes": size,
             "wall_seconds": run.seconds, "work_seconds": timing["work_seconds"], "batches": timing["batches"],
             "master": master, "peak_rss_by_process": run.peak_breakdown, "cpu_seconds": run.cpu_seconds}
    wrong = check_output(records, committed, data.records)
    if wrong is not None:
        return failed(scenario, data.records, data.value_bytes, wrong, extra=extra)
    inside = data.records / timing["work_seconds"] if timing["work_seconds"] else None
    extra["records_per_s_inside"] = inside
    return Result(scenario, OK, data.records, data.value_bytes, run.seconds, run.peak_rss,
                  f"{len(records)} objects (all committed in _spark_metadata), {size / 1e6:.1f} MB; "
                  f"{timing['batches']} micro-batch(es), {inside or 0:,.0f} rec/s inside the work "
                  f"({timing['work_seconds']:.1f} s); no lakesink JVM class archive; "
                  f"{sum(run.cpu_seconds.values()):.1f} CPU s",
                  extra=extra)
