"""Maintenance deletes the Iceberg metadata files no kept version needs: pyiceberg for real on the
local store with a SQLite catalog (no Kafka, no Spark). The table still reads, by pyiceberg and by
DuckDB over its files, at its head and at every kept snapshot; a commit landing while the folder is
cleaned keeps its files.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.table import Table

from lakesink.adapters.storage.local import LocalObjectStore
from lakesink.adapters.tables.opening import table_opener
from lakesink.application.metadata_clean import clean_metadata
from lakesink.application.table_maintain import maintain_tables
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.statement_plan import plan_sink
from lakesink.domain.tables.metadata_orphans import MetadataReferences
from lakesink.domain.tables.table_commits import RangeWrite, TableClaim, claim_table, commit_to_table
from lakesink.domain.tables.table_port import DataFile, LakeTable
from tests.support.clocks import ManualClock
from tests.support.iceberg_metadata import needed_metadata

pytestmark = [pytest.mark.integration]

TOPIC, ROWS, NOW_MS = "orders", 5, 1_795_651_200_000
METADATA = ("bkt", "lake", "orders", "metadata")


class _Sink:
    """lakesink's commit path into the table of a local config: one five-row file per batch."""

    def __init__(self, tmp_path: Path, **maintenance: str) -> None:
        (tmp_path / "bkt").mkdir()
        self.root = tmp_path
        self.settings = ConnectorSettings.from_properties({
            "name": "sink", "topics": TOPIC, "connect.local.root": str(tmp_path),
            "connect.local.table.catalog.uri": f"sqlite:///{tmp_path / 'catalog.db'}",
            "connect.local.kcql": f"INSERT INTO bkt:lake/orders SELECT * FROM {TOPIC} STOREAS `PARQUET` "
                                  "PROPERTIES('table.format'='ICEBERG', 'table.name'='shop.orders')",
            **{f"connect.local.table.maintenance.{key}": value for key, value in maintenance.items()},
        })
        self.store = LocalObjectStore(tmp_path)
        self.open = table_opener(self.settings)
        [self.target] = plan_sink(self.settings).tables
        self.table = self.open(self.target)
        self.batches = 0
        self._claim: TableClaim | None = None

    def commit(self) -> None:
        """One more batch committed as the sink commits it."""
        self._claim = self._claim or claim_table(self.table, "sink", "run-1", [(TOPIC, 0)])
        first = self.batches * ROWS
        key = f"lake/orders/{TOPIC}/0/{first:012d}.parquet"
        (self.root / "bkt" / key).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"id": list(range(first, first + ROWS))}), self.root / "bkt" / key)
        write = RangeWrite((TOPIC, 0), first, first + ROWS - 1, (DataFile("bkt", key),))
        self._claim = commit_to_table(self.table, self._claim, [write])
        self.batches += 1

    def loaded(self) -> Table:
        table = self.table.head("sink", []).version
        assert isinstance(table, Table)
        return table

    def metadata_files(self) -> set[str]:
        return {p.name for p in self.root.joinpath(*METADATA).iterdir()}


def _ids(table: Table, snapshot_id: int | None = None) -> list[int]:
    """The ids pyiceberg's scan reads, checked against DuckDB reading the scan's files."""
    scan = table.scan(snapshot_id=snapshot_id)
    files = [task.file.file_path.removeprefix("file://") for task in scan.plan_files()]
    ids = sorted(scan.to_arrow().column("id").to_pylist())
    assert sorted(i for (i,) in duckdb.sql(f"SELECT id FROM read_parquet({json.dumps(files)})").fetchall()) == ids
    return ids


