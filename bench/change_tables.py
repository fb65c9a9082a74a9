"""What a change-table commit costs: Debezium batches applied to an Iceberg and a Delta table.

Drives lakesink's change-table commit path (the claim, then :func:`commit_to_table` per batch through
IcebergChangeTable on a SQLite catalog or DeltaChangeTable; local store or moto S3; no Kafka, no
Spark), as bench.table_maintenance drives the append path. Each table is loaded with a snapshot of N
keys, then takes batches of changes (uniform over the keys; skewed to keys inserted since the load).

    .venv/bin/python -m bench.change_tables [--keys 10000,100000,1000000] [--changes 1000,10000]
        [--repeat 3] [--store local|s3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import DeltaTable
from deltalake.exceptions import TableNotFoundError
from pyiceberg.catalog import Catalog

from bench.change_events import PARTITIONS, TOPIC, ChangeLog, WrittenObject, write_objects, write_snapshot
from bench.processes import Children
from bench.services import start_moto
from bench.table_maintenance import timed
from lakesink.adapters.demo.s3 import S3Endpoint
from lakesink.adapters.tables.change_batches import applied_changes
from lakesink.adapters.tables.delta_changes import DeltaChangeTable
from lakesink.adapters.tables.iceberg_catalogs import open_catalog
from lakesink.adapters.tables.iceberg_changes import IcebergChangeTable
from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.backends import LocalSettings, S3Settings
from lakesink.domain.config.secret import Secret
from lakesink.domain.records import Record
from lakesink.domain.tables.changes import ChangeFormat, ChangeSpec
from lakesink.domain.tables.table_commits import RangeWrite, TableClaim, claim_table, commit_to_table
from lakesink.domain.tables.table_port import DataFile, LakeTable
from lakesink.domain.tables.target import CatalogSettings, TableFormat, TableTarget

PREFIX, NAME = "crm/customers", "crm.customers"
SPEC = ChangeSpec(ChangeFormat.DEBEZIUM, ("id",))

Files = dict[str, tuple[int, int]]
"""A table version's data files: path -> (rows, bytes)."""


