"""Topics into Iceberg and Delta tables: every record once in the table, read back by pyiceberg,
DuckDB and polars.

Iceberg tables are named in pyiceberg's SQL catalog (a SQLite file of the test's directory) and, in
the tests that take :func:`iceberg_catalog`, in Apache Iceberg's own REST catalog server too (the
session's ``iceberg_rest``, tests/support/iceberg_rest.py), each test in a namespace of its own.

The sink writes its Parquet objects as for plain PARQUET, then commits each batch to the table
(the commit point), then its index locks. The checks read the table through its catalog, never
through the sink, and compare the offsets in the newest snapshot with the locks.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import polars as pl
import pytest
from deltalake import DeltaTable
from pyiceberg.catalog import Catalog
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import NoSuchTableError
from pyiceberg.table import Table
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.storage import open_store
from lakesink.application.cli import main
from lakesink.application.sink_index import SinkIndex
from lakesink.domain.commit.locks import decode_lock
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import CommitError, CommitOutcomeUnknownError
from lakesink.domain.ports import iter_objects
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.marks import epoch_app_id, mark_of, offset_app_id
from tests.conftest import unique_name
from tests.integration.sink.conftest import (
    PARTITIONS,
    MotoS3,
    assert_exactly_once,
    assert_verifies_clean,
    local_props,
    newer_run_fences_older,
    produce_ids,
    run_sink,
    s3_props,
)
from tests.support.boto_bucket import BotoBucket
from tests.support.iceberg_metadata import needed_metadata
from tests.support.iceberg_rest import IcebergRestServer

pytestmark = [pytest.mark.integration]


@dataclass(frozen=True)
class _Catalog:
    """Where a test's Iceberg table is named: its ``table.catalog.*`` settings, its name there, and a
    pyiceberg client of that catalog to read it back through."""

    settings: dict[str, str]
    table_name: str
    client: Callable[[], Catalog]

    def table(self) -> Table:
        return self.client().load_table(self.table_name)


def _sql_catalog(tmp_path: Path) -> _Catalog:
    """pyiceberg's SQL catalog on a SQLite file of the test's directory."""
    uri = _catalog_uri(tmp_path)
    return _Catalog({"table.catalog.uri": uri}, "shop.orders", lambda: SqlCatalog("lakesink", uri=uri))


def _rest_catalog(server: IcebergRestServer) -> _Catalog:
    """Iceberg's REST catalog server, the table in a namespace no other test uses."""
    name = unique_name("shop").replace("-", "_") + ".orders"
    return _Catalog({"table.catalog.type": "rest", "table.catalog.uri": server.uri}, name, server.catalog)


def _catalog_of(request: pytest.FixtureRequest, tmp_path: Path, kind: str) -> _Catalog:
    return _sql_catalog(tmp_path) if kind == "sql" else _rest_catalog(request.getfixturevalue("iceberg_rest"))


@pytest.fixture(params=["sql", "rest"])
def iceberg_catalog(request: pytest.FixtureRequest, tmp_path: Path) -> _Catalog:
    """The test runs once per catalog: SQL, then REST (skipped, with the reason, without its jars)."""
    return _catalog_of(request, tmp_path, request.param)


def _props(
    tmp_path: Path, kafka: EmbeddedKafka, topic: str, flush: str = "'flush.count'=5", partition: str = "",
    catalog: _Catalog | None = None, **extra: str,
) -> dict[str, str]:
    """A local sink into the Iceberg table at bkt/lake/orders, named in ``catalog`` (the SQL one by default)."""
    (tmp_path / "store" / "bkt").mkdir(parents=True, exist_ok=True)
    catalog = catalog or _sql_catalog(tmp_path)
    kcql = (
        f"INSERT INTO bkt:lake/orders SELECT * FROM {topic} {partition} STOREAS `PARQUET` "
        f"PROPERTIES({flush}, 'table.format'='ICEBERG', 'table.name'='{catalog.table_name}')"
    )
    settings = {f"connect.local.{key}": value for key, value in catalog.settings.items()}
    return local_props(tmp_path / "store", kcql, topic, kafka, **{**settings, **extra})


def _catalog_uri(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'catalog.db'}"


def _table(tmp_path: Path) -> Table:
    return _sql_catalog(tmp_path).table()


