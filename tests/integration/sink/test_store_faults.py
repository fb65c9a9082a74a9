"""The sink rides through a faulty network to its store: every offset lands once, and it keeps running.

A :class:`~tests.support.fault_proxy.FaultProxy` stands between the sink (driver and executors) and
the store (moto's S3 server, fake-gcs-server, Azurite) and fails a share of all requests (10 % or
30 %, index and data alike) with one fault, or a mix of all four:

* ``throttle``: 503 SlowDown, the store shedding load;
* ``reset``: the connection reset before the request reaches the store;
* ``lose-response``: the request applied, its answer lost (a create-only upload or a lock write
  then meets its own first attempt when the SDK retries it);
* ``slow``: the request applied and its answer held back up to a second.

The SDK retries each call ``connect.s3.http.max.retries`` times (5, the default, in most cells); the
cells with 2 make the SDK give up on about 3 % of the requests at 30 %, and the sink must wait
those out (re-run the step after a backoff) instead of stopping. In continuous mode a producer
feeds the topic while the sink runs, and the sink must still be running when the last record is
committed (a batch failure ends the run and the test); ``--once`` must finish. Then the bucket is
read back with the store's own SDK (boto3, google-cloud-storage, azure-storage-blob; not through
the proxy, not through lakesink): every produced offset is stored exactly once and every master
lock points at its partition's last offset.

``make test`` runs one cell (S3, all four faults on 30 % of the requests, 2 SDK retries,
continuous: lost lock answers used to stop a sink with "fenced out", and calls the SDK gave up on
stopped it too); ``make test-reliability`` runs every fault, both rates, both modes and the give-up
cells on S3, and the mixed faults at 30 % in both modes on GCS and Azure.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.range_groups import range_groups
from tests.conftest import unique_name
from tests.integration.sink.conftest import MotoS3, assert_exactly_once, produce_ids, run_sink
from tests.support.fault_proxy import FaultProxy
from tests.support.kafka_broker import KafkaCluster
from tests.support.reliability import FULL, record_cell
from tests.support.store_buckets import AzureContainer, GcsBucket, S3Bucket

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.reliability, pytest.mark.timeout(600)]

FAULTS = {
    "throttle": ("throttle",),
    "reset": ("reset",),
    "lose-response": ("lose-response",),
    "slow": ("slow",),
    "mixed": ("throttle", "reset", "lose-response", "slow"),
}
RATES = (0.1, 0.3)
SDK_GIVES_UP = [("s3", "mixed", 0.3, False, 2), ("s3", "mixed", 0.3, True, 2)]
OTHER_BACKENDS = [(backend, "mixed", 0.3, once, retries) for backend in ("gcs", "azure")
                  for once, retries in ((False, 5), (True, 2))]
CELLS = ([("s3", fault, rate, once, 5) for fault in FAULTS for rate in RATES for once in (False, True)]
         + SDK_GIVES_UP + OTHER_BACKENDS)
if not FULL:
    CELLS = SDK_GIVES_UP[:1]
BACKEND_NAMES = {"s3": "S3 (moto)", "gcs": "GCS (fake-gcs-server)", "azure": "Azure Blob (Azurite)"}
RECORDS = 800  # 200 per partition; flush.count=20 makes ~40 objects and as many plans and lock writes
CHUNK = 40  # records per produce call while a continuous sink runs, one call every CHUNK_EVERY_S (20 s in all)
CHUNK_EVERY_S = 0.5
CONVERTERS = {
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
}


def _bucket(backend: str, request: pytest.FixtureRequest) -> tuple[S3Bucket | GcsBucket | AzureContainer, str]:
    """A fresh bucket of ``backend`` and the URL of its server (emulators start on first use)."""
    name = unique_name("faults")
    if backend == "s3":
        url = request.getfixturevalue("moto_s3").url
        return S3Bucket(url, name), url
    if backend == "gcs":
        url = request.getfixturevalue("fake_gcs").url
        return GcsBucket(url, name), url
    url = request.getfixturevalue("azurite").url
    return AzureContainer(url, name), url


@pytest.mark.parametrize(("backend", "fault", "rate", "once", "retries"), [
    pytest.param(*cell, marks=getattr(pytest.mark, cell[0]),
                 id=f"{cell[0]}-{cell[1]}-{int(cell[2] * 100)}pct-{'once' if cell[3] else 'stream'}-{cell[4]}retries")
    for cell in CELLS])
def test_the_sink_rides_through_store_faults_and_stores_every_offset_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, request: pytest.FixtureRequest,
    backend: str, fault: str, rate: float, once: bool, retries: int, caplog: pytest.LogCaptureFixture,
) -> None:
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    print(f"\nLAKESINK_CRASH_SEED={seed}")
    bucket, upstream = _bucket(backend, request)
    proxy = FaultProxy(upstream, slow_s=1.0).start()
    prefix = bucket.prefix
    props = {
        "name": unique_name("sink"),
        "topics": topic,
        "bootstrap.servers": kafka.bootstrap_servers,
        **CONVERTERS,
        f"{prefix}.kcql": (f"INSERT INTO {bucket.name}:out SELECT * FROM {topic} STOREAS `JSON` "
                           "PROPERTIES('flush.count'=20, 'flush.interval'=1)"),
        f"{prefix}.http.max.retries": str(retries),
        **bucket.connector_settings(proxy.url),
    }
    feeding = None
    if once:
        produce_ids(kafka, topic, range(RECORDS))
    else:
        produce_ids(kafka, topic, range(CHUNK))
        feeding = threading.Thread(target=_feed, args=(kafka, topic), daemon=True)
    proxy.fail_randomly(rate, FAULTS[fault], seed=seed)
    started = time.monotonic()
    try:
        if feeding is not None:
            feeding.start()
        job = run_sink(spark, props, tmp_path / "ck", once=once, feeding=feeding)
    finally:
        proxy.heal()
        proxy.stop()
    elapsed = time.monotonic() - started

    ids = [json.loads(line)["id"] for key in bucket.keys() for line in bucket.read(key).splitlines()]
    assert_exactly_once(ids, range(RECORDS))
    locks = {partition: _committed(bucket, props["name"], topic, partition) for partition in range(4)}
    assert locks == dict.fromkeys(range(4), RECORDS // 4 - 1)
    waits = sum("failed on the store" in record.getMessage() for record in caplog.records)
    print(f"{proxy.requests_seen} requests, faults served {dict(proxy.served)}, "
          f"{len(job.reports)} batches, {waits} steps waited out, {elapsed:.1f} s")
    assert proxy.faults_served > 0
    record_cell("store faults", backend=BACKEND_NAMES[backend], fault=fault, rate=rate,
                mode="once" if once else "continuous", sdk_retries=retries, requests=proxy.requests_seen,
                faults=proxy.faults_served, waited_out=waits, records=RECORDS, seconds=elapsed,
                outcome=("every offset once; " + ("finished" if once else "kept running")
                         + (f"; {waits} WARNING lines 'failed on the store … running it again'" if waits else "")))


def _feed(kafka: EmbeddedKafka, topic: str) -> None:
    for start in range(CHUNK, RECORDS, CHUNK):
        time.sleep(CHUNK_EVERY_S)
        produce_ids(kafka, topic, range(start, start + CHUNK))


def _committed(bucket: S3Bucket | GcsBucket | AzureContainer, connector: str, topic: str, partition: int) -> int:
    lock = bucket.read(f".indexes/{connector}/.locks/Topic({topic})/{partition}.lock")
    return int(json.loads(lock)["committedOffset"])


@pytest.mark.s3
def test_a_lock_write_the_sdk_gives_up_on_is_waited_out(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, moto_s3: MotoS3,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every attempt of a lock write reset (the SDK's 3 with ``http.max.retries=2``): the sink waits and
    runs the step again, instead of stopping; every record once."""
    bucket = S3Bucket(moto_s3.url, unique_name("gives-up"))
    proxy = FaultProxy(moto_s3.url).start()
    props = {
        "name": unique_name("sink"), "topics": topic, "bootstrap.servers": kafka.bootstrap_servers, **CONVERTERS,
        "connect.s3.kcql": f"INSERT INTO {bucket.name}:out SELECT * FROM {topic} STOREAS `JSON`",
        "connect.s3.http.max.retries": "2", **bucket.connector_settings(proxy.url),
    }
    produce_ids(kafka, topic, range(40))

    # one partition's lock: locks are written concurrently
    ids = _waited_out(spark, props, proxy, bucket, tmp_path, caplog, path_contains="/0.lock")

    assert_exactly_once(ids, range(40))