@dataclass(frozen=True, slots=True)
class Effect:
    """What one commit did to the table (the data files it dropped and added), and the table after it."""

    files_removed: int
    files_added: int
    rows_written: int
    bytes_written: int
    table_files: int
    table_rows: int
    table_bytes: int

    @classmethod
    def between(cls, before: Files, after: Files) -> Effect:
        added = [after[path] for path in after.keys() - before.keys()]
        return cls(
            len(before.keys() - after.keys()), len(added), sum(rows for rows, _ in added),
            sum(size for _, size in added), len(after), sum(rows for rows, _ in after.values()),
            sum(size for _, size in after.values()),
        )


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
    """One change table of ``table_format`` (its objects staged under ``root``, its table there or in
    ``s3``'s bucket ``bucket``), claimed, and the change log feeding it."""

    def __init__(self, table_format: TableFormat, root: Path, seed: int, s3: S3Endpoint | None, bucket: str) -> None:
        (root / bucket).mkdir(parents=True)
        self.root, self.bucket, self.s3, self.log = root, bucket, s3, ChangeLog(seed)
        target = TableTarget(table_format, NAME, bucket, PREFIX, changes=SPEC)
        if s3 is None:
            self.location = table_location("local", LocalSettings(root=root), bucket, PREFIX)
        else:
            s3.client().create_bucket(Bucket=bucket)
            self.location = table_location("s3", S3Settings(
                auth_mode="Credentials", access_key=Secret(s3.access_key), secret_key=Secret(s3.secret_key),
                region=s3.region, custom_endpoint=s3.url, path_style_access=True,
            ), bucket, PREFIX)
        self.catalog: Catalog | None = None
        if table_format is TableFormat.ICEBERG:
            self.catalog = open_catalog(CatalogSettings(uri=f"sqlite:///{root / 'catalog.db'}"), self.location)
            self.table: LakeTable = IcebergChangeTable(target, self.location, self.catalog)
        else:
            self.table = DeltaChangeTable(target, self.location)
        self.claim = claim_table(self.table, "bench", "run-1", [(TOPIC, p) for p in range(PARTITIONS)])

    def batch(self, kind: str, changes: int, records: list[Record],
              write: Callable[..., list[WrittenObject]]) -> Measured:
        """Write ``records`` (``changes`` changes) as change objects (uploaded to S3, untimed), then
        read, reduce and commit them, each timed."""
        staged = self.root / self.bucket
        write_s, objects = timed(lambda: write(records, staged, PREFIX))
        if self.s3 is not None:
            client = self.s3.client()
            for o in objects:
                client.upload_file(str(staged / o.key), self.bucket, o.key)
        read_s, tables = timed(lambda: [pq.read_table(staged / o.key) for o in objects])
        reduce_s, _ = timed(lambda: applied_changes(tables, SPEC, NAME))
        before = self._files()
        commit_s, claim = timed(lambda: commit_to_table(self.table, self.claim, self._ranges(objects)))
        assert isinstance(claim, TableClaim)
        self.claim = claim
        effect = Effect.between(before, self._files())
        return Measured(kind, changes, len(objects), write_s, read_s, reduce_s, commit_s, effect)

    def _ranges(self, objects: Sequence[WrittenObject]) -> list[RangeWrite]:
        """The batch's ranges, one per partition (its objects in offset order)."""
        return [
            RangeWrite((TOPIC, p), mine[0].first, mine[-1].last, tuple(DataFile(self.bucket, o.key) for o in mine))
            for p in range(PARTITIONS)
            if (mine := [o for o in objects if o.partition == p])
        ]

    def _files(self) -> Files:
        """The table's data files now, from its metadata (none before it exists)."""
        if self.catalog is not None:
            tasks = self.catalog.load_table(NAME).scan().plan_files()
            return {t.file.file_path: (t.file.record_count, t.file.file_size_in_bytes) for t in tasks}
        try:
            delta = DeltaTable(self.location.uri, storage_options=self.location.delta_storage)
        except TableNotFoundError:
            return {}
        files = pa.table(delta.get_add_actions(flatten=True)).select(["path", "num_records", "size_bytes"])
        return {path: (rows, size) for path, rows, size in zip(*(c.to_pylist() for c in files.columns), strict=True)}

    def rows(self) -> dict[int, int]:
        """The table's rows: each key's ``version``."""
        if self.catalog is not None:
            read = self.catalog.load_table(NAME).scan(selected_fields=("id", "version")).to_arrow()
        else:
            delta = DeltaTable(self.location.uri, storage_options=self.location.delta_storage)
            read = pa.table(delta.to_pyarrow_table(columns=["id", "version"]))
        return dict(zip(read.column("id").to_pylist(), read.column("version").to_pylist(), strict=True))


def run(table_format: TableFormat, keys: int, changes: Sequence[int], repeat: int, skewed: bool,
        root: Path, s3: S3Endpoint | None = None) -> list[Measured]:
    """Load a table of ``keys`` keys, then ``repeat`` uniform batches of each size in ``changes``,
    and (``skewed``) ``repeat`` skewed batches of the largest; checks the table equals the state."""
    bench = _Bench(table_format, root, keys, s3, f"{table_format.value.lower()}-{keys}")
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
    parser.add_argument("--store", choices=("local", "s3"), default="local",
                        help="s3: the tables on moto_server (its own process, 127.0.0.1)")
    args = parser.parse_args()
    sizes, changes = [int(k) for k in args.keys.split(",")], [int(c) for c in args.changes.split(",")]
    with tempfile.TemporaryDirectory() as work, Children(Path(work)) as children:
        s3 = start_moto(children).endpoint if args.store == "s3" else None
        print(HEADER, flush=True)
        for keys in sizes:
            for table_format in (TableFormat.ICEBERG, TableFormat.DELTA):
                with tempfile.TemporaryDirectory() as directory:
                    measured = run(table_format, keys, changes, args.repeat, keys == max(sizes), Path(directory), s3)
                _report(table_format, keys, measured, [("uniform", c) for c in changes] + [("skewed", max(changes))])


def _report(table_format: TableFormat, keys: int, measured: Sequence[Measured], cells: Sequence[tuple[str, int]]) -> None:
    """One line per batch, then each cell's median commit."""
    for m in measured:
        print(line(table_format, keys, m), flush=True)
    for kind, size in cells:
        cell = [m.commit_s for m in measured if (m.kind, m.changes) == (kind, size)]
        if cell:
            print(f"# {table_format.value} {keys:,d} keys, {kind} {size:,d}: median commit "
                  f"{statistics.median(cell):.2f} s", flush=True)


if __name__ == "__main__":
    main()
