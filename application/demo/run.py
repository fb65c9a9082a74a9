"""``lakesink demo``: the sink end to end on a fresh machine, proven exactly-once, in under a minute.

Kafka and an S3 server are started, order events produced, the sink run once for four connector
configs, and every object read back by an independent reader to check that each record is stored
exactly once; everything is stopped on exit, Ctrl-C included. Every step that touches the outside
world goes through :class:`~lakesink.application.demo.ports.DemoPorts`.
See docs/operations.md, "`make demo`".
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from lakesink.application.demo.audit import AuditReport, audit
from lakesink.application.demo.configs import (
    local_json_config,
    s3_parquet_config,
    s3_table_config,
    write_config,
)
from lakesink.application.demo.data import DAY_MS, order_events
from lakesink.application.demo.output import is_data_key, read_rows
from lakesink.application.demo.ports import (
    Broker,
    Bucket,
    DemoPorts,
    OnceRunner,
    Position,
    TableReader,
    TopicRecord,
)
from lakesink.application.demo.tree import render_tree
from lakesink.domain.errors import ConfigError
from lakesink.domain.progress import human_size

TOPIC = "orders"
BUCKET = "lakesink-demo"
PREFIX = "orders"
ICEBERG_PREFIX = "tables/orders_iceberg"
DELTA_PREFIX = "tables/orders_delta"
MAX_RECORDS = 40_000


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """What ``lakesink demo`` can be asked to vary."""

    records: int = 20_000
    seed: int = 42
    master: str = "local[2]"
    flush_count: int = 5_000

    def __post_init__(self) -> None:
        if not 1 <= self.records <= MAX_RECORDS:
            raise ConfigError(
                f"--records must be between 1 and {MAX_RECORDS} (got {self.records}): the embedded broker "
                "keeps only about 5 MiB per partition and would delete older records before the sink "
                "reads them."
            )


@dataclass(frozen=True, slots=True)
class TargetResult:
    """One sink run and its audit."""

    label: str
    seconds: float
    files: int
    bytes: int
    report: AuditReport
    scanned: int | None = None
    """Rows a scan of the table returned (None: not a table)."""

    @property
    def ok(self) -> bool:
        return self.report.ok and self.scanned in (None, self.report.stored)


def run_demo(options: DemoOptions, ports: DemoPorts, out: Callable[[str], None] = print) -> int:
    """Run the demo; returns the exit code (0 exactly-once, 1 anything missing, duplicated or wrong)."""
    started = time.monotonic()
    with ExitStack() as stack:
        services = stack.enter_context(ports.services())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lakesink-demo-")))
        out(f"{services.kafka.name} on {services.kafka.bootstrap_servers}, "
            f"{services.s3.name} on {services.s3.url}")
        produced = _produce(services.kafka, options, out)
        services.s3.create_bucket(BUCKET)
        bootstrap = services.kafka.bootstrap_servers
        configs = {
            "s3": write_config(work, s3_parquet_config(
                "demo-s3-parquet", topic=TOPIC, bootstrap_servers=bootstrap,
                s3_settings=services.s3.connector_settings(),
                bucket=BUCKET, prefix=PREFIX, flush_count=options.flush_count)),
            "local": write_config(work, local_json_config(
                "demo-local-json", topic=TOPIC, bootstrap_servers=bootstrap, root=work / "local",
                bucket=BUCKET, prefix=PREFIX, flush_count=options.flush_count)),
            "iceberg": write_config(work, s3_table_config(
                "demo-s3-iceberg", topic=TOPIC, bootstrap_servers=bootstrap,
                s3_settings=services.s3.connector_settings(), bucket=BUCKET, prefix=ICEBERG_PREFIX,
                flush_count=options.flush_count, table="ICEBERG", table_name="demo.orders",
                catalog_uri=f"sqlite:///{work / 'iceberg-catalog.db'}")),
            "delta": write_config(work, s3_table_config(
                "demo-s3-delta", topic=TOPIC, bootstrap_servers=bootstrap,
                s3_settings=services.s3.connector_settings(), bucket=BUCKET, prefix=DELTA_PREFIX,
                flush_count=options.flush_count, table="DELTA", table_name="orders_delta")),
        }
        out(f"Connector configs: {', '.join(str(path) for path in configs.values())}")
        expected = services.kafka.contents(TOPIC)
        out(f"Starting Spark ({options.master}) ...")
        spark_started = time.monotonic()
        sink = stack.enter_context(ports.once_sink(options.master))
        out(f"Spark ready in {time.monotonic() - spark_started:.1f} s")
        targets = [
            (f"s3://{BUCKET}/{PREFIX} (Parquet, PARTITIONBY _value.country, _date.uuuu-MM-dd)",
             configs["s3"], services.s3.bucket(BUCKET)),
            (f"{work / 'local' / BUCKET}/{PREFIX} (JSON, PARTITIONBY _header.region)",
             configs["local"], ports.local_bucket(work / "local", BUCKET)),
        ]
        results = [
            _run_target(label, config, bucket, sink, work / f"checkpoint-{index}", expected, out)
            for index, (label, config, bucket) in enumerate(targets)
        ]
        tables = [
            (f"Iceberg table demo.orders at s3://{BUCKET}/{ICEBERG_PREFIX} (read by pyiceberg)", configs["iceberg"],
             ports.iceberg_table(f"sqlite:///{work / 'iceberg-catalog.db'}", "demo.orders", services.s3)),
            (f"Delta table at s3://{BUCKET}/{DELTA_PREFIX} (read by delta-rs and polars)", configs["delta"],
             ports.delta_table(f"s3://{BUCKET}/{DELTA_PREFIX}", services.s3)),
        ]
        results += [
            _run_table(label, config, services.s3.bucket(BUCKET), reader, sink, work / f"checkpoint-t{index}",
                       expected, out)
            for index, (label, config, reader) in enumerate(tables)
        ]
    return _summarise(produced, results, time.monotonic() - started, out)


def _produce(kafka: Broker, options: DemoOptions, out: Callable[[str], None]) -> int:
    start_ms = (int(time.time() * 1000) // DAY_MS - 2) * DAY_MS  # the two days before today (UTC)
    began = time.monotonic()
    count = kafka.produce(TOPIC, order_events(options.records, seed=options.seed, start_ms=start_ms))
    seconds = time.monotonic() - began
    highs = kafka.end_data_set(TOPIC)
    out(f"Produced {count} order events to '{TOPIC}' in {seconds:.1f} s; high watermarks {highs}")
    return count


def _run_target(
    label: str, config: Path, bucket: Bucket, sink: OnceRunner, checkpoint: Path,
    expected: Mapping[Position, TopicRecord], out: Callable[[str], None],
) -> TargetResult:
    seconds = _timed_run(sink, config, checkpoint, out)
    listed = bucket.list()
    data = [item for item in listed if is_data_key(item.key)]
    size = sum(item.size for item in data)
    out(render_tree(f"{bucket.name}/", listed, max_entries=4))
    report = audit(expected, read_rows(bucket, PREFIX))
    out(f"{label}: {report.stored} records in {len(data)} files, {human_size(size)}, sink {seconds:.1f} s")
    return TargetResult(label, seconds, len(data), size, report)


def _timed_run(sink: OnceRunner, config: Path, checkpoint: Path, out: Callable[[str], None]) -> float:
    """Seconds one ``--once`` run of ``config`` took."""
    out(f"\n== lakesink sink --once --config {config.name}")
    began = time.monotonic()
    sink.run(config, checkpoint)
    return time.monotonic() - began


def _run_table(
    label: str, config: Path, bucket: Bucket, table: TableReader, sink: OnceRunner, checkpoint: Path,
    expected: Mapping[Position, TopicRecord], out: Callable[[str], None],
) -> TargetResult:
    """A table target: the audit reads the files the table's metadata references, nothing else."""
    seconds = _timed_run(sink, config, checkpoint, out)
    keys = set(table.data_keys())
    data = [item for item in bucket.list() if item.key in keys]
    report = audit(expected, (row for key in sorted(keys) for row in bucket.rows(key)))
    scanned = table.row_count()
    size = sum(item.size for item in data)
    out(f"{label}: {len(keys)} data files referenced, {report.stored} records in them, a scan returns {scanned} rows")
    return TargetResult(label, seconds, len(keys), size, report, scanned)


def _summarise(produced: int, results: list[TargetResult], seconds: float, out: Callable[[str], None]) -> int:
    out("\n== Summary")
    failed = False
    for result in results:
        rate = result.report.stored / result.seconds if result.seconds else 0.0
        verdict = "exactly once" if result.ok else "FAILED"
        out(f"{verdict:>12}  {result.label}")
        out(f"{'':>12}  {result.report.stored}/{result.report.expected} records, {result.files} files, "
            f"{human_size(result.bytes)}, {result.seconds:.1f} s, {rate:,.0f} records/s")
        if not result.ok:
            failed = True
            out(result.report.describe())
            if result.scanned not in (None, result.report.stored):
                out(f"a scan of the table returned {result.scanned} rows, its files hold {result.report.stored}")
    out(f"Produced {produced} records; demo wall time {seconds:.1f} s")
    if failed:
        out("lakesink demo: FAILED, records are missing, duplicated or different (see above)")
        return 1
    return 0
