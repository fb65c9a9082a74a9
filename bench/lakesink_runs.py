"""lakesink's sink and restore as the user runs them: ``lakesink sink|restore --config F --once``.

Each run is a subprocess (driver + JVM + Python workers, RSS summed over the tree), timed from
start to exit; the sink's "starts at" log line (Spark up, index read) gives the time without
Spark's start-up. Nothing is reported before the output is counted.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.kafka_io import DataSet, consume_count, create_topic
from bench.processes import Children, Measured
from bench.results import OK, Result, failed
from bench.verify import Output, count_output, count_table, table_commits
from lakesink.adapters.demo.s3 import S3Endpoint
from tests.support.iceberg_rest import IcebergRestServer

STARTED_MARK = " starts at "
"""Logged by the sink once Spark is up and the index was read (application/sink.py)."""
RESTORE_STARTED_MARK = "Opened storage backend"
"""Logged by the restore once its Spark session is up (adapters/storage)."""
BATCHES = ("Planned batch ", "lakesink.application.sink_run: Batch ")
"""The sink's first batch is planned / a batch committed (application/sink.py): the batches' window."""
RESTORE_BATCHES = ("objects in ", "records so far")
"""The restore listed its objects / finished a poll (application/restore/listing.py, driver.py): its polls' window."""
FLUSH_COUNT = 50_000
"""Records per file and partition: the same batch size as Quix's ``commit_every`` in the peer runs."""

_BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
_STRING = "org.apache.kafka.connect.storage.StringConverter"
_JSON = "org.apache.kafka.connect.json.JsonConverter"


@dataclass(frozen=True, slots=True)
class SinkScenario:
    """One sink configuration under test and what it is compared with."""

    name: str
    clause: str
    codec: str
    converters: dict[str, str]
    encode_args: tuple[str, ...]
    """Arguments of :mod:`bench.ceilings` that time the same writer on its own."""
    properties: str = ""
    flush: str = f"'flush.count'={FLUSH_COUNT}"
    """The flush PROPERTIES (``flush.interval`` is always 3600 s, so it never fires in a --once run)."""
    settings: tuple[tuple[str, str], ...] = ()
    """Connector settings added to the config (e.g. ``connect.s3.range.split.offsets``)."""
    table: str | None = None
    """``ICEBERG`` or ``DELTA``: the statement commits to that table (counted through it)."""


SINK_SCENARIOS = (
    SinkScenario("sink-json", "STOREAS `JSON`", "UNCOMPRESSED",
                 {"key.converter": _BYTES, "value.converter": _BYTES},
                 ("--format", "JSON")),
    SinkScenario("sink-parquet", "PARTITIONBY _value.country STOREAS `PARQUET`", "SNAPPY",
                 {"key.converter": _STRING, "value.converter": _JSON, "value.converter.schemas.enable": "false"},
                 ("--format", "PARQUET", "--codec", "SNAPPY", "--decoded")),
    SinkScenario("sink-avro", "STOREAS `AVRO`", "SNAPPY",
                 {"key.converter": _STRING, "value.converter": _JSON, "value.converter.schemas.enable": "false"},
                 ("--format", "AVRO", "--codec", "SNAPPY", "--decoded", "--envelope"),
                 properties=", 'store.envelope'=true"),
)

TABLE_NAME = "bench.orders"
TABLE_SCENARIOS = tuple(
    SinkScenario(f"sink-{table.lower()}", SINK_SCENARIOS[1].clause, "SNAPPY", SINK_SCENARIOS[1].converters, (),
                 properties=f", 'table.format'='{table}', 'table.name'='{TABLE_NAME}'", table=table)
    for table in ("ICEBERG", "DELTA")
)
"""sink-parquet's statement committing to an Iceberg table (through the run's Iceberg REST catalog when its jars
are here, else an SQLite catalog) or a Delta table: the cost of the table commits, side by side with plain
PARQUET."""

