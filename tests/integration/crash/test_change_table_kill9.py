"""kill -9 a sink applying Debezium changes to an Iceberg or a Delta table, again and again: the table
ends equal to the newest state of every key, and the change objects hold every offset once.

The run of test_table_kill9.py (``flush.count=200``, ``flush.interval=1``, a producer trickling changes
every second, the whole process group SIGKILLed at start-up, during uploads, between the uploads and
the table commit, and while streaming) with a change table: Debezium events over 40 keys, a delete
followed by its tombstone now and then. After a final ``--once`` run, the table (read by pyiceberg
through its catalog, or by delta-rs) must equal the state the topic's changes lead to, key by key,
and its newest commit's offsets the locks', and ``lakesink verify`` must find the table equal to its
change log. ``make test`` kills the Iceberg one when it draws the
change table; ``make test-reliability`` both.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from lakesink.adapters.demo.kafka import kafka_contents
from lakesink.adapters.demo.s3 import MotoS3, S3Bucket
from lakesink.adapters.demo.tables import DeltaReadback, IcebergReadback, object_store_options
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.application.cli import main
from lakesink.application.demo.configs import s3_table_config, write_config
from lakesink.application.demo.output import is_data_key
from lakesink.domain.tables.marks import mark_of, offset_app_id
from tests.conftest import unique_name
from tests.support.kill_runs import KillPlan, TrickleProducer, assert_anchored_phases_hit, finish_after_kills
from tests.support.order_sink import PREFIX, committed_offsets
from tests.support.reliability import FULL, kills, record_cell, skip_unless_killed

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability, pytest.mark.timeout(600)]

KILLS = kills(sample=3, full=12)
T0 = 1_767_225_600_000
PARTITIONS = 4

Row = dict[str, object]


@dataclass(frozen=True, slots=True)
class Scale:
    """How many changes, over how many keys, trickling how fast, into objects of how many records."""

    changes: int
    keys: int
    per_second: int
    flush_count: int


SMALL = Scale(changes=2_000, keys=40, per_second=10, flush_count=200)
"""Every run has changes to apply while it is killed (the producer stops after 2,000)."""
MILLION = Scale(changes=1_000_000, keys=100_000, per_second=20_000, flush_count=20_000)
"""Issue 37's acceptance: a million changes over 100k keys, at least 10 kills."""


def change_chunks(kafka: EmbeddedKafka, topic: str, seed: int, scale: Scale) -> Callable[[], int]:
    """Each call produces the next ``scale.per_second`` Debezium changes (a delete adds its tombstone),
    each key in partition ``id % 4`` as Debezium's partitioner keeps a key in one partition."""
    rng = random.Random(seed)
    state: dict[int, Row] = {}
    made = 0

    def produce() -> int:
        nonlocal made
        records = []
        for _ in range(min(scale.per_second, scale.changes - made)):
            made += 1
            key = rng.randrange(scale.keys)
            before = state.get(key)
            after = None if before is not None and rng.random() < 0.2 else {"id": key, "name": f"c{key}", "version": made}
            event = {"before": before, "after": after, "op": "d" if after is None else ("u" if before else "c"),
                     "ts_ms": T0 + made}
            keyed = {"key": json.dumps({"id": key}).encode(), "timestamp_ms": T0 + made, "partition": key % PARTITIONS}
            records.append(ProducedRecord(json.dumps(event).encode(), **keyed))
            if after is None:
                records.append(ProducedRecord(None, **keyed))
                state.pop(key)
            else:
                state[key] = after
        return kafka.produce(topic, records) if records else 0

    return produce


def final_state(kafka: EmbeddedKafka, topic: str) -> dict[int, Row]:
    """The state the topic's changes lead to: each partition's changes in offset order."""
    state: dict[int, Row] = {}
    contents = kafka_contents(kafka.bootstrap_servers, topic)
    for position in sorted(contents, key=lambda where: (where[1], where[2])):
        record = contents[position]
        key = json.loads(record.key or "null")["id"]
        after = None if record.value is None else record.value["after"]
        if after is None:
            state.pop(key, None)
        else:
            state[key] = after
    return state


def _change_objects(output: S3Bucket) -> list[str]:
    """The change log: the statement's objects, apart from the tables' own (Iceberg's metadata and
    pyiceberg's files under ``data/``; delta-rs's files at the table's root and its log)."""
    return [item.key for item in output.list(f"{PREFIX}/") if is_data_key(item.key)
            and not item.key.startswith((f"{PREFIX}/metadata/", f"{PREFIX}/data/", f"{PREFIX}/_delta_log/"))
            and item.key.count("/") > PREFIX.count("/") + 1]


