"""kill -9 a sink that writes a table, again and again: the table holds every offset exactly once.

The run of test_kill9.py (the demo's orders, ``flush.count=200``, ``flush.interval=1``, a producer
trickling 10 records a second, the whole process group SIGKILLed at start-up, during uploads and
while streaming, each phase at least once) with the statement committing to an Iceberg table in
an embedded SQL catalog, to one named in Apache Iceberg's own REST catalog server (its S3FileIO on
the same moto: ``make test-reliability`` only), or to a Delta table. The uploads phase kills between the Parquet uploads
and the table commit (or between the table commit and the locks). After a final ``--once`` run,
the table is read through its own metadata (pyiceberg; delta-rs): the files it references hold
every record of the topic once, the bucket holds no data object the table does not reference, and
the offsets in the newest snapshot (the ``txn`` versions) are the locks'.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest
from pyiceberg.table import Table

from lakesink.adapters.demo.kafka import kafka_contents
from lakesink.adapters.demo.s3 import MotoS3, S3Bucket
from lakesink.adapters.demo.tables import DeltaReadback, IcebergReadback
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.application.demo.audit import audit
from lakesink.application.demo.configs import s3_table_config, write_config
from lakesink.application.demo.output import is_data_key
from lakesink.domain.tables.marks import mark_of, offset_app_id
from tests.conftest import unique_name
from tests.support.iceberg_rest import IcebergRestServer, iceberg_rest_missing_reason
from tests.support.kill_runs import KillPlan, TrickleProducer, assert_anchored_phases_hit, finish_after_kills
from tests.support.order_sink import PREFIX, committed_offsets, order_chunks
from tests.support.reliability import FULL, kills, record_cell, skip_unless_killed

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability, pytest.mark.timeout(600)]

KILLS = kills(sample=3, full=12)
CHUNK = 10


@pytest.fixture(scope="module")
def iceberg_rest_on_moto(moto: MotoS3) -> Iterator[IcebergRestServer]:
    """Iceberg's REST catalog server whose S3FileIO reaches this module's moto."""
    reason = iceberg_rest_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    with IcebergRestServer(moto.url) as server:
        yield server


def _config(tmp_path: Path, name: str, topic: str, kafka: EmbeddedKafka, moto: MotoS3, bucket: str,
            table: str, rest: IcebergRestServer | None) -> Path:
    moto.create_bucket(bucket)
    settings = s3_table_config(
        name, topic=topic, bootstrap_servers=kafka.bootstrap_servers, s3_settings=moto.connector_settings(),
        bucket=bucket, prefix=PREFIX, flush_count=200, table=table, table_name="shop.orders",
        catalog_uri=rest.uri if rest else f"sqlite:///{tmp_path / 'catalog.db'}", flush_interval_s=1)
    if rest is not None:
        settings["connect.s3.table.catalog.type"] = "rest"
    return write_config(tmp_path, settings)


def _iceberg(table: Table, name: str, bucket: str) -> tuple[list[str], dict[int, int]]:
    """The keys of the data files the newest snapshot references, and its offsets per partition."""
    mark = mark_of(name, table.current_snapshot().summary.additional_properties)  # type: ignore[union-attr]
    assert mark is not None
    keys = [unquote(task.file.file_path.removeprefix(f"s3://{bucket}/")) for task in table.scan().plan_files()]
    return keys, {partition: last for (_, partition), last in mark.offsets.items()}


def _delta(moto: MotoS3, name: str, topic: str, bucket: str, partitions: list[int]) -> tuple[list[str], dict[int, int]]:
    """The keys of the data files the table's version references, and its txn versions per partition."""
    table = DeltaReadback(f"s3://{bucket}/{PREFIX}", moto).table()
    keys = [unquote(uri.removeprefix(f"s3://{bucket}/")) for uri in table.file_uris()]
    versions = {p: table.transaction_version(offset_app_id(name, topic, p)) for p in partitions}
    return keys, {p: version for p, version in versions.items() if version is not None}


@pytest.mark.parametrize(("table", "catalog"), [("ICEBERG", "sql"), ("DELTA", ""), ("ICEBERG", "rest")])
def test_a_sink_writing_a_table_killed_at_random_moments_commits_every_offset_once(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path, table: str, catalog: str, request: pytest.FixtureRequest
) -> None:
    # make test kills one table per run (drawn among the two formats and the change table of
    # test_change_table_kill9.py); make test-reliability each, 12 times, and the REST catalog's too
    skip_unless_killed("table", table)
    if not FULL and catalog == "rest":
        pytest.skip("make test kills the SQL catalog's Iceberg table; make test-reliability the REST catalog's too")
    rest = request.getfixturevalue("iceberg_rest_on_moto") if catalog == "rest" else None
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    plan = KillPlan.draw(random.Random(seed), KILLS)
    print(f"\nLAKESINK_CRASH_SEED={seed}")
    topic, bucket, name = unique_name("tcrash"), unique_name("tcrash"), unique_name("table-sink")
    config = _config(tmp_path, name, topic, kafka, moto, bucket, table, rest)
    checkpoint = tmp_path / "checkpoint"
    output = moto.bucket(bucket)
    producer = TrickleProducer(order_chunks(kafka, topic, seed, CHUNK))
    producer.start()

    started = time.monotonic()
    landed = plan.run(config, tmp_path, checkpoint,
                      lambda: {item.key for item in output.list(f"{PREFIX}/") if _is_data(item.key)})
    produced = producer.stop()  # raises what producing raised
    finish_after_kills(config, tmp_path, checkpoint)
    total_s = time.monotonic() - started

    expected = kafka_contents(kafka.bootstrap_servers, topic)
    partitions = sorted({partition for _, partition, _ in expected})
    if table == "DELTA":
        referenced, offsets = _delta(moto, name, topic, bucket, partitions)
    else:
        iceberg = (rest.catalog().load_table("shop.orders") if rest
                   else IcebergReadback(f"sqlite:///{tmp_path / 'catalog.db'}", "shop.orders", moto).table())
        referenced, offsets = _iceberg(iceberg, name, bucket)
    report = audit(expected, (row for key in sorted(referenced) for row in output.rows(key)))
    assert report.expected == produced
    assert report.ok, f"seed {seed}:\n{report.describe()}"
    assert sorted(key for key in _data_keys(output) if key not in referenced) == [], "objects no table commit references"
    assert offsets == committed_offsets(output, name, topic)
    assert_anchored_phases_hit(landed)
    target = f"Iceberg table ({'REST' if rest else 'SQL'} catalog)" if table == "ICEBERG" else "Delta table"
    record_cell("kill -9", test="test_table_kill9", target=f"{target}, PARQUET + PARTITIONBY, S3 (moto)",
                kills=KILLS, records=produced, seconds=total_s,
                outcome="every offset once in the table; no unreferenced object; snapshot offsets = locks")


def _is_data(key: str) -> bool:
    return is_data_key(key) and "/metadata/" not in key and "/_delta_log/" not in key


def _data_keys(output: S3Bucket) -> list[str]:
    return [item.key for item in output.list(f"{PREFIX}/") if _is_data(item.key)]