SMT_SCENARIO = SinkScenario(
    "sink-parquet-smt", "PARTITIONBY _value.country STOREAS `PARQUET`", "SNAPPY",
    {"key.converter": _STRING, "value.converter": _JSON, "value.converter.schemas.enable": "false"},
    (),
    settings=(
        ("transforms", "source,trim,offset"),
        ("transforms.source.type", "org.apache.kafka.connect.transforms.InsertField$Value"),
        ("transforms.source.static.field", "source"),
        ("transforms.source.static.value", "bench"),
        ("transforms.trim.type", "org.apache.kafka.connect.transforms.ReplaceField$Value"),
        ("transforms.trim.exclude", "channel"),
        ("transforms.trim.renames", "status:state"),
        ("transforms.offset.type", "org.apache.kafka.connect.transforms.InsertField$Value"),
        ("transforms.offset.offset.field", "kafka_offset"),
    ),
)
"""sink-parquet with a chain of three common Single Message Transforms (issue 14's cost figure)."""

MEMORY_PARTITIONS = 64
MEMORY_ZONES = 50
MEMORY_FLUSH_SIZE = 10 * 1024 * 1024
MEMORY_SCENARIO = SinkScenario(
    "sink-memory", "PARTITIONBY _value.zone STOREAS `PARQUET`", "SNAPPY",
    {"key.converter": _STRING, "value.converter": _JSON, "value.converter.schemas.enable": "false"},
    (), flush=f"'flush.count'=100000000, 'flush.size'={MEMORY_FLUSH_SIZE}",
)
"""Issue 7's case: 64 topic-partitions x 50 partition values open at flush.size 10 MB.

Runs on a topic of its own (:data:`MEMORY_PARTITIONS` partitions, events with a ``zone`` field
of :data:`MEMORY_ZONES` values); flush.count is far above any range, so only flush.size or the
end of the range cuts a file and every one of a task's 50 writers stays open to the end. Peak
RSS is the number that matters; it has no ceiling (``encode_args`` is empty).
"""


def bucket_of(scenario: str) -> str:
    return f"bench-{scenario}"


def _write(path: Path, name: str, config: dict[str, str]) -> Path:
    path.write_text(json.dumps({"name": name, "config": config}, indent=2) + "\n")
    return path


def sink_config(scenario: SinkScenario, data: DataSet, *, bootstrap: str, endpoint: S3Endpoint,
                name: str, bucket: str, flush_interval_s: int = 3600) -> dict[str, str]:
    """The connector config of ``scenario``; ``flush_interval_s`` 3600 never fires in a --once run
    (the streaming scenario sets 5)."""
    kcql = (f"INSERT INTO {bucket}:out SELECT * FROM {data.topic} {scenario.clause} "
            f"PROPERTIES({scenario.flush}, 'flush.interval'={flush_interval_s}{scenario.properties})")
    return {"name": name, "topics": data.topic, "bootstrap.servers": bootstrap, **scenario.converters,
            "connect.s3.kcql": kcql, "connect.s3.compression.codec": scenario.codec,
            **endpoint.connector_settings(), **dict(scenario.settings)}


def rest_catalog_settings(rest: IcebergRestServer) -> dict[str, str]:
    """A table statement's settings that commit through Iceberg's REST catalog ``rest``."""
    return {"connect.s3.table.catalog.type": "rest", "connect.s3.table.catalog.uri": rest.uri}