def _table_state(table_format: str, catalog_uri: str, moto: MotoS3, bucket: str, name: str, topic: str
                 ) -> tuple[list[Row], dict[int, int]]:
    """The table's rows and its newest commit's offsets per partition (Iceberg's mark, Delta's txn)."""
    if table_format == "ICEBERG":
        readback = IcebergReadback(catalog_uri, "crm.customers", moto)
        table = readback.table()
        mark = mark_of(name, table.current_snapshot().summary.additional_properties)  # type: ignore[union-attr]
        assert mark is not None
        rows = table.scan().to_arrow().to_pylist()
        by_polars = pl.scan_iceberg(table, storage_options=object_store_options(moto)).collect().to_dicts()
        assert sorted(rows, key=lambda row: row["id"]) == sorted(by_polars, key=lambda row: row["id"])
        return rows, {partition: last for (_, partition), last in mark.offsets.items()}
    delta = DeltaReadback(f"s3://{bucket}/{PREFIX}", moto).table()
    versions = {p: delta.transaction_version(offset_app_id(name, topic, p)) for p in range(PARTITIONS)}
    return delta.to_pyarrow_table().to_pylist(), {p: last for p, last in versions.items() if last is not None}


@pytest.mark.parametrize("table_format", ["ICEBERG", "DELTA"])
def test_a_sink_applying_changes_killed_at_random_moments_ends_with_every_keys_newest_state(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path, table_format: str
) -> None:
    skip_unless_killed("table", "change table")
    if not FULL and table_format == "DELTA":
        pytest.skip("make test kills the Iceberg change table; make test-reliability the Delta one too")
    _kill_and_audit(kafka, moto, tmp_path, table_format, SMALL, KILLS)


def test_a_million_changes_over_100k_keys_survive_ten_kills(kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path) -> None:
    if not FULL:
        pytest.skip("make test-reliability applies a million changes; make test the small run above")
    _kill_and_audit(kafka, moto, tmp_path, "ICEBERG", MILLION, 10)


def _kill_and_audit(kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path, table_format: str, scale: Scale,
                    kill_count: int) -> None:
    """Trickle ``scale``'s changes while a sink into a ``table_format`` change table is killed
    ``kill_count`` times; then audit the table, the change log and the locks."""
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    plan = KillPlan.draw(random.Random(seed), kill_count)
    print(f"\nLAKESINK_CRASH_SEED={seed}")
    topic, bucket, name = unique_name("ccrash"), unique_name("ccrash"), unique_name("change-sink")
    moto.create_bucket(bucket)
    catalog_uri = f"sqlite:///{tmp_path / 'catalog.db'}"
    settings = s3_table_config(
        name, topic=topic, bootstrap_servers=kafka.bootstrap_servers, s3_settings=moto.connector_settings(),
        bucket=bucket, prefix=PREFIX, flush_count=scale.flush_count, table=table_format, table_name="crm.customers",
        catalog_uri=catalog_uri, flush_interval_s=1)
    # the orders' PARTITIONBY names order fields: a change log is kept per Kafka partition instead
    kcql = re.sub(r"PARTITIONBY .*? STOREAS", "STOREAS", settings["connect.s3.kcql"])
    settings["connect.s3.kcql"] = kcql.replace("PROPERTIES(", "PROPERTIES('table.change.format'='DEBEZIUM', 'table.key'='id', ")
    settings.update({"key.converter": "org.apache.kafka.connect.json.JsonConverter",
                     "key.converter.schemas.enable": "false"})
    config = write_config(tmp_path, settings)
    checkpoint = tmp_path / "checkpoint"
    output = moto.bucket(bucket)
    producer = TrickleProducer(change_chunks(kafka, topic, seed, scale))
    producer.start()

    started = time.monotonic()
    landed = plan.run(config, tmp_path, checkpoint, lambda: set(_change_objects(output)))
    produced = producer.stop()  # raises what producing raised
    finish_after_kills(config, tmp_path, checkpoint)
    total_s = time.monotonic() - started

    rows, offsets = _table_state(table_format, catalog_uri, moto, bucket, name, topic)
    assert len({row["id"] for row in rows}) == len(rows), f"seed {seed}: a key holds more than one row"
    assert {row["id"]: row for row in rows} == final_state(kafka, topic), f"seed {seed}"
    stored = [(row.partition, row.offset) for key in _change_objects(output) for row in output.rows(key)]
    assert len(stored) == len(set(stored)) == produced, f"seed {seed}: the change log lost or doubled offsets"
    assert offsets == committed_offsets(output, name, topic)
    assert_anchored_phases_hit(landed)
    verified = time.monotonic()
    with redirect_stdout(io.StringIO()) as out:
        code = main(["verify", "--config", str(config), "--json", "--quiet"])
    (table,) = json.loads(out.getvalue())["tables"]
    print(f"verify compared {table['changes']:,} changes with {table['rows']:,} rows in {time.monotonic() - verified:.1f} s")
    assert code == 0 and (table["rows"], table["changes"]) == (len(rows), produced), f"seed {seed}: {table}"
    target = "Iceberg change table (SQL catalog)" if table_format == "ICEBERG" else "Delta change table"
    record_cell("kill -9", test="test_change_table_kill9", target=f"{target}, Debezium over {scale.keys:,} keys, S3 (moto)",
                kills=kill_count, records=produced, seconds=total_s,
                outcome="table = every key's newest state; every offset once in the change log; snapshot offsets = locks")