def _ids(table: Table) -> list[int]:
    return sorted(table.scan(selected_fields=("id",)).to_arrow().column("id").to_pylist())


def _locks(props: dict[str, str], topic: str) -> dict[tuple[str, int], int | None]:
    settings = ConnectorSettings.from_properties(props)
    store = open_store(settings.backend, settings.storage)
    prefix = f".indexes/{settings.name}/.locks/Topic({topic})/"
    return {
        (topic, int(info.key.rsplit("/", 1)[1].split(".")[0])): decode_lock(store.get("bkt", info.key).data).committed_offset
        for info in iter_objects(store, "bkt", prefix)
    }


def test_a_topic_lands_in_an_iceberg_table_once_and_the_newest_snapshot_holds_the_locks_offsets(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, iceberg_catalog: _Catalog,
    capsys: pytest.CaptureFixture[str],
) -> None:
    props = _props(tmp_path, kafka, topic, catalog=iceberg_catalog)
    produce_ids(kafka, topic, range(30))
    run_sink(spark, props, tmp_path / "ck")
    produce_ids(kafka, topic, range(30, 52))
    run_sink(spark, props, tmp_path / "ck")

    table = iceberg_catalog.table()
    assert_exactly_once(_ids(table), range(52))
    mark = mark_of(props["name"], table.current_snapshot().summary.additional_properties)
    assert mark is not None and mark.epoch == 2  # two runs, each claimed the table
    assert dict(mark.offsets) == _locks(props, topic) == {(topic, p): 12 for p in range(PARTITIONS)}  # 13 records each
    assert str(table.location()).endswith("/bkt/lake/orders")
    files = [task.file.file_path for task in table.scan().plan_files()]
    assert all("/bkt/lake/orders/" in path for path in files)
    # DuckDB reads the table's data files on its own: the same rows as the topic
    rows = duckdb.sql(f"SELECT id, region, n FROM read_parquet({json.dumps(files)})").fetchall()
    assert sorted(rows) == [(i, f"r{i % 2}", i) for i in range(52)]
    assert_verifies_clean(props, tmp_path, capsys)  # the table's metadata is no layout mismatch


@pytest.mark.parametrize("table_format", ["ICEBERG", "DELTA"])
def test_a_run_stopped_between_its_table_commit_and_its_locks_resumes_from_the_table(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    table_format: str,
) -> None:
    """The table is the commit point (Iceberg's snapshot offsets, Delta's txn versions): the next run
    moves the locks up to it and writes nothing twice."""
    props = _format_props(tmp_path, kafka, topic, table_format)
    produce_ids(kafka, topic, range(20))
    _stop_before_the_locks(spark, props, tmp_path, monkeypatch)
    assert_exactly_once(_table_ids(tmp_path, table_format), range(20))
    assert set(_locks(props, topic).values()) == {None}

    produce_ids(kafka, topic, range(20, 28))
    run_sink(spark, props, tmp_path / "ck")
    assert_exactly_once(_table_ids(tmp_path, table_format), range(28))
    assert set(_locks(props, topic).values()) == {6}


