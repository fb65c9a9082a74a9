"""``lakesink demo``: the sink end to end on a fresh machine, proven exactly-once, in under a minute.

Steps: start an embedded Kafka (librdkafka mock) and an S3 server (moto) on 127.0.0.1; produce
order events; run the sink once, on one local SparkSession, for two connector configs (Parquet
into S3 partitioned by country and day, JSON lines into a local directory partitioned by a
header); print both object trees; read every object back with an independent reader (boto3 /
files + pyarrow / json) and check that each Kafka record is stored exactly once with the same
key, value, headers and timestamp. Everything is stopped on exit, Ctrl-C included.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakesink.application.demo_audit import AuditReport, KafkaRecord, Position, audit, kafka_contents
from lakesink.application.demo_configs import local_json_config, s3_parquet_config, write_config
from lakesink.application.demo_data import DAY_MS, order_events
from lakesink.application.demo_readback import LocalBucket, S3Bucket, is_data_key, read_rows
from lakesink.application.demo_services import DemoServices
from lakesink.application.demo_tree import human_size, render_tree
from lakesink.domain.errors import ConfigError

TOPIC = "orders"
BUCKET = "lakesink-demo"
PREFIX = "orders"
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


class OnceSink:
    """``lakesink sink --once`` in this process, on one SparkSession for every config.

    The same code path as the command (:func:`~lakesink.application.sink_settings.load_settings` and
    :class:`~lakesink.application.sink.SinkJob`), minus a Spark start per config.
    """

    def __init__(self, master: str) -> None:
        self._master = master
        self._spark: Any = None

    def __enter__(self) -> OnceSink:
        from lakesink.adapters.spark.session import create_session

        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # executors and block managers bind loopback too
        self._spark = create_session(self._master, app_name="lakesink-demo", ui_enabled=False)
        self._spark.sparkContext.setLogLevel("ERROR")  # the demo's own output is the point
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._spark.stop()

    def run(self, config: Path, checkpoint: Path) -> None:
        from lakesink.application.sink import SinkJob
        from lakesink.application.sink_settings import load_settings

        SinkJob(load_settings(config), self._spark, checkpoint_dir=str(checkpoint), once=True).run()


def run_demo(options: DemoOptions, out: Callable[[str], None] = print) -> int:
    """Run the demo; returns the exit code (0 exactly-once, 1 anything missing, duplicated or wrong)."""
    started = time.monotonic()
    with ExitStack() as stack:
        services = stack.enter_context(DemoServices())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lakesink-demo-")))
        out(f"Kafka (librdkafka mock) on {services.kafka.bootstrap_servers}, "
            f"S3 (moto) on {services.s3.endpoint.url}")
        produced = _produce(services, options, out)
        services.s3.create_bucket(BUCKET)
        bootstrap = services.kafka.bootstrap_servers
        configs = {
            "s3": write_config(work, s3_parquet_config(
                "demo-s3-parquet", topic=TOPIC, bootstrap_servers=bootstrap, endpoint=services.s3.endpoint,
                bucket=BUCKET, prefix=PREFIX, flush_count=options.flush_count)),
            "local": write_config(work, local_json_config(
                "demo-local-json", topic=TOPIC, bootstrap_servers=bootstrap, root=work / "local",
                bucket=BUCKET, prefix=PREFIX, flush_count=options.flush_count)),
        }
        out(f"Connector configs: {configs['s3']}, {configs['local']}")
        expected = kafka_contents(bootstrap, TOPIC)
        out(f"Starting Spark ({options.master}) ...")
        spark_started = time.monotonic()
        sink = stack.enter_context(OnceSink(options.master))
        out(f"Spark ready in {time.monotonic() - spark_started:.1f} s")
        targets = [
            (f"s3://{BUCKET}/{PREFIX} (Parquet, PARTITIONBY _value.country, _date.uuuu-MM-dd)",
             configs["s3"], S3Bucket(services.s3.endpoint, BUCKET)),
            (f"{work / 'local' / BUCKET}/{PREFIX} (JSON, PARTITIONBY _header.region)",
             configs["local"], LocalBucket(work / "local", BUCKET)),
        ]
        results = [
            _run_target(label, config, bucket, sink, work / f"checkpoint-{index}", expected, out)
            for index, (label, config, bucket) in enumerate(targets)
        ]
    return _summarise(produced, results, time.monotonic() - started, out)


def _produce(services: DemoServices, options: DemoOptions, out: Callable[[str], None]) -> int:
    start_ms = (int(time.time() * 1000) // DAY_MS - 2) * DAY_MS  # the two days before today (UTC)
    began = time.monotonic()
    count = services.kafka.produce(TOPIC, order_events(options.records, seed=options.seed, start_ms=start_ms))
    seconds = time.monotonic() - began
    highs = services.kafka.end_data_set(TOPIC)
    out(f"Produced {count} order events to '{TOPIC}' in {seconds:.1f} s; high watermarks {highs}")
    return count


def _run_target(
    label: str, config: Path, bucket: S3Bucket | LocalBucket, sink: OnceSink, checkpoint: Path,
    expected: dict[Position, KafkaRecord], out: Callable[[str], None],
) -> TargetResult:
    out(f"\n== lakesink sink --once --config {config.name}")
    began = time.monotonic()
    sink.run(config, checkpoint)
    seconds = time.monotonic() - began
    listed = bucket.list()
    data = [item for item in listed if is_data_key(item.key)]
    size = sum(item.size for item in data)
    out(render_tree(f"{bucket.name}/", listed, max_entries=4))
    report = audit(expected, read_rows(bucket, PREFIX))
    out(f"{label}: {report.stored} records in {len(data)} files, {human_size(size)}, sink {seconds:.1f} s")
    return TargetResult(label, seconds, len(data), size, report)


def _summarise(produced: int, results: list[TargetResult], seconds: float, out: Callable[[str], None]) -> int:
    out("\n== Summary")
    failed = False
    for result in results:
        rate = result.report.stored / result.seconds if result.seconds else 0.0
        verdict = "exactly once" if result.report.ok else "FAILED"
        out(f"{verdict:>12}  {result.label}")
        out(f"{'':>12}  {result.report.stored}/{result.report.expected} records, {result.files} files, "
            f"{human_size(result.bytes)}, {result.seconds:.1f} s, {rate:,.0f} records/s")
        if not result.report.ok:
            failed = True
            out(result.report.describe())
    out(f"Produced {produced} records; demo wall time {seconds:.1f} s")
    if failed:
        out("lakesink demo: FAILED, records are missing, duplicated or different (see above)")
        return 1
    return 0