def test_maintenance_deletes_the_metadata_no_kept_version_needs_and_the_table_reads_at_every_kept_snapshot(
    tmp_path: Path,
) -> None:
    """A table another program created (no ``delete-after-commit``; a metadata log of 2): after 8
    batches and expiry to 3 snapshots, the folder holds what those need and nothing else."""
    sink = _Sink(tmp_path, **{"snapshots.keep": "3", "orphans.older.than": "0"})
    catalog = SqlCatalog("lakesink", uri=f"sqlite:///{tmp_path / 'catalog.db'}")
    catalog.create_namespace("shop")
    catalog.create_table("shop.orders", Schema(), location=(tmp_path / "bkt" / "lake" / "orders").as_uri(),
                         properties={"write.metadata.previous-versions-max": "2"})
    for _ in range(8):
        sink.commit()
    before = sink.metadata_files()
    assert len([name for name in before if name.endswith(".metadata.json")]) == 10  # created, claim, 8 batches

    [dry] = maintain_tables(sink.settings, sink.store, sink.open, ManualClock(NOW_MS), dry_run=True)
    assert len(dry.metadata) == 7 and sink.metadata_files() == before  # the 7 metadata.json out of the log
    [report] = maintain_tables(sink.settings, sink.store, sink.open, ManualClock(NOW_MS), dry_run=False)

    table = sink.loaded()
    assert report.expired == 6 and len(table.snapshots()) == 3
    assert sink.metadata_files() == needed_metadata(table)
    assert len(report.metadata) == len(before) + 1 - len(needed_metadata(table))  # + 1: the expiry's metadata.json
    assert len([name for name in sink.metadata_files() if name.endswith(".metadata.json")]) == 3
    assert _ids(table) == list(range(8 * ROWS))
    for snapshot, batches in zip(table.snapshots(), (6, 7, 8), strict=True):  # time travel to each kept one
        assert _ids(table, snapshot.snapshot_id) == list(range(batches * ROWS))


class _CommitsWhileCleaning:
    """The table, but a sink's batch lands right after its metadata is read: after the folder's listing,
    before the deletion."""

    def __init__(self, sink: _Sink) -> None:
        self._sink = sink
        self.name = sink.table.name

    def metadata_references(self) -> MetadataReferences | None:
        references = self._sink.table.metadata_references()  # type: ignore[attr-defined]
        self._sink.commit()
        assert isinstance(references, MetadataReferences | None)
        return references


def test_a_commit_landing_between_the_listing_and_the_deletion_keeps_its_files(tmp_path: Path) -> None:
    sink = _Sink(tmp_path, **{"snapshots.keep": "2", "orphans.enable": "false"})
    for _ in range(4):
        sink.commit()
    [expired] = maintain_tables(sink.settings, sink.store, sink.open, ManualClock(NOW_MS), dry_run=False)
    assert expired.expired == 3 and expired.metadata == ()  # the claim and two batches; their files left behind
    unneeded = sink.metadata_files() - needed_metadata(sink.loaded())
    racing: LakeTable = _CommitsWhileCleaning(sink)  # type: ignore[assignment]
    [cleaned] = clean_metadata([sink.target], sink.store, lambda target: racing, ManualClock(NOW_MS),
                               dry_run=False, grace_ms=0)
    table = sink.loaded()
    assert {key.rsplit("/", 1)[1] for key in cleaned.orphans} == unneeded and len(unneeded) == 3  # manifest lists
    assert sink.metadata_files() == needed_metadata(table)  # the racing batch's manifest list, manifest, metadata.json kept
    assert len(table.snapshots()) == 3 and _ids(table) == list(range(5 * ROWS))


def test_tables_lakesink_creates_drop_the_metadata_json_files_that_fall_out_of_their_log(tmp_path: Path) -> None:
    """``write.metadata.delete-after-commit.enabled``: pyiceberg deletes them at each commit, maintained or not."""
    sink = _Sink(tmp_path)
    sink.commit()
    table = sink.loaded()
    assert table.properties["write.metadata.delete-after-commit.enabled"] == "true"
    with table.transaction() as transaction:
        transaction.set_properties({"write.metadata.previous-versions-max": "2"})
    for _ in range(4):
        sink.commit()
    table = sink.loaded()
    assert sorted(name for name in sink.metadata_files() if name.endswith(".metadata.json")) == sorted(
        path.rsplit("/", 1)[1] for path in (table.metadata_location, *(e.metadata_file for e in table.metadata.metadata_log)))
    assert len(table.metadata.metadata_log) == 2
