"""IcebergChangeTable's copy-on-write on a real pyiceberg table (SQLite catalog, local files): a batch
replaces the files holding its changed keys, one file per partition, and leaves the others alone."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import Table
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import LongType, NestedField, StringType

from lakesink.adapters.tables.iceberg_catalogs import open_catalog
from lakesink.adapters.tables.iceberg_changes import IcebergChangeTable
from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.tables.changes import ChangeFormat, ChangeSpec
from lakesink.domain.tables.marks import TableMark
from lakesink.domain.tables.table_port import DataFile
from lakesink.domain.tables.target import CatalogSettings, TableFormat, TableTarget

ROW = pa.struct([("region", pa.string()), ("id", pa.int64()), ("name", pa.string())])
VALUE = pa.struct([("before", ROW), ("after", ROW), ("op", pa.string()), ("ts_ms", pa.int64())])
METADATA = pa.struct([("timestamp", pa.int64()), ("topic", pa.string()), ("partition", pa.int32()), ("offset", pa.int64())])
SCHEMA = Schema(NestedField(1, "region", StringType()), NestedField(2, "id", LongType()), NestedField(3, "name", StringType()))
ARROW = pa.schema([("region", pa.large_string()), ("id", pa.int64()), ("name", pa.large_string())])


@pytest.fixture
def setup(tmp_path: Path) -> tuple[IcebergChangeTable, Table, Path]:
    """A table partitioned by region that another writer filled: two files per region."""
    (tmp_path / "bkt").mkdir()
    location = table_location("local", LocalSettings(root=tmp_path), "bkt", "lake/people")
    catalog = open_catalog(CatalogSettings(uri=f"sqlite:///{tmp_path / 'catalog.db'}"), location)
    catalog.create_namespace("crm")
    spec = PartitionSpec(PartitionField(source_id=1, field_id=1000, transform=IdentityTransform(), name="region"))
    table = catalog.create_table("crm.people", SCHEMA, location=location.uri, partition_spec=spec)
    for first in (0, 10):
        rows = [{"region": region, "id": first + n, "name": f"{region}-{first + n}"} for region in ("eu", "us") for n in range(3)]
        table.append(pa.Table.from_pylist(rows, ARROW))
    target = TableTarget(TableFormat.ICEBERG, "crm.people", "bkt", "lake/people",
                         changes=ChangeSpec(ChangeFormat.DEBEZIUM, ("region", "id")))
    return IcebergChangeTable(target, location, catalog), table, tmp_path


def _change_log(tmp_path: Path, events: list[tuple[str, dict[str, object] | None]]) -> DataFile:
    """One change object of Debezium events (op, after) at offsets 0.."""
    envelopes = pa.table({
        "value": pa.array([{"before": None, "after": after, "op": op, "ts_ms": None} for op, after in events], VALUE),
        "metadata": pa.array([{"timestamp": 1, "topic": "people", "partition": 0, "offset": n} for n in range(len(events))],
                             METADATA),
    })
    key = "lake/people/people/0/000000000009.parquet"
    (tmp_path / "bkt" / key).parent.mkdir(parents=True)
    pq.write_table(envelopes, tmp_path / "bkt" / key)
    return DataFile("bkt", key)


def _files(table: Table) -> dict[str, set[str]]:
    files: dict[str, set[str]] = {}
    for task in table.scan().plan_files():
        files.setdefault(task.file.partition[0], set()).add(task.file.file_path)
    return files


def test_a_batch_replaces_only_the_files_of_its_keys_one_file_per_partition(
    setup: tuple[IcebergChangeTable, Table, Path],
) -> None:
    changes, table, tmp_path = setup
    before = _files(table)
    log = _change_log(tmp_path, [
        ("u", {"region": "eu", "id": 1, "name": "renamed"}),  # in the first eu file
        ("d", {"region": "eu", "id": 12, "name": None}),  # in the second eu file (a delete names its key)
        ("c", {"region": "eu", "id": 99, "name": "new"}),
        ("d", {"region": "us", "id": 1, "name": None}),  # the same id in another region: a key of two columns
    ])
    mark = TableMark("sink", "run", 1, {("people", 0): 3})
    assert changes.commit(changes.head("sink", [("people", 0)]), [log], mark)

    table = table.refresh()
    rows = {(row["region"], row["id"]): row["name"] for row in table.scan().to_arrow().to_pylist()}
    assert rows == {
        **{(region, first + n): f"{region}-{first + n}" for region in ("eu", "us") for first in (0, 10) for n in range(3)
           if (region, first + n) not in {("eu", 12), ("us", 1)}},
        ("eu", 1): "renamed", ("eu", 99): "new",
    }
    after = _files(table)
    rewritten = after["eu"] - before["eu"]
    assert len(rewritten) == 2 and not after["eu"] & before["eu"]  # the kept rows in one file, the append in another
    assert any("-changes.parquet" in path for path in rewritten)
    assert len(after["us"] - before["us"]) == 1 and len(before["us"] - after["us"]) == 1  # only the file with us/1
