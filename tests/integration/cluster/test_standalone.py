"""The sink on a Spark master with separate executor processes, still exactly-once.

``local-cluster[2,1,1024]`` runs a real standalone master and worker inside the driver JVM and
launches two executor JVMs as separate processes, each with its own Python workers; it works
from the pip wheel (no ``sbin`` scripts needed). So the records are read, written and uploaded
by processes that share nothing with the driver but the pickled task: the adapters must rebuild
their clients, and the driver must commit from the executors' result rows alone.

``make test`` has the same guarantees from test_spark_submit.py (two executor processes on a real
standalone cluster, the sink and the restore exact); this run, where ``lakesink sink --master`` itself
launches the JVM for a cluster master, is left to ``make test-reliability`` (13 s unloaded, 41-70 s loaded).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lakesink.adapters.demo.kafka import DemoKafka, kafka_contents
from lakesink.adapters.demo.s3 import MotoS3
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.application.demo.audit import audit
from lakesink.application.demo.configs import s3_parquet_config, write_config
from lakesink.application.demo.data import order_events
from lakesink.application.demo.output import read_rows
from tests.conftest import unique_name
from tests.support.reliability import FULL
from tests.support.sink_process import SinkProcess, group_members

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.timeout(300),
              pytest.mark.reliability,
              pytest.mark.skipif(not FULL, reason="make test-reliability runs it (test_spark_submit.py covers it in make test)")]

RECORDS = 4_000
EXECUTOR_MAIN = "org.apache.spark.executor.CoarseGrainedExecutorBackend"


def test_sink_on_a_local_cluster_with_two_executor_processes_stores_every_record_once(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    topic, bucket, name = unique_name("cluster"), unique_name("cluster"), unique_name("cluster-sink")
    DemoKafka(kafka).produce(topic, order_events(RECORDS, seed=11, start_ms=1_767_225_600_000))
    moto.create_bucket(bucket)
    config = write_config(tmp_path, s3_parquet_config(
        name, topic=topic, bootstrap_servers=kafka.bootstrap_servers, s3_settings=moto.connector_settings(),
        bucket=bucket, prefix="orders", flush_count=500))

    started = time.monotonic()
    sink = SinkProcess(config, tmp_path / "sink.log", checkpoint=tmp_path / "checkpoint", once=True,
                       master="local-cluster[2,1,1024]")
    executors: set[int] = set()
    while sink.running() and time.monotonic() - started < 240:
        executors |= {pid for pid, command in group_members(sink.process.pid) if EXECUTOR_MAIN in command}
        time.sleep(0.2)
    assert sink.wait(timeout_s=5) == 0, sink.tail()
    print(f"local-cluster run: {time.monotonic() - started:.1f} s, executor processes {sorted(executors)}")

    # Two executors ran the job; under CPU pressure the standalone worker may relaunch one that was
    # slow to register, so a third process id can appear (the run must still be exact, below).
    assert len(executors) >= 2
    stored = read_rows(moto.bucket(bucket), "orders")
    report = audit(kafka_contents(kafka.bootstrap_servers, topic), stored)
    assert report.expected == RECORDS
    assert report.ok, report.describe()
