"""What a change-table commit costs: Debezium batches applied to an Iceberg and a Delta table.

Drives lakesink's change-table commit path (the claim, then :func:`commit_to_table` per batch through
IcebergChangeTable on a SQLite catalog or DeltaChangeTable, on the local store; no Kafka, no Spark),
as bench.table_maintenance drives the append path. Each table is loaded with a snapshot of N keys,
then takes batches of changes (uniform over the keys, or skewed to keys inserted since the load).

    .venv/bin/python -m bench.change_tables [--keys 10000,100000,1000000] [--changes 1000,10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake import DeltaTable
from pyiceberg.catalog import Catalog

from bench.change_events import PARTITIONS, TOPIC, ChangeLog, WrittenObject, write_objects, write_snapshot
from bench.table_maintenance import timed
from lakesink.adapters.tables.change_batches import applied_changes
from lakesink.adapters.tables.delta_changes import DeltaChangeTable
from lakesink.adapters.tables.iceberg_catalogs import open_catalog
from lakesink.adapters.tables.iceberg_changes import IcebergChangeTable
from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.records import Record
from lakesink.domain.tables.changes import ChangeFormat, ChangeSpec
from lakesink.domain.tables.table_commits import RangeWrite, TableClaim, claim_table, commit_to_table
from lakesink.domain.tables.table_port import DataFile, LakeTable
from lakesink.domain.tables.target import CatalogSettings, TableFormat, TableTarget

BUCKET, PREFIX, NAME = "lake", "crm/customers", "crm.customers"
SPEC = ChangeSpec(ChangeFormat.DEBEZIUM, ("id",))


@dataclass(frozen=True, slots=True)
class Effect:
    """What one commit did to the table, from its own metadata, and the table after it."""

    files_removed: int
    files_added: int
    rows_written: int
    bytes_written: int
    table_files: int
    table_rows: int
    table_bytes: int


@dataclass(frozen=True, slots=True)
class Measured:
    """One batch: its objects, the time of each step, and the commit's effect."""

    kind: str
    changes: int
    objects: int
    write_s: float
    read_s: float
    reduce_s: float
    commit_s: float
    effect: Effect


class _Bench:
    """One change table of ``table_format`` under ``root``, claimed, and the change log feeding it."""

    def __init__(self, table_format: TableFormat, root: Path, seed: int) -> None:
        (root / BUCKET).mkdir(parents=True)
        self.root, self.format, self.log = root, table_format, ChangeLog(seed)
        target = TableTarget(table_format, NAME, BUCKET, PREFIX, changes=SPEC)
        self.location = table_location("local", LocalSettings(root=root), BUCKET, PREFIX)
        self.catalog: Catalog | None = None
        if table_format is TableFormat.ICEBERG:
            self.catalog = open_catalog(CatalogSettings(uri=f"sqlite:///{root / 'catalog.db'}"), self.location)
            self.table: LakeTable = IcebergChangeTable(target, self.location, self.catalog)
        else:
            self.table = DeltaChangeTable(target, self.location)
        self.claim = claim_table(self.table, "bench", "run-1", [(TOPIC, p) for p in range(PARTITIONS)])

    def batch(self, kind: str, changes: int, records: list[Record],
              write: Callable[..., list[WrittenObject]]) -> Measured:
        """Write ``records`` (``changes`` changes) as change objects, then read, reduce and commit them,
        each timed."""
        write_s, objects = timed(lambda: write(records, self.root / BUCKET, PREFIX))
        paths = [self.root / BUCKET / o.key for o in objects]
        read_s, tables = timed(lambda: [pq.read_table(path) for path in paths])
        reduce_s, _ = timed(lambda: applied_changes(tables, SPEC, NAME))
        before = self._iceberg_snapshot()
        commit_s, claim = timed(lambda: commit_to_table(self.table, self.claim, _ranges(objects)))
        assert isinstance(claim, TableClaim)
        self.claim = claim
        return Measured(kind, changes, len(objects), write_s, read_s, reduce_s, commit_s, self._effect(before))

    def _iceberg_snapshot(self) -> int | None:
        if self.catalog is None:
            return None
        snapshot = self.catalog.load_table(NAME).current_snapshot() if self.catalog.table_exists(NAME) else None
        return None if snapshot is None else snapshot.snapshot_id

    def _effect(self, before: int | None) -> Effect:
        if self.catalog is not None:
            return iceberg_effect(self.catalog, before)
        return delta_effect(DeltaTable(self.location.uri))

    def rows(self) -> dict[int, int]:
        """The table's rows: each key's ``version``."""
        if self.catalog is not None:
            read = self.catalog.load_table(NAME).scan(selected_fields=("id", "version")).to_arrow()
        else:
            read = DeltaTable(self.location.uri).to_pyarrow_table(columns=["id", "version"])
        return dict(zip(read.column("id").to_pylist(), read.column("version").to_pylist(), strict=True))