def _waited_out(spark: SparkSession, props: dict[str, str], proxy: FaultProxy, bucket: S3Bucket, tmp_path: Path,
                caplog: pytest.LogCaptureFixture, *, path_contains: str) -> list[int]:
    """Run the sink with the SDK's three attempts (``http.max.retries=2``) at the first PUT whose path holds
    ``path_contains`` reset, check the sink waited that out, and return the ids it stored."""
    proxy.fail_next(3, "reset", path_contains=path_contains, methods=("PUT",))
    try:
        run_sink(spark, props, tmp_path / "ck")
    finally:
        proxy.stop()
    assert proxy.faults_served == 3
    assert any("failed on the store" in record.getMessage() for record in caplog.records)
    return [json.loads(line)["id"] for key in bucket.keys() for line in bucket.read(key).splitlines()]


@pytest.mark.s3
def test_a_failed_range_stops_the_ranges_after_it_in_its_task_and_the_batch_still_stores_every_offset_once(
    spark: SparkSession, apache_kafka: KafkaCluster, tmp_path: Path, moto_s3: MotoS3, caplog: pytest.LogCaptureFixture,
) -> None:
    """32 partitions, more ranges than a batch's task budget (4 × Spark's default parallelism), so
    ranges share tasks (domain/range_groups.py). Every attempt to upload partition 5's object is
    reset: its range fails and stops its task (tests/unit/adapters/spark/test_grouped_range_tasks.py:
    what it reports), the partitions written whole are committed, the rest waited out and run again."""
    caplog.set_level(logging.INFO, logger="lakesink.application.sink_run")
    partitions = 32
    assert len(range_groups([OffsetRange("t", p, 0, 25) for p in range(partitions)], spark.sparkContext.defaultParallelism)) < partitions
    topic, bucket = unique_name("grouped"), S3Bucket(moto_s3.url, unique_name("grouped"))
    apache_kafka.create_topic(topic, partitions)
    apache_kafka.produce(topic, [ProducedRecord(json.dumps({"id": i}).encode(), partition=i % partitions) for i in range(RECORDS)])
    proxy = FaultProxy(moto_s3.url).start()
    props = {
        "name": unique_name("sink"), "topics": topic, "bootstrap.servers": apache_kafka.bootstrap_servers, **CONVERTERS,
        "connect.s3.kcql": f"INSERT INTO {bucket.name}:out SELECT * FROM {topic} STOREAS `JSON`",
        "connect.s3.http.max.retries": "2", **bucket.connector_settings(proxy.url),
    }

    ids = _waited_out(spark, props, proxy, bucket, tmp_path, caplog, path_contains=f"/out/{topic}/5/")

    assert any("committed the" in record.getMessage() and "before the wait" in record.getMessage()
               for record in caplog.records)
    assert_exactly_once(ids, range(RECORDS))
    locks = {partition: _committed(bucket, props["name"], topic, partition) for partition in range(partitions)}
    assert locks == dict.fromkeys(range(partitions), RECORDS // partitions - 1)
