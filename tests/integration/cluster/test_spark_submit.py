"""``spark-submit … spark_submit.py sink|restore`` on a real standalone cluster: spark-submit's settings win.

PySpark's own ``spark-submit`` submits the sink and then the restore (both ``--once``) to a master with
two workers, all on 127.0.0.1. The sessions must run on the submitted master with the submitted
``spark.default.parallelism`` (lakesink's defaults used to override both), their tasks must run on
both workers' executors (the Spark event log says which executor ran each task and which worker
launched it), and the results must be
exact: every record once in the bucket, the restored topic equal to the original partition by partition.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from pathlib import Path

import pytest

import lakesink.application.spark_submit
from lakesink.adapters.demo.kafka import DemoKafka, kafka_contents
from lakesink.adapters.demo.s3 import MotoS3
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.application.demo.audit import audit
from lakesink.application.demo.configs import s3_parquet_config, write_config
from lakesink.application.demo.data import order_events
from lakesink.application.demo.output import read_rows
from tests.conftest import unique_name
from tests.integration.restore.conftest import Message, read_topic
from tests.support.standalone_cluster import (
    StandaloneCluster,
    event_log_settings,
    python_settings,
    spark_properties,
    spark_submit,
    task_workers,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.timeout(300)]

RECORDS = 2_000
PARALLELISM = 3
"""Neither Spark's default here (2 cores) nor lakesink's local default (4)."""
APPLICATION = Path(lakesink.application.spark_submit.__file__)


def test_sink_and_restore_submitted_to_a_two_worker_cluster_run_there_with_its_settings_exactly_once(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    topic, target, bucket = unique_name("submit"), unique_name("submit-restored"), unique_name("submit")
    name = unique_name("submit-sink")
    DemoKafka(kafka).produce(topic, order_events(RECORDS, seed=5, start_ms=1_767_225_600_000))
    moto.create_bucket(bucket)
    sink_settings = s3_parquet_config(
        name, topic=topic, bootstrap_servers=kafka.bootstrap_servers, s3_settings=moto.connector_settings(),
        bucket=bucket, prefix="orders", flush_count=300)
    # One directory per Kafka partition (no PARTITIONBY), so the restore must give back each partition's order.
    sink_settings["connect.s3.kcql"] = re.sub(r"PARTITIONBY .*? STOREAS", "STOREAS", sink_settings["connect.s3.kcql"])
    sink_config = write_config(tmp_path, sink_settings)
    restore_config = write_config(tmp_path, {
        "name": unique_name("submit-restore"),
        "bootstrap.servers": kafka.bootstrap_servers,
        "connect.s3.kcql": f"INSERT INTO {target} SELECT * FROM {bucket}:orders STOREAS `PARQUET` "
                           "PROPERTIES('store.envelope'=true)",
        **moto.connector_settings(),
    })

    started = time.monotonic()
    with StandaloneCluster(tmp_path / "cluster", workers=2) as cluster:
        took = {"cluster up": time.monotonic() - started}
        for command, config in (("sink", sink_config), ("restore", restore_config)):
            events = tmp_path / f"events-{command}"
            events.mkdir()
            code, output = spark_submit(
                ["--master", cluster.url, "--driver-memory", "512m", "--executor-memory", "512m",
                 *python_settings(),
                 "--conf", f"spark.default.parallelism={PARALLELISM}",
                 "--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0",  # both executors before the first job
                 *event_log_settings(events),
                 str(APPLICATION), command, "--config", str(config), "--once"],
                tmp_path / f"{command}.log", timeout_s=180)
            took[command] = time.monotonic() - started - sum(took.values())
            assert code == 0, output[-4000:]
            assert re.search(rf"Spark session \S+ on {re.escape(cluster.url)} \(Spark \S+, default parallelism "
                             rf"{PARALLELISM};", output), output[-4000:]
            properties = spark_properties(events)
            assert properties["spark.master"] == cluster.url
            assert properties["spark.default.parallelism"] == str(PARALLELISM)
            executors = task_workers(events)  # executor id → its worker (a relaunched executor is a new id)
            assert set(executors.values()) == set(cluster.worker_ui_ports), f"{command}'s tasks ran on {executors}"
    print("spark-submit runs: " + ", ".join(f"{step} {seconds:.1f} s" for step, seconds in took.items()))

    original = kafka_contents(kafka.bootstrap_servers, topic)
    report = audit(original, read_rows(moto.bucket(bucket), "orders"))
    assert report.expected == RECORDS
    assert report.ok, report.describe()
    restored = read_topic(kafka.bootstrap_servers, target, expected=RECORDS)  # committed, in offset order
    assert _by_partition(restored) == _by_partition(read_topic(kafka.bootstrap_servers, topic, expected=RECORDS))


def _by_partition(messages: list[Message]) -> dict[int, list[tuple[object, ...]]]:
    """Each partition's records in offset order, values decoded and headers sorted by name (the restore writes
    the stored JSON value anew and the headers in the stored struct's field order; its offsets differ from the
    original's by the transaction markers)."""
    partitions: dict[int, list[tuple[object, ...]]] = defaultdict(list)
    for partition, key, value, headers, timestamp in messages:
        partitions[partition].append((key, json.loads(value or b"null"), sorted(headers), timestamp))
    return dict(partitions)