def _ranges(objects: Sequence[WrittenObject]) -> list[RangeWrite]:
    """The batch's ranges, one per partition (its objects in offset order)."""
    return [
        RangeWrite((TOPIC, partition), mine[0].first, mine[-1].last, tuple(DataFile(BUCKET, o.key) for o in mine))
        for partition in range(PARTITIONS)
        if (mine := [o for o in objects if o.partition == partition])
    ]


def iceberg_effect(catalog: Catalog, before: int | None) -> Effect:
    """The snapshots a commit added after ``before`` (a delete and an append), summed."""
    table = catalog.load_table(NAME)
    current = table.current_snapshot()
    assert current is not None and current.summary is not None
    added, snapshot = [], current
    while snapshot is not None and snapshot.snapshot_id != before:
        assert snapshot.summary is not None
        added.append(snapshot.summary)
        snapshot = table.snapshot_by_id(snapshot.parent_snapshot_id) if snapshot.parent_snapshot_id else None

    def total(name: str) -> int:
        return sum(int(summary.get(name) or 0) for summary in added)

    return Effect(
        total("deleted-data-files"), total("added-data-files"), total("added-records"), total("added-files-size"),
        int(current.summary["total-data-files"]), int(current.summary["total-records"]),
        int(current.summary["total-files-size"]),
    )


def delta_effect(table: DeltaTable) -> Effect:
    """The newest commit's ``add`` and ``remove`` actions (the Delta log entry), and the table's files."""
    log = Path(table.table_uri.removeprefix("file://")) / "_delta_log" / f"{table.version():020d}.json"
    actions = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    added = [action["add"] for action in actions if "add" in action]
    files = pa.table(table.get_add_actions(flatten=True))
    return Effect(
        sum(1 for action in actions if "remove" in action), len(added),
        sum(json.loads(add["stats"])["numRecords"] for add in added), sum(add["size"] for add in added),
        files.num_rows, pc.sum(files.column("num_records")).as_py(), pc.sum(files.column("size_bytes")).as_py(),
    )


def run(table_format: TableFormat, keys: int, changes: Sequence[int], repeat: int, skewed: bool,
        root: Path) -> list[Measured]:
    """Load a table of ``keys`` keys, then ``repeat`` uniform batches of each size in ``changes``,
    and (``skewed``) ``repeat`` skewed batches of the largest; checks the table equals the state."""
    bench = _Bench(table_format, root, seed=keys)
    measured = [bench.batch("load", keys, bench.log.snapshot(keys), write_snapshot)]
    for size in changes:
        measured += [bench.batch("uniform", size, bench.log.uniform(size), write_objects) for _ in range(repeat)]
    if skewed:
        size = max(changes)
        measured += [bench.batch("skewed", size, bench.log.skewed(size), write_objects) for _ in range(repeat)]
    expected = {key: row["version"] for key, row in bench.log.state.items()}
    assert bench.rows() == expected, f"{table_format.value} table differs from the changes' state"
    return measured


HEADER = ("format  keys       kind     changes  objects  write s  read s  reduce s  commit s  us/change  "
          "files -/+  rows written  MB written  table files  table rows  table MB")


def line(table_format: TableFormat, keys: int, m: Measured) -> str:
    e = m.effect
    return (f"{table_format.value:<7} {keys:<10,d} {m.kind:<8} {m.changes:7,d}  {m.objects:7d}  {m.write_s:7.2f}  "
            f"{m.read_s:6.2f}  {m.reduce_s:8.2f}  {m.commit_s:8.2f}  {m.commit_s / m.changes * 1e6:9.0f}  "
            f"{e.files_removed:4d}/{e.files_added:<4d}  {e.rows_written:12,d}  {e.bytes_written / 1e6:10.1f}  "
            f"{e.table_files:11d}  {e.table_rows:10,d}  {e.table_bytes / 1e6:8.1f}")


def main() -> None:
    """Every table size, for Iceberg then Delta: one line per batch, then the median commit per cell."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", default="10000,100000,1000000", help="table sizes (keys loaded)")
    parser.add_argument("--changes", default="1000,10000", help="batch sizes (changes per batch)")
    parser.add_argument("--repeat", type=int, default=3, help="batches per size")
    args = parser.parse_args()
    sizes, changes = [int(k) for k in args.keys.split(",")], [int(c) for c in args.changes.split(",")]
    print(HEADER, flush=True)
    for keys in sizes:
        for table_format in (TableFormat.ICEBERG, TableFormat.DELTA):
            with tempfile.TemporaryDirectory() as directory:
                measured = run(table_format, keys, changes, args.repeat, keys == max(sizes), Path(directory))
            for m in measured:
                print(line(table_format, keys, m), flush=True)
            for kind, size in [("uniform", c) for c in changes] + [("skewed", max(changes))]:
                cell = [m.commit_s for m in measured if (m.kind, m.changes) == (kind, size)]
                if cell:
                    print(f"# {table_format.value} {keys:,d} keys, {kind} {size:,d}: median commit "
                          f"{statistics.median(cell):.2f} s", flush=True)


if __name__ == "__main__":
    main()