def _stop_before_the_locks(
    spark: SparkSession, props: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``--once`` run whose table commit lands and whose lock writes never happen (as if killed)."""

    def lost(self: SinkIndex, lasts: Mapping[TopicPartition, int]) -> None:
        raise CommitOutcomeUnknownError("the process stopped before its lock writes")

    def no_wait(what: str, step: object, progress: object = None) -> None:
        assert callable(step)
        step()

    with monkeypatch.context() as patch:
        patch.setattr(SinkIndex, "commit", lost)
        patch.setattr("lakesink.application.sink_run.waiting_out", no_wait)
        with pytest.raises(CommitOutcomeUnknownError):
            run_sink(spark, props, tmp_path / "ck")


def test_partitionby_a_value_field_becomes_the_tables_identity_partition(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props = _props(tmp_path, kafka, topic, partition="PARTITIONBY region")
    produce_ids(kafka, topic, range(24))
    run_sink(spark, props, tmp_path / "ck")

    table = _table(tmp_path)
    assert [(f.name, str(f.transform)) for f in table.spec().fields] == [("region", "identity")]
    assert_exactly_once(_ids(table), range(24))
    eu = table.scan(row_filter="region == 'r1'", selected_fields=("id",)).to_arrow().column("id").to_pylist()
    assert sorted(eu) == list(range(1, 24, 2))
    partitions = {task.file.partition[0] for task in table.scan().plan_files()}
    assert partitions == {"r0", "r1"}


@pytest.mark.parametrize(
    ("dates", "unit"), [("_date.uuuu-MM-dd-HH", "hour"), ("_date.uuuu, _date.MM, _date.dd", "day")]
)
def test_partitionby_date_becomes_the_day_or_hour_of_the_record_timestamp_the_files_carry(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, dates: str, unit: str
) -> None:
    props = _props(tmp_path, kafka, topic, "'flush.count'=50", f"PARTITIONBY region, {dates}")
    midnight = datetime(2026, 11, 26, tzinfo=UTC)
    ts0 = int(midnight.timestamp() * 1000) - 10_000
    produce_ids(kafka, topic, range(24), ts0=ts0)  # ids 0-9 on the 25th at 23:59, 10-23 on the 26th at 00:00
    run_sink(spark, props, tmp_path / "ck")

    table = _table(tmp_path)
    assert [(f.name, str(f.transform)) for f in table.spec().fields] == [
        ("region", "identity"),
        (f"_kafka_timestamp_{unit}", unit),
    ]
    rows = table.scan(selected_fields=("id", "_kafka_timestamp")).to_arrow().to_pylist()
    assert_exactly_once([row["id"] for row in rows], range(24))
    assert all(row["_kafka_timestamp"] == midnight + timedelta(milliseconds=row["id"] * 1000 - 10_000) for row in rows)
    later = table.scan(row_filter=f"_kafka_timestamp >= '{midnight.isoformat()}'", selected_fields=("id",))
    assert sorted(later.to_arrow().column("id").to_pylist()) == list(range(10, 24))
    # the filter prunes by partition: no file of the 25th (23:00) is even planned
    everything, pruned = list(table.scan().plan_files()), list(later.plan_files())
    assert 0 < len(pruned) < len(everything)
    ordinal = 20_783 if unit == "day" else 20_783 * 24  # days (hours) since the epoch of 2026-11-26 00:00
    assert {task.file.partition[1] for task in pruned} == {ordinal}
    assert {task.file.partition[1] for task in everything} == {ordinal - 1, ordinal}


def test_an_iceberg_table_on_s3_holds_every_record_once_and_pyiceberg_reads_it_through_s3(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, moto_s3: MotoS3
) -> None:
    bucket = BotoBucket(moto_s3.url, unique_name("lake"))
    kcql = (
        f"INSERT INTO {bucket.name}:lake/orders SELECT * FROM {topic} STOREAS `PARQUET` "
        "PROPERTIES('flush.count'=7, 'table.format'='ICEBERG', 'table.name'='shop.orders')"
    )
    props = s3_props(moto_s3, kcql, topic, kafka, **{"connect.s3.table.catalog.uri": _catalog_uri(tmp_path)})
    produce_ids(kafka, topic, range(40))
    run_sink(spark, props, tmp_path / "ck")

    catalog = SqlCatalog(
        "lakesink", uri=_catalog_uri(tmp_path), **{"s3.endpoint": moto_s3.url, "s3.access-key-id": "testing",
                                                    "s3.secret-access-key": "testing", "s3.region": "us-east-1"}
    )
    table = catalog.load_table("shop.orders")
    assert table.location() == f"s3://{bucket.name}/lake/orders"
    assert_exactly_once(_ids(table), range(40))
    assert any(key.startswith("lake/orders/metadata/") for key in bucket.keys())


def _produce_values(kafka: EmbeddedKafka, topic: str, values: list[dict[str, object]]) -> None:
    kafka.produce(topic, [ProducedRecord(json.dumps(value).encode(), key=b"k", partition=0) for value in values])


def test_a_new_field_becomes_an_optional_column_and_older_rows_read_null(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props = _props(tmp_path, kafka, topic)
    _produce_values(kafka, topic, [{"id": 1, "region": "r1", "n": 1}])
    run_sink(spark, props, tmp_path / "ck")
    _produce_values(kafka, topic, [{"id": 2, "region": "r0", "n": 2, "coupon": "SPRING"}])
    run_sink(spark, props, tmp_path / "ck")

    table = _table(tmp_path)
    assert table.schema().find_field("coupon").optional
    rows = sorted(table.scan(selected_fields=("id", "coupon")).to_arrow().to_pylist(), key=lambda row: row["id"])
    assert rows == [{"id": 1, "coupon": None}, {"id": 2, "coupon": "SPRING"}]


def test_a_field_whose_type_the_table_cannot_follow_stops_the_batch_naming_the_table(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props = _props(tmp_path, kafka, topic)
    _produce_values(kafka, topic, [{"id": 1, "region": "r1", "n": 1}])
    run_sink(spark, props, tmp_path / "ck")
    _produce_values(kafka, topic, [{"id": 2, "region": "r0", "n": "two"}])
    with pytest.raises(CommitError, match="Iceberg table shop.orders cannot take the columns"):
        run_sink(spark, props, tmp_path / "ck")
    assert _ids(_table(tmp_path)) == [1]


# --- Delta ---------------------------------------------------------------------------------------


def _delta_props(
    tmp_path: Path, kafka: EmbeddedKafka, topic: str, partition: str = "", **extra: str
) -> dict[str, str]:
    (tmp_path / "store" / "bkt").mkdir(parents=True, exist_ok=True)
    kcql = (
        f"INSERT INTO bkt:lake/orders SELECT * FROM {topic} {partition} STOREAS `PARQUET` "
        "PROPERTIES('flush.count'=5, 'table.format'='DELTA')"
    )
    return local_props(tmp_path / "store", kcql, topic, kafka, **extra)


def _delta_uri(tmp_path: Path) -> str:
    return str(tmp_path / "store" / "bkt" / "lake" / "orders")


def _format_props(
    tmp_path: Path, kafka: EmbeddedKafka, topic: str, table_format: str, catalog: _Catalog | None = None
) -> dict[str, str]:
    """A local sink into the ICEBERG (named in ``catalog``, the SQL one by default) or DELTA table at bkt/lake/orders."""
    if table_format == "ICEBERG":
        return _props(tmp_path, kafka, topic, catalog=catalog)
    return _delta_props(tmp_path, kafka, topic)


def _table_ids(tmp_path: Path, table_format: str, catalog: _Catalog | None = None) -> list[int]:
    """The ids the table holds, sorted: through pyiceberg (``catalog``, the SQL one by default), or polars for Delta."""
    if table_format == "ICEBERG":
        return _ids((catalog or _sql_catalog(tmp_path)).table())
    return sorted(pl.read_delta(_delta_uri(tmp_path))["id"].to_list())


def test_a_topic_lands_in_a_delta_table_once_and_its_txn_versions_are_the_locks_offsets(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    props = _delta_props(tmp_path, kafka, topic, partition="PARTITIONBY region")
    produce_ids(kafka, topic, range(30))
    run_sink(spark, props, tmp_path / "ck")
    produce_ids(kafka, topic, range(30, 52))
    run_sink(spark, props, tmp_path / "ck")

    rows = pl.read_delta(_delta_uri(tmp_path)).select("id", "region", "n").rows()  # polars, through delta-rs
    assert sorted(rows) == [(i, f"r{i % 2}", i) for i in range(52)]
    table = DeltaTable(_delta_uri(tmp_path))
    assert table.metadata().partition_columns == ["region"]
    name = props["name"]
    assert table.transaction_version(epoch_app_id(name)) == 2
    txn = {(topic, p): table.transaction_version(offset_app_id(name, topic, p)) for p in range(PARTITIONS)}
    assert txn == _locks(props, topic) == {(topic, p): 12 for p in range(PARTITIONS)}
    assert_verifies_clean(props, tmp_path, capsys)  # the table's log is no layout mismatch


def test_a_delta_table_on_s3_holds_every_record_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, moto_s3: MotoS3
) -> None:
    bucket = BotoBucket(moto_s3.url, unique_name("lake"))
    kcql = (
        f"INSERT INTO {bucket.name}:lake/orders SELECT * FROM {topic} STOREAS `PARQUET` "
        "PROPERTIES('flush.count'=7, 'table.format'='DELTA')"
    )
    produce_ids(kafka, topic, range(40))
    run_sink(spark, s3_props(moto_s3, kcql, topic, kafka), tmp_path / "ck")

    options = {"AWS_ENDPOINT_URL": moto_s3.url, "AWS_ALLOW_HTTP": "true", "AWS_REGION": "us-east-1",
               "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    ids = pl.read_delta(f"s3://{bucket.name}/lake/orders", storage_options=options)["id"].to_list()
    assert_exactly_once(sorted(ids), range(40))
    assert any(key.startswith("lake/orders/_delta_log/") for key in bucket.keys())


def test_a_second_sink_on_the_table_fences_the_first_and_every_record_lands_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, iceberg_catalog: _Catalog
) -> None:
    """The older sink runs continuously; the newer one (--once) claims the table and the locks at
    its start. New records reach both: the older stops fenced, the newer commits them."""
    props = _props(tmp_path, kafka, topic, flush="'flush.count'=4, 'flush.interval'=1", catalog=iceberg_catalog)
    produce_ids(kafka, topic, range(8))
    newer_run_fences_older(
        spark, props, tmp_path, landed=lambda: _committed(iceberg_catalog, 8),
        produce_more=lambda: produce_ids(kafka, topic, range(8, 24)),
    )
    table = iceberg_catalog.table()
    assert_exactly_once(_ids(table), range(24))
    mark = mark_of(props["name"], table.current_snapshot().summary.additional_properties)
    assert mark is not None and mark.epoch == 2  # the newer run's claim: the older one never committed after it


def _committed(catalog: _Catalog, records: int) -> bool:
    """Whether the table holds ``records`` records (the older sink's first batch landed)."""
    try:
        table = catalog.table()
    except NoSuchTableError:
        return False
    if "id" not in table.schema().column_names:  # claimed, no batch yet
        return False
    return len(_ids(table)) >= records


@pytest.mark.parametrize(("table_format", "catalog_kind"), [("ICEBERG", "sql"), ("ICEBERG", "rest"), ("DELTA", "")])
def test_table_clean_deletes_an_upload_no_commit_references_and_nothing_the_table_reads(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, table_format: str, catalog_kind: str,
    capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest,
) -> None:
    catalog = _catalog_of(request, tmp_path, catalog_kind) if catalog_kind else None
    props = _format_props(tmp_path, kafka, topic, table_format, catalog)
    produce_ids(kafka, topic, range(20))
    run_sink(spark, props, tmp_path / "ck")
    table_dir = tmp_path / "store" / "bkt" / "lake" / "orders"
    committed = sorted(table_dir.rglob("*.parquet"))
    stray = table_dir / topic / "9" / "000000000099.parquet"  # an upload whose run died before its commit
    stray.parent.mkdir(parents=True)
    stray.write_bytes(committed[0].read_bytes())
    config = tmp_path / "sink.json"
    config.write_text(json.dumps({"name": props["name"], "config": props}))

    assert main(["table", "clean", "--config", str(config)]) == 0  # younger than the 3-day grace period
    assert "deleted 0 orphan objects\n  kept 1 younger than --older-than" in capsys.readouterr().out
    assert stray.exists()
    os.utime(stray, (time.time() - 3600, time.time() - 3600))
    assert main(["table", "clean", "--config", str(config), "--older-than", "59m", "--dry-run"]) == 0
    assert f"would delete 1 orphan objects\n  lake/orders/{topic}/9/000000000099.parquet" in capsys.readouterr().out
    assert stray.exists()
    assert main(["table", "clean", "--config", str(config), "--older-than", "59m"]) == 0
    assert not stray.exists() and sorted(table_dir.rglob("*.parquet")) == committed
    assert_exactly_once(_table_ids(tmp_path, table_format, catalog), range(20))


def _maintained(tmp_path: Path, kafka: EmbeddedKafka, topic: str, table_format: str = "ICEBERG",
                **maintenance: str) -> dict[str, str]:
    """The table's sink props with ``table.maintenance.<key>`` settings: compaction of every partition
    at once (closed after 0), into files of at most 1 MiB."""
    settings = {"compaction.closed.after": "0", "compaction.target.file.size": str(1 << 20), **maintenance}
    prefixed = {f"connect.local.table.maintenance.{key}": value for key, value in settings.items()}
    if table_format == "ICEBERG":
        return _props(tmp_path, kafka, topic, **prefixed)
    return _delta_props(tmp_path, kafka, topic, "PARTITIONBY region", **prefixed)


def _data_files(table: Table) -> list[str]:
    return [task.file.file_path for task in table.scan().plan_files()]


def _duckdb_rows(files: list[str]) -> list[tuple[object, ...]]:
    return sorted(duckdb.sql(f"SELECT id, region, n FROM read_parquet({json.dumps(files)})").fetchall())


def test_the_sink_compacts_and_expires_between_batches_and_a_restart_resumes_at_the_tables_offsets(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    """Every batch is followed by maintenance: the small files become one per run, two snapshots
    are kept; the mark survives (snapshot and property), so the second run resumes where the first
    stopped and its batch commits on top of the compaction."""
    iceberg_catalog = _sql_catalog(tmp_path)
    props = _maintained(tmp_path, kafka, topic, **{"every.batches": "1", "snapshots.keep": "2",
                                                    "orphans.older.than": "0"})
    produce_ids(kafka, topic, range(40))
    run_sink(spark, props, tmp_path / "ck")
    table = iceberg_catalog.table()
    assert len(_data_files(table)) == 1  # 8 files of 5 records compacted into one
    assert len(table.snapshots()) == 2  # the claim and the batch expired: compaction, and the batch before it
    assert ".compacted/" in _data_files(table)[0]
    produce_ids(kafka, topic, range(40, 52))
    run_sink(spark, props, tmp_path / "ck")

    table = iceberg_catalog.table()
    assert_exactly_once(_ids(table), range(52))
    assert len(_data_files(table)) == 1 and len(table.snapshots()) == 2
    mark = mark_of(props["name"], table.current_snapshot().summary.additional_properties)
    assert mark is not None and mark.epoch == 2 and table.current_snapshot().summary.operation.value == "overwrite"
    assert dict(mark.offsets) == _locks(props, topic) == {(topic, p): 12 for p in range(PARTITIONS)}
    assert _duckdb_rows(_data_files(table)) == [(i, f"r{i % 2}", i) for i in range(52)]
    # orphan removal (grace 0) deleted the first run's 8 small files, which only expired snapshots referenced;
    # the bucket holds what the two kept snapshots read: both compacted files, the second run's 4 small ones
    on_disk = sorted(str(p) for p in (tmp_path / "store" / "bkt" / "lake" / "orders").rglob("*.parquet"))
    kept = table.inspect.all_data_files().column("file_path").to_pylist()
    assert sorted({path.removeprefix("file://") for path in kept}) == on_disk and len(on_disk) == 6
    # and the metadata folder what those two snapshots need: expired manifest lists and manifests deleted
    metadata = tmp_path / "store" / "bkt" / "lake" / "orders" / "metadata"
    assert {path.name for path in metadata.iterdir()} == needed_metadata(table)


def test_table_maintain_racing_a_sink_commit_lands_with_it_and_a_crashed_one_leaves_only_orphans(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``table maintain`` by hand is a second writer. Killed before its commit, it leaves files no
    commit references, which ``table clean`` finds. Run between a sink's read and its commit, its
    compaction lands first; the sink reads again and commits on top: every record once."""
    from pyiceberg.table import Transaction

    from lakesink.adapters.tables.iceberg_table import IcebergTable

    props = _maintained(tmp_path, kafka, topic, **{"orphans.enable": "false"})
    config = tmp_path / "sink.json"
    config.write_text(json.dumps({"name": props["name"], "config": props}))
    produce_ids(kafka, topic, range(30))
    run_sink(spark, props, tmp_path / "ck")
    small = sorted(_data_files(_table(tmp_path)))
    assert main(["table", "maintain", "--config", str(config), "--dry-run"]) == 0
    assert "would compact 8 small files into 1" in capsys.readouterr().out  # 30 records, 2 files per partition
    assert sorted(_data_files(_table(tmp_path))) == small and not (tmp_path / "store" / "bkt" / "lake" / "orders" / ".compacted").exists()

    def killed(self: Transaction) -> None:
        raise KeyboardInterrupt("killed before its commit")  # Ctrl-C: the command stops there

    with monkeypatch.context() as patch:
        patch.setattr(Transaction, "commit_transaction", killed)
        assert main(["table", "maintain", "--config", str(config)]) == 130
    assert sorted(_data_files(_table(tmp_path))) == small
    assert main(["table", "clean", "--config", str(config), "--older-than", "0", "--dry-run"]) == 0
    assert "would delete 1 orphan objects\n  lake/orders/.compacted/" in capsys.readouterr().out

    produce_ids(kafka, topic, range(30, 42))
    assert _maintained_before_the_batch_commits(spark, props, tmp_path, config, monkeypatch, IcebergTable) == [0]
    assert "compact 8 small files into 1" in capsys.readouterr().out
    table = _table(tmp_path)
    assert_exactly_once(_ids(table), range(42))
    operations = [s.summary.operation.value for s in table.snapshots()]
    assert operations[-2:] == ["overwrite", "append"]  # the compaction, then the sink's batch on top of it
    mark = mark_of(props["name"], table.current_snapshot().summary.additional_properties)
    assert mark is not None and dict(mark.offsets) == _locks(props, topic)
    assert _duckdb_rows(_data_files(table)) == [(i, f"r{i % 2}", i) for i in range(42)]


def test_the_sink_compacts_a_delta_table_with_optimize_and_its_txn_marks_survive_the_checkpoint(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    """On Delta, compaction is delta-rs's optimize (one commit per closed partition, carrying the
    epoch), expiry a checkpoint and the log clean-up: the txn offsets survive, a restart resumes."""
    props = _maintained(tmp_path, kafka, topic, "DELTA", **{"every.batches": "1", "snapshots.keep": "1",
                                                             "orphans.enable": "false"})
    produce_ids(kafka, topic, range(40))
    run_sink(spark, props, tmp_path / "ck")
    table = DeltaTable(_delta_uri(tmp_path))
    assert len(table.file_uris()) == 2  # one file per region, from 8 small ones
    assert any(path.name.endswith(".checkpoint.parquet") for path in (Path(_delta_uri(tmp_path)) / "_delta_log").iterdir())
    produce_ids(kafka, topic, range(40, 52))
    run_sink(spark, props, tmp_path / "ck")

    table = DeltaTable(_delta_uri(tmp_path))
    assert_exactly_once(_table_ids(tmp_path, "DELTA"), range(52))
    assert len(table.file_uris()) == 2
    assert table.transaction_version(epoch_app_id(props["name"])) == 2
    offsets = {(topic, p): table.transaction_version(offset_app_id(props["name"], topic, p)) for p in range(PARTITIONS)}
    assert offsets == _locks(props, topic) == {(topic, p): 12 for p in range(PARTITIONS)}


def test_table_maintain_racing_a_delta_sink_commit_lands_first_and_the_sink_commits_on_top(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """delta-rs's optimize between the sink's read and its commit: the sink's commit (no retry) fails,
    it reads the log again and commits on top; the txn offsets and every record stay exactly once."""
    from lakesink.adapters.tables.delta_table import DeltaLakeTable

    props = _maintained(tmp_path, kafka, topic, "DELTA", **{"orphans.enable": "false"})
    config = tmp_path / "sink.json"
    config.write_text(json.dumps({"name": props["name"], "config": props}))
    produce_ids(kafka, topic, range(30))
    run_sink(spark, props, tmp_path / "ck")
    produce_ids(kafka, topic, range(30, 42))
    assert _maintained_before_the_batch_commits(spark, props, tmp_path, config, monkeypatch, DeltaLakeTable) == [0]
    table = DeltaTable(_delta_uri(tmp_path))
    operations = [entry["operation"] for entry in reversed(table.history())]
    assert operations[-3:] == ["OPTIMIZE", "OPTIMIZE", "WRITE"]  # one per region, then the batch on top
    assert_exactly_once(_table_ids(tmp_path, "DELTA"), range(42))
    offsets = {(topic, p): table.transaction_version(offset_app_id(props["name"], topic, p)) for p in range(PARTITIONS)}
    assert offsets == _locks(props, topic)


def _maintained_before_the_batch_commits(
    spark: SparkSession, props: dict[str, str], tmp_path: Path, config: Path, monkeypatch: pytest.MonkeyPatch,
    table_class: type,
) -> list[int]:
    """Run the sink once with ``lakesink table maintain`` run between its batch's read of the table and
    its commit (the claim's commit, of no files, is left alone); the maintain command's exit codes."""
    real_commit = table_class.commit
    raced: list[int] = []

    def maintain_first(self: object, head: object, files: object, mark: object) -> bool:
        if files and not raced:
            raced.append(main(["table", "maintain", "--config", str(config)]))
        return real_commit(self, head, files, mark)

    with monkeypatch.context() as patch:
        patch.setattr(table_class, "commit", maintain_first)
        run_sink(spark, props, tmp_path / "ck")
    return raced