def _env() -> dict[str, str]:
    """Executors run this interpreter; Spark binds to loopback only (as every benchmark server does)."""
    return {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": "127.0.0.1"}


def _lakesink(*args: str) -> list[str]:
    return [sys.executable, "-m", "lakesink.application.cli", "--log-level", "INFO", *args]


def run_sink(children: Children, scenario: SinkScenario, data: DataSet, *, bootstrap: str, endpoint: S3Endpoint,
             work: Path, master: str, timeout_s: float, label: str | None = None,
             rest: IcebergRestServer | None = None) -> Result:
    """``lakesink sink --once`` into a fresh bucket, then every record counted in the objects (a table's: those
    its current version references). An Iceberg table commits through ``rest`` (Iceberg's REST catalog, the
    one the Iceberg connector peer uses) when given, else through an SQLite catalog of its own."""
    label = label or scenario.name
    bucket = bucket_of(label)
    endpoint.client().create_bucket(Bucket=bucket)
    catalog = {"connect.s3.table.catalog.uri": f"sqlite:///{work / f'{label}-catalog.db'}"} if scenario.table else {}
    if rest is not None:
        catalog = rest_catalog_settings(rest)
    config = _write(work / f"{label}.json", f"bench-{label}",
                    {**sink_config(scenario, data, bootstrap=bootstrap, endpoint=endpoint, name=f"bench-{label}",
                                   bucket=bucket), **catalog})
    argv = _lakesink("sink", "--config", str(config), "--once", "--master", master,
                     "--checkpoint", str(work / "checkpoints" / label))
    run = children.measure(label, argv, timeout_s=timeout_s, env=_env(), watch=[STARTED_MARK, *BATCHES])
    common = {"ceiling": f"encode-{scenario.name[5:]}" if scenario.encode_args else None}
    if run.returncode != 0:
        return failed(label, data.records, data.value_bytes,
                      f"exit code {run.returncode} after {run.seconds:.0f} s (log: {children.log_dir}/{label}.log)",
                      **common)
    commits = None if rest is None else table_commits(rest.catalog().load_table(TABLE_NAME))
    if commits is not None:
        output = Output(commits.data_files, commits.rows, commits.data_bytes)
    elif scenario.table is None:
        output = count_output(endpoint, bucket)
    else:
        output = count_table(scenario.table, endpoint, bucket, catalog["connect.s3.table.catalog.uri"])
    extra = {"objects": output.objects, "output_bytes": output.bytes, "wall_seconds": run.seconds, "master": master,
             "peak_rss_by_process": run.peak_breakdown, "peak_pss": run.peak_pss, "rss_timeline": run.timeline,
             "cpu_seconds": run.cpu_seconds}
    if output.records != data.records:
        return failed(label, data.records, data.value_bytes,
                      f"incomplete: {output.records:,} of {data.records:,} records in {output.objects} objects",
                      extra=extra, **common)
    if commits is not None:
        extra |= {"snapshots": commits.snapshots, "mean_commit_gap_s": commits.mean_gap_s}
        if commits.distinct != commits.rows:
            return failed(label, data.records, data.value_bytes,
                          f"{commits.rows - commits.distinct:,} duplicated order ids", extra=extra, **common)
    note = (f"{'' if commits is None else f'REST catalog, {commits.describe()}; '}"
            f"{output.objects} objects, {output.bytes / 1e6:.1f} MB; peak RSS {describe_peak(run.peak_breakdown)}, "
            f"peak PSS {run.peak_pss / 1e6:,.0f} MB; {describe_cpu(run.cpu_seconds)}")
    if STARTED_MARK in run.marks:
        after_start = run.seconds - run.marks[STARTED_MARK]
        extra["seconds_after_spark_start"] = after_start
        extra["records_per_s_after_spark_start"] = data.records / after_start
        note += f"; {data.records / after_start:,.0f} rec/s without the {run.marks[STARTED_MARK]:.1f} s start-up"
    note += _in_batches(run, BATCHES, data.records, extra)
    return Result(label, OK, data.records, data.value_bytes, run.seconds, run.peak_rss, note, extra=extra, **common)


def _in_batches(run: Measured, window: tuple[str, str], records: int, extra: dict[str, object]) -> str:
    """From the first batch's start to the last batch's end (log lines): the rate without Spark's
    start and stop; "" when the run did not log both."""
    begin, end = run.marks.get(window[0]), run.last_marks.get(window[1])
    if begin is None or end is None or end <= begin:
        return ""
    extra["batch_seconds"] = end - begin
    extra["records_per_s_in_batches"] = records / (end - begin)
    return f"; batches {end - begin:.1f} s ({records / (end - begin):,.0f} rec/s)"


def describe_peak(parts: dict[str, int]) -> str:
    """``JVM 812 + driver 160 + 3 workers 420 (largest 170) MB``: where the peak's memory was."""
    if not parts:
        return "not measured"
    mb = {name: value / 1e6 for name, value in parts.items()}
    return (f"JVM {mb['jvm']:,.0f} + driver {mb['driver']:,.0f} + {parts['python_worker_count']} workers "
            f"{mb['python_workers']:,.0f} (largest {mb['largest_python_worker']:,.0f}) MB")


def describe_cpu(seconds: dict[str, float]) -> str:
    """``CPU s: JVM 9.1 + driver 1.2 + workers 20.3``: where the tree's CPU time went."""
    if not seconds:
        return "CPU not measured"
    return (f"CPU s: JVM {seconds['jvm']:.1f} + driver {seconds['driver']:.1f} + workers "
            f"{seconds['python_workers']:.1f}")


def restore_config(data: DataSet, *, source_bucket: str, target_topic: str, bootstrap: str,
                   endpoint: S3Endpoint) -> dict[str, str]:
    """Lenses source form: the envelope Avro written by the ``sink-avro`` scenario back into Kafka."""
    kcql = (f"INSERT INTO {target_topic} SELECT * FROM {source_bucket}:out STOREAS `AVRO` "
            f"PROPERTIES('store.envelope'=true)")
    return {"name": "bench-restore", "bootstrap.servers": bootstrap, "connect.s3.kcql": kcql,
            **endpoint.connector_settings()}


def run_restore(children: Children, data: DataSet, *, source_bucket: str, bootstrap: str, endpoint: S3Endpoint,
                work: Path, master: str, timeout_s: float, create_target: bool = True) -> Result:
    """``lakesink restore --once`` of the sink's Avro objects into a fresh topic, then the topic counted.

    ``create_target=False`` for a broker that auto-creates topics and refuses CreateTopics (the mock).
    """
    target = f"{data.topic}-restored"
    if create_target:
        create_topic(bootstrap, target, data.partitions)
    config = _write(work / "restore.json", "bench-restore",
                    restore_config(data, source_bucket=source_bucket, target_topic=target, bootstrap=bootstrap,
                                   endpoint=endpoint))
    argv = _lakesink("restore", "--config", str(config), "--once", "--master", master)
    run = children.measure("restore", argv, timeout_s=timeout_s, env=_env(),
                           watch=[RESTORE_STARTED_MARK, *RESTORE_BATCHES])
    if run.returncode != 0:
        return failed("restore", data.records, data.value_bytes,
                      f"exit code {run.returncode} after {run.seconds:.0f} s (log: {children.log_dir}/restore.log)")
    restored = consume_count(bootstrap, target, data.partitions, expected=data.records, idle_s=3.0)
    if restored != data.records:
        return failed("restore", data.records, data.value_bytes,
                      f"target topic {target} holds {restored:,} of {data.records:,} records")
    note = f"from {source_bucket} (Avro envelope) into {target}; {describe_cpu(run.cpu_seconds)}"
    extra = {"wall_seconds": run.seconds, "cpu_seconds": run.cpu_seconds}
    if RESTORE_STARTED_MARK in run.marks:
        after_start = run.seconds - run.marks[RESTORE_STARTED_MARK]
        extra.update(seconds_after_spark_start=after_start, records_per_s_after_spark_start=data.records / after_start)
        note += f"; {data.records / after_start:,.0f} rec/s without the {run.marks[RESTORE_STARTED_MARK]:.1f} s start-up"
    note += _in_batches(run, RESTORE_BATCHES, data.records, extra)
    return Result("restore", OK, data.records, data.value_bytes, run.seconds, run.peak_rss, note,
                  ceiling="produce", extra=extra)
