"""Table maintenance's effect: an Iceberg table after N one-file batch commits, with and without it.

Drives lakesink's table commit path (the claim, then :func:`commit_to_table` per batch, through the
Iceberg adapter on a SQLite catalog and the local store: no Kafka, no Spark) N times with one tiny
Parquet file each, partitioned by ``part`` (a new value every N/10 batches, as days go by), and
prints: data files the table reads, Parquet objects stored, snapshots, metadata size, the mean
commit time of the last 100 batches, and a full scan's time through pyiceberg and DuckDB.
"With" runs :func:`maintain_table` every ``--every`` batches, then deletes what no kept snapshot
references, data and metadata files (orphan removal, grace 0: nothing else writes the table).

    .venv/bin/python -m bench.table_maintenance [--batches 1000] [--every 100] [--keep 100] [--only-with]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.table import Table

from lakesink.adapters.clock import WallClock
from lakesink.adapters.storage.local import LocalObjectStore
from lakesink.adapters.tables.iceberg_catalogs import open_catalog
from lakesink.adapters.tables.iceberg_table import IcebergTable
from lakesink.adapters.tables.locations import table_location
from lakesink.application.metadata_clean import clean_metadata
from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.tables.maintenance import MaintenanceSettings, maintain_table
from lakesink.domain.tables.orphans import is_candidate
from lakesink.domain.tables.table_commits import RangeWrite, TableClaim, claim_table, commit_to_table
from lakesink.domain.tables.table_port import DataFile
from lakesink.domain.tables.target import CatalogSettings, TableFormat, TableTarget

BUCKET, PREFIX, TOPIC = "bkt", "lake/events", "events"
ROWS = 10
"""Records per batch: each batch's file is a few KB, as a low-traffic topic's is."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The table after one run."""

    label: str
    seconds: float
    last_commits_ms: float
    data_files: int
    stored_objects: int
    snapshots: int
    metadata_files: int
    metadata_bytes: int
    scan_pyiceberg_s: float
    scan_duckdb_s: float
    rows: int


def timed(step: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = step()
    return time.perf_counter() - started, result


def run(batches: int, every: int | None, keep: int, root: Path) -> Outcome:
    """``batches`` one-file commits into a fresh table under ``root``, maintained every ``every``."""
    (root / BUCKET).mkdir(parents=True)
    target = TableTarget(TableFormat.ICEBERG, "bench.events", BUCKET, PREFIX, partition_columns=("part",))
    location = table_location("local", LocalSettings(root=root), BUCKET, PREFIX)
    table = IcebergTable(target, location, open_catalog(CatalogSettings(uri=f"sqlite:///{root / 'catalog.db'}"), location))
    claim = claim_table(table, "bench", "run-1", [(TOPIC, 0)])
    settings = MaintenanceSettings(every_batches=every, keep_snapshots=keep, closed_after_ms=0)
    started = time.perf_counter()
    recent: list[float] = []
    for batch in range(batches):
        key = f"{PREFIX}/{TOPIC}/0/{batch * ROWS:012d}.parquet"
        rows = pa.table({"id": list(range(batch * ROWS, (batch + 1) * ROWS)), "part": [batch * 10 // batches] * ROWS,
                         "payload": [f"event {i} of a low-traffic topic" for i in range(ROWS)]})
        path = root / BUCKET / key
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(rows, path)
        write = RangeWrite((TOPIC, 0), batch * ROWS, (batch + 1) * ROWS - 1, (DataFile(BUCKET, key),))
        commit_s, committed = timed(partial(commit_to_table, table, claim, [write]))
        assert isinstance(committed, TableClaim)
        claim, recent = committed, [*recent[-99:], commit_s]
        if every is not None and (batch + 1) % every == 0:
            maintain_table(table, settings, int(time.time() * 1000), connector="bench", claim=claim)
            _remove_orphans(table, root)
            clean_metadata([target], LocalObjectStore(root), lambda _target: table, WallClock(), dry_run=False,
                           grace_ms=0)
    seconds = time.perf_counter() - started
    return _measured("with" if every else "without", table, root, seconds, sum(recent) / len(recent) * 1000)


def _remove_orphans(table: IcebergTable, root: Path) -> None:
    """What ``table.maintenance.orphans`` does with grace 0: delete the Parquet objects no kept snapshot reads."""
    referenced = table.referenced()
    for path in (root / BUCKET / PREFIX).rglob("*.parquet"):
        key = path.relative_to(root / BUCKET).as_posix()
        if is_candidate(PREFIX, key) and key not in referenced:
            path.unlink()


def _measured(label: str, table: IcebergTable, root: Path, seconds: float, last_ms: float) -> Outcome:
    loaded = table.head("bench", []).version
    assert isinstance(loaded, Table)
    files = [task.file.file_path for task in loaded.scan().plan_files()]
    scan_s, scanned = timed(lambda: loaded.scan().to_arrow())
    duck_s, counted = timed(lambda: duckdb.sql(
        f"SELECT count(*), sum(id) FROM read_parquet({json.dumps([f.removeprefix('file://') for f in files])})"
    ).fetchall()[0])
    metadata = [p for p in (root / BUCKET / PREFIX / "metadata").rglob("*") if p.is_file()]
    assert isinstance(scanned, pa.Table) and isinstance(counted, tuple)
    assert counted[0] == scanned.num_rows  # DuckDB over the files reads what pyiceberg's scan reads
    return Outcome(
        label, seconds, last_ms, len(files), len(list((root / BUCKET / PREFIX).rglob("*.parquet"))),
        len(loaded.snapshots()), len(metadata), sum(p.stat().st_size for p in metadata),
        scan_s, duck_s, scanned.num_rows,
    )


def main() -> None:
    """Run without, then with maintenance, and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100, help="maintenance every this many batches")
    parser.add_argument("--keep", type=int, default=100, help="snapshots.keep")
    parser.add_argument("--only-with", action="store_true",
                        help="skip the run without maintenance (it grows quadratically: 13 minutes for 1,000 batches)")
    args = parser.parse_args()
    print(f"{args.batches} batches of one {ROWS}-record file; maintenance every {args.every}, keep {args.keep}")
    print("run      total s  commit ms (last 100)  data files  stored .parquet  snapshots  metadata files  "
          "metadata MB  scan pyiceberg s  scan DuckDB s  rows")
    for every in (args.every,) if args.only_with else (None, args.every):
        with tempfile.TemporaryDirectory() as directory:
            o = run(args.batches, every, args.keep, Path(directory))
        print(f"{o.label:<8} {o.seconds:7.1f}  {o.last_commits_ms:20.1f}  {o.data_files:10d}  {o.stored_objects:15d}  "
              f"{o.snapshots:9d}  {o.metadata_files:14d}  {o.metadata_bytes / 1e6:11.1f}  {o.scan_pyiceberg_s:16.2f}  "
              f"{o.scan_duckdb_s:13.2f}  {o.rows}", flush=True)


if __name__ == "__main__":
    main()
