"""Freshness through an Iceberg table (issue 37): when a record becomes readable in a committed snapshot.

:class:`TableProbe` loads the table from its catalog every second (pyiceberg, one loadTable) and, for
each snapshot it has not seen, reads the ``created_at`` column (the produce time) of the data files that
snapshot added, found through its manifests. A record is readable from the poll that first showed its
snapshot, so up to one second late, as :class:`bench.streaming_probes.FreshnessProbe` sees objects.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
import pyarrow.parquet as pq
from pyiceberg.manifest import ManifestEntryStatus

from bench.streaming_metrics import freshness_ms
from bench.streaming_probes import POLL_S, PollingProbe
from bench.table_metrics import SeenSnapshot

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table
    from pyiceberg.table.snapshots import Snapshot

STAMP_COLUMN = "created_at"


class TableProbe(PollingProbe):
    """Polls ``identifier`` in ``catalog`` every second; reads each new snapshot's added files' produce
    times (see the module)."""

    def __init__(self, catalog: Catalog, identifier: str) -> None:
        super().__init__("table-freshness")
        self._catalog, self._identifier = catalog, identifier
        self._known: set[int] = set()
        self.snapshots: list[SeenSnapshot] = []
        self.rows_before = 0
        """Rows in the table when the step began (the warm-up's)."""

    def ignore_existing(self, rows: int, timeout_s: float) -> None:
        """Wait until the table holds ``rows`` (the warm-up's records, which a sink may report committed
        before its snapshot is in the catalog) and skip the snapshots it has then.

        Raises:
            TimeoutError: the table did not hold them within ``timeout_s``.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            table = self._catalog.load_table(self._identifier)
            current = table.current_snapshot()
            self.rows_before = _total_records(current) if current is not None else 0
            if self.rows_before >= rows:
                self._known.update(s.snapshot_id for s in table.snapshots())
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self._identifier} holds {self.rows_before:,} of the warm-up's {rows:,} records "
                                   f"after {timeout_s:.0f} s")
            time.sleep(POLL_S)

    def _poll(self) -> None:
        table = self._catalog.load_table(self._identifier)
        seen_ms = time.time() * 1000
        for snapshot in sorted(table.snapshots(), key=lambda s: s.timestamp_ms):
            if snapshot.snapshot_id not in self._known:
                self._known.add(snapshot.snapshot_id)
                self._read(table, snapshot, seen_ms)

    def holds(self, produced: int) -> bool:
        """Whether the newest snapshot seen holds all ``produced`` records: the Iceberg connector's workers
        commit their group's offsets before the coordinator's table commit."""
        newest = max((s.total_records for s in self.snapshots), default=self.rows_before)
        return newest >= produced

    def _read(self, table: Table, snapshot: Snapshot, seen_ms: float) -> None:
        added = [entry.data_file.file_path
                 for manifest in snapshot.manifests(table.io) if manifest.added_snapshot_id == snapshot.snapshot_id
                 for entry in manifest.fetch_manifest_entry(table.io) if entry.status == ManifestEntryStatus.ADDED]
        produced = [pq.read_table(table.io.new_input(path).open(), columns=[STAMP_COLUMN]).column(STAMP_COLUMN)
                    .to_numpy() for path in added]
        stamps = np.concatenate(produced) if produced else np.zeros(0)
        self.freshness.append(freshness_ms(seen_ms, stamps))
        self.snapshots.append(SeenSnapshot(snapshot.snapshot_id, snapshot.timestamp_ms, seen_ms, len(stamps),
                                           _total_records(snapshot)))
        self.records += len(stamps)
        self.objects += len(added)


def _total_records(snapshot: Snapshot) -> int:
    summary = snapshot.summary
    return 0 if summary is None else int(summary.additional_properties.get("total-records", 0))
