"""Debezium change topics applied to Iceberg and Delta tables as upserts and deletes: the table ends
equal to the newest state of every key, read back by pyiceberg or delta-rs and by polars; the objects
keep every change.

The records are Debezium events as its JSON converter writes them without schemas: key ``{"id": n}``,
value ``{"before", "after", "op", "ts_ms"}``, a tombstone (no value) after each delete. A key lives
in one partition (``id % 4``), as Debezium's partitioner puts it, except where a test moves it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from deltalake import DeltaTable
from pyiceberg.catalog.sql import SqlCatalog
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.application.cli import main
from lakesink.domain.tables.marks import mark_of, offset_app_id
from tests.integration.sink.conftest import PARTITIONS, assert_verifies_clean, local_props, run_sink
from tests.support.iceberg_metadata import needed_metadata

pytestmark = [pytest.mark.integration]

TABLE = "shop.customers"
T0 = 1_767_225_600_000

Row = dict[str, object]


class _Source:
    """A database table's changes as Debezium publishes them, and the table's state after them."""

    def __init__(self, kafka: EmbeddedKafka, topic: str) -> None:
        self._kafka, self._topic = kafka, topic
        self.state: dict[int, Row] = {}
        self._clock = T0
        self._pending: list[ProducedRecord] = []

    def change(self, key: int, row: Row | None, *, partition: int | None = None, ts_ms: int | None = None) -> None:
        """Insert or update ``key`` to ``row``, or delete it (None): its event, then a tombstone after a
        delete (produced by :meth:`publish`)."""
        self._clock += 1_000
        before = self.state.get(key)
        op = "d" if row is None else ("u" if before is not None else "c")
        event = {"before": before, "after": row, "op": op, "ts_ms": ts_ms if ts_ms is not None else self._clock}
        where = key % PARTITIONS if partition is None else partition
        self._pending.append(self._record(key, event, where))
        if row is None:
            self._pending.append(self._record(key, None, where))
            self.state.pop(key, None)
        else:
            self.state[key] = row

    def publish(self) -> None:
        self._kafka.produce(self._topic, self._pending)
        self._pending = []

    def _record(self, key: int, event: Row | None, partition: int) -> ProducedRecord:
        value = None if event is None else json.dumps(event).encode()
        return ProducedRecord(value, key=json.dumps({"id": key}).encode(), timestamp_ms=self._clock, partition=partition)


@pytest.fixture(params=["ICEBERG", "DELTA"])
def table_format(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _props(tmp_path: Path, kafka: EmbeddedKafka, topic: str, table_format: str, *, flush: int = 7) -> dict[str, str]:
    (tmp_path / "store" / "bkt").mkdir(parents=True, exist_ok=True)
    kcql = (
        f"INSERT INTO bkt:lake/customers SELECT * FROM {topic} STOREAS `PARQUET` PROPERTIES('flush.count'={flush}, "
        f"'store.envelope'=true, 'table.format'='{table_format}', 'table.name'='{TABLE}', "
        "'table.change.format'='DEBEZIUM', 'table.key'='id')"
    )
    return local_props(
        tmp_path / "store", kcql, topic, kafka,
        **{
            "connect.local.table.catalog.uri": _catalog_uri(tmp_path),
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
        },
    )


def _catalog_uri(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'catalog.db'}"


def _delta_uri(tmp_path: Path) -> str:
    return (tmp_path / "store" / "bkt" / "lake" / "customers").as_uri()


def _read(tmp_path: Path, table_format: str) -> dict[int, Row]:
    """The table through its own library (pyiceberg's scan; delta-rs), checked against polars reading
    the same version."""
    if table_format == "ICEBERG":
        table = SqlCatalog("lakesink", uri=_catalog_uri(tmp_path)).load_table(TABLE)
        rows, by_polars = table.scan().to_arrow().to_pylist(), pl.scan_iceberg(table).collect().to_dicts()
    else:
        rows = DeltaTable(_delta_uri(tmp_path)).to_pyarrow_table().to_pylist()
        by_polars = pl.read_delta(_delta_uri(tmp_path)).to_dicts()
    assert sorted(rows, key=lambda row: row["id"]) == sorted(by_polars, key=lambda row: row["id"])
    state = {row["id"]: row for row in rows}
    assert len(state) == len(rows), "a key holds more than one row"
    return state


def _table_offsets(tmp_path: Path, table_format: str, connector: str, topic: str) -> dict[int, int]:
    """The offsets the table's newest commit of ``connector`` holds, per partition."""
    if table_format == "ICEBERG":
        table = SqlCatalog("lakesink", uri=_catalog_uri(tmp_path)).load_table(TABLE)
        mark = mark_of(connector, table.current_snapshot().summary.additional_properties)  # type: ignore[union-attr]
        assert mark is not None
        return {partition: last for (_, partition), last in mark.offsets.items()}
    delta = DeltaTable(_delta_uri(tmp_path))
    versions = {p: delta.transaction_version(offset_app_id(connector, topic, p)) for p in range(PARTITIONS)}
    return {partition: last for partition, last in versions.items() if last is not None}


def _row(key: int, version: int) -> Row:
    return {"id": key, "name": f"customer-{key}", "version": version}


def test_changes_land_as_the_newest_state_of_every_key_across_runs(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, table_format: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = _Source(kafka, topic)
    rng = random.Random(7)
    for step in range(120):
        key = rng.randrange(24)
        source.change(key, None if key in source.state and rng.random() < 0.25 else _row(key, step))
    source.publish()
    props = _props(tmp_path, kafka, topic, table_format)
    run_sink(spark, props, tmp_path / "ck")
    assert _read(tmp_path, table_format) == source.state

    for step in range(120, 200):
        key = rng.randrange(30)
        source.change(key, None if key in source.state and rng.random() < 0.25 else _row(key, step))
    source.publish()
    run_sink(spark, props, tmp_path / "ck")
    assert _read(tmp_path, table_format) == source.state
    assert _table_offsets(tmp_path, table_format, props["name"], topic) == {
        partition: high - 1 for partition, (_, high) in kafka.watermarks(topic).items() if high
    }
    # the change log verifies clean: every offset once, and the table's own files are no layout mismatch
    assert_verifies_clean(props, tmp_path, capsys)


def test_verify_compares_the_table_with_its_change_log_and_names_the_keys_that_differ(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, table_format: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = _Source(kafka, topic)
    for step in range(40):
        source.change(step % 12, None if step % 7 == 6 else _row(step % 12, step))
    source.publish()
    props = _props(tmp_path, kafka, topic, table_format)
    run_sink(spark, props, tmp_path / "ck")
    alive = sorted(source.state)
    (table,) = assert_verifies_clean(props, tmp_path, capsys)["tables"]
    records = 40 + 40 // 7  # the events, and a tombstone after each delete
    assert (table["rows"], table["keys"], table["changes"]) == (len(alive), len(alive), records)
    assert sum(mark["last_offset"] + 1 for mark in table["marked"]) == records

    # another writer removes one row and changes another: verify names both keys and fails
    gone, changed = alive[0], alive[1]
    if table_format == "ICEBERG":
        iceberg = SqlCatalog("lakesink", uri=_catalog_uri(tmp_path)).load_table(TABLE)
        iceberg.delete(f"id = {gone}")
        iceberg.refresh().delete(f"id = {changed}")
        iceberg.refresh().append(pa.Table.from_pylist([{**source.state[changed], "name": "edited"}], iceberg.schema().as_arrow()))
    else:
        delta = DeltaTable(_delta_uri(tmp_path))
        delta.delete(f"id = {gone}")
        delta.update({"name": "'edited'"}, predicate=f"id = {changed}")
    config = tmp_path / "verified-sink.json"
    capsys.readouterr()
    assert main(["verify", "--config", str(config), "--json"]) == 1
    (table,) = json.loads(capsys.readouterr().out)["tables"]
    assert table["missing"] == [repr(gone)]
    assert table["differing"] == [f"{changed!r} (column name: table 'edited', log 'customer-{changed}')"]
    assert main(["verify", "--config", str(config)]) == 1
    text = capsys.readouterr().out
    assert f"change table {TABLE}: {len(alive) - 1} rows, 2 keys differ from the newest change" in text
    assert main(["verify", "--config", str(config), "--no-table-rows"]) == 0


def test_maintenance_compacts_and_expires_a_change_table_and_removes_only_the_files_its_rewrites_left(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, table_format: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every batch rewrites the files holding its keys (copy-on-write) and is followed by maintenance:
    one snapshot kept, compaction, orphans of any age. The table stays equal to its log, the log keeps
    every offset, and on Iceberg only what the kept snapshot reads stays stored of the table's own files."""
    maintenance = {"every.batches": "1", "snapshots.keep": "1", "orphans.older.than": "0",
                   "compaction.closed.after": "0", "compaction.target.file.size": str(1 << 20)}
    props = {**_props(tmp_path, kafka, topic, table_format),
             **{f"connect.local.table.maintenance.{key}": value for key, value in maintenance.items()}}
    source = _Source(kafka, topic)
    for run in range(2):
        for step in range(30):
            key = (run * 30 + step) % 9
            source.change(key, None if step % 8 == 7 else _row(key, run * 30 + step))
        source.publish()
        run_sink(spark, props, tmp_path / "ck")
    assert _read(tmp_path, table_format) == source.state
    (table,) = assert_verifies_clean(props, tmp_path, capsys)["tables"]  # every change kept: the log is never cleaned
    assert table["rows"] == len(source.state)
    root = tmp_path / "store" / "bkt" / "lake" / "customers"
    own = sorted(str(path) for path in root.rglob("*.parquet") if not path.relative_to(root).parts[0].startswith(topic))
    if table_format == "ICEBERG":
        iceberg = SqlCatalog("lakesink", uri=_catalog_uri(tmp_path)).load_table(TABLE)
        assert len(iceberg.snapshots()) == 1
        referenced = iceberg.inspect.all_data_files().column("file_path").to_pylist()
        assert own == sorted({path.removeprefix("file://") for path in referenced})
        assert {path.name for path in (root / "metadata").iterdir()} == needed_metadata(iceberg)  # and its metadata
    else:  # a Delta log keeps its commits 30 days (delta.logRetentionDuration): what they name stays
        assert {uri.removeprefix("file://") for uri in DeltaTable(_delta_uri(tmp_path)).file_uris()} <= set(own)


def test_a_key_moved_between_partitions_in_one_batch_ends_with_its_newest_change_by_source_time(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, table_format: str
) -> None:
    source = _Source(kafka, topic)
    # key 5's newest change sits at a lower partition and offset than an older one: ts_ms decides
    source.change(5, _row(5, 1), partition=3, ts_ms=T0 + 10_000)
    source.change(5, _row(5, 2), partition=3, ts_ms=T0 + 20_000)
    source.change(5, _row(5, 3), partition=0, ts_ms=T0 + 30_000)
    source.change(6, _row(6, 1), partition=2, ts_ms=T0 + 50_000)
    source.change(6, None, partition=1, ts_ms=T0 + 40_000)  # older than its insert in partition 2
    source.publish()
    run_sink(spark, _props(tmp_path, kafka, topic, table_format, flush=100), tmp_path / "ck")
    assert _read(tmp_path, table_format) == {5: _row(5, 3), 6: _row(6, 1)}
