"""Debezium change topics applied to Iceberg tables as upserts and deletes: the table ends equal to
the newest state of every key, read back by pyiceberg and by polars; the objects keep every change.

The records are Debezium events as its JSON converter writes them without schemas: key ``{"id": n}``,
value ``{"before", "after", "op", "ts_ms"}``, a tombstone (no value) after each delete. A key lives
in one partition (``id % 4``), as Debezium's partitioner puts it, except where a test moves it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table import Table
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.domain.tables.marks import mark_of
from tests.integration.sink.conftest import PARTITIONS, local_props, run_sink

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


def _props(tmp_path: Path, kafka: EmbeddedKafka, topic: str, *, flush: int = 7) -> dict[str, str]:
    (tmp_path / "store" / "bkt").mkdir(parents=True, exist_ok=True)
    kcql = (
        f"INSERT INTO bkt:lake/customers SELECT * FROM {topic} STOREAS `PARQUET` PROPERTIES('flush.count'={flush}, "
        f"'store.envelope'=true, 'table.format'='ICEBERG', 'table.name'='{TABLE}', "
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


def _table(tmp_path: Path) -> Table:
    return SqlCatalog("lakesink", uri=_catalog_uri(tmp_path)).load_table(TABLE)


def _read(table: Table) -> dict[int, Row]:
    """The table through pyiceberg's scan, checked against polars reading the same snapshot."""
    rows = table.scan().to_arrow().to_pylist()
    by_polars = pl.scan_iceberg(table).collect().to_dicts()
    assert sorted(rows, key=lambda row: row["id"]) == sorted(by_polars, key=lambda row: row["id"])
    state = {row["id"]: row for row in rows}
    assert len(state) == len(rows), "a key holds more than one row"
    return state


def _row(key: int, version: int) -> Row:
    return {"id": key, "name": f"customer-{key}", "version": version}


def test_changes_land_as_the_newest_state_of_every_key_across_runs(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    source = _Source(kafka, topic)
    rng = random.Random(7)
    for step in range(120):
        key = rng.randrange(24)
        source.change(key, None if key in source.state and rng.random() < 0.25 else _row(key, step))
    source.publish()
    props = _props(tmp_path, kafka, topic)
    run_sink(spark, props, tmp_path / "ck")
    assert _read(_table(tmp_path)) == source.state

    for step in range(120, 200):
        key = rng.randrange(30)
        source.change(key, None if key in source.state and rng.random() < 0.25 else _row(key, step))
    source.publish()
    run_sink(spark, props, tmp_path / "ck")
    table = _table(tmp_path)
    assert _read(table) == source.state
    mark = mark_of(props["name"], table.current_snapshot().summary.additional_properties)
    assert mark is not None
    assert {partition: last + 1 for (_, partition), last in mark.offsets.items()} == {
        partition: high for partition, (_, high) in kafka.watermarks(topic).items() if high
    }


def test_a_key_moved_between_partitions_in_one_batch_ends_with_its_newest_change_by_source_time(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    source = _Source(kafka, topic)
    # key 5's newest change sits at a lower partition and offset than an older one: ts_ms decides
    source.change(5, _row(5, 1), partition=3, ts_ms=T0 + 10_000)
    source.change(5, _row(5, 2), partition=3, ts_ms=T0 + 20_000)
    source.change(5, _row(5, 3), partition=0, ts_ms=T0 + 30_000)
    source.change(6, _row(6, 1), partition=2, ts_ms=T0 + 50_000)
    source.change(6, None, partition=1, ts_ms=T0 + 40_000)  # older than its insert in partition 2
    source.publish()
    run_sink(spark, _props(tmp_path, kafka, topic, flush=100), tmp_path / "ck")
    assert _read(_table(tmp_path)) == {5: _row(5, 3), 6: _row(6, 1)}
