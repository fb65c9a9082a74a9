"""IcebergTable on the local file system with a SQLite catalog: pyiceberg for real, read back by pyiceberg."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.formats.parquet_footer import parquet_footer
from lakesink.adapters.tables.iceberg_catalogs import open_catalog
from lakesink.adapters.tables.iceberg_table import IcebergTable
from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.errors import CommitError, TableMovedError
from lakesink.domain.tables.marks import TableMark, mark_property
from lakesink.domain.tables.table_port import DataFile, TableHead
from lakesink.domain.tables.target import CatalogSettings, TableFormat, TableTarget

P0 = ("orders", 0)


@pytest.fixture
def table(tmp_path: Path) -> IcebergTable:
    (tmp_path / "bkt").mkdir()
    location = table_location("local", LocalSettings(root=tmp_path), "bkt", "lake/orders")
    catalog = open_catalog(CatalogSettings(uri=f"sqlite:///{tmp_path / 'catalog.db'}"), location)
    return IcebergTable(TableTarget(TableFormat.ICEBERG, "shop.orders", "bkt", "lake/orders"), location, catalog)


def _file(tmp_path: Path, name: str, *, keep_footer: bool = True, **columns: list[object]) -> DataFile:
    key = f"lake/orders/{name}.parquet"
    path = tmp_path / "bkt" / key
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns), path)
    if not keep_footer:
        return DataFile("bkt", key)
    return DataFile("bkt", key, path.stat().st_size, parquet_footer(path))


def _rows(table: IcebergTable) -> list[dict[str, object]]:
    loaded = table.head("sink", [P0]).version
    assert loaded is not None
    return sorted(loaded.scan().to_arrow().to_pylist(), key=lambda row: str(row))  # type: ignore[attr-defined]


def test_a_commit_based_on_a_stale_head_is_refused_and_not_rebased(table: IcebergTable, tmp_path: Path) -> None:
    """pyiceberg 0.12 would rebase it onto the new head by itself; the sink must decide again."""
    table.commit(table.head("sink", [P0]), [_file(tmp_path, "a", id=[1])], TableMark("sink", "run-1", 1, {P0: 0}))
    stale = table.head("sink", [P0])
    table.commit(table.head("sink", [P0]), (), TableMark("sink", "run-2", 2, {P0: 0}))  # a newer run's claim

    with pytest.raises(TableMovedError, match="moved since it was read"):
        table.commit(stale, [_file(tmp_path, "b", id=[2])], TableMark("sink", "run-1", 1, {P0: 1}))

    assert _rows(table) == [{"id": 1}]
    assert table.head("sink", [P0]).mark == TableMark("sink", "run-2", 2, {P0: 0})


def test_files_whose_footers_were_not_kept_are_read_back_from_the_store(table: IcebergTable, tmp_path: Path) -> None:
    files = [_file(tmp_path, "a", keep_footer=False, id=[1, 2]), _file(tmp_path, "b", id=[3])]
    table.commit(table.head("sink", [P0]), files, TableMark("sink", "run-1", 1, {P0: 2}))
    assert _rows(table) == [{"id": 1}, {"id": 2}, {"id": 3}]


def test_an_int_column_widens_to_long_and_a_string_where_a_number_was_is_refused(
    table: IcebergTable, tmp_path: Path
) -> None:
    table.commit(table.head("sink", [P0]), [_file(tmp_path, "a", n=pa.array([1], pa.int32()))],
                 TableMark("sink", "r", 1, {P0: 0}))
    table.commit(table.head("sink", [P0]), [_file(tmp_path, "b", n=pa.array([2**40], pa.int64()))],
                 TableMark("sink", "r", 1, {P0: 1}))
    assert {row["n"] for row in _rows(table)} == {1, 2**40}
    with pytest.raises(CommitError, match="Iceberg table shop.orders cannot take the columns"):
        table.commit(table.head("sink", [P0]), [_file(tmp_path, "c", n=["three"])], TableMark("sink", "r", 1, {P0: 2}))


def test_the_mark_is_found_in_the_table_property_when_its_snapshots_expired(table: IcebergTable, tmp_path: Path) -> None:
    table.commit(table.head("sink", [P0]), [_file(tmp_path, "a", id=[1])], TableMark("sink", "run-1", 3, {P0: 0}))
    loaded = table.head("sink", [P0]).version
    assert loaded is not None
    # another writer's snapshot after ours, then ours expired (as compaction + expire_snapshots would)
    loaded.append(pa.table({"id": pa.array([9], pa.int64())}))  # type: ignore[attr-defined]
    loaded = table.head("sink", [P0]).version
    ours = [s.snapshot_id for s in loaded.snapshots() if "lakesink.connector" in s.summary.additional_properties]  # type: ignore[attr-defined]
    loaded.maintenance.expire_snapshots().by_ids(ours).commit()  # type: ignore[attr-defined]

    head = table.head("sink", [P0])
    assert head.mark == TableMark("sink", "run-1", 3, {P0: 0})
    assert mark_property("sink") in head.version.properties  # type: ignore[union-attr]


def test_an_absent_table_has_no_head_and_a_claim_creates_it_empty(table: IcebergTable) -> None:
    assert table.head("sink", [P0]) == TableHead(None, None)
    assert table.commit(TableHead(None, None), (), TableMark("sink", "run-1", 1, {}))
    assert table.head("sink", [P0]).mark == TableMark("sink", "run-1", 1, {})
