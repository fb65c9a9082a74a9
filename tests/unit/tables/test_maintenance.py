"""Table maintenance's decisions and protocol (lakesink.domain.tables.maintenance), on plain values."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from lakesink.domain.errors import CommitConflictError, CommitError, ConfigError, TableMovedError
from lakesink.domain.tables.maintenance import (
    MaintenanceSettings,
    SnapshotInfo,
    TableFile,
    age_ms,
    compacted_key,
    compaction_groups,
    maintain_table,
    snapshots_to_expire,
)
from lakesink.domain.tables.marks import TableMark
from lakesink.domain.tables.table_commits import TableClaim
from lakesink.domain.tables.table_port import TableHead

HOUR = 3_600_000


def test_a_run_is_due_every_n_batches_or_after_the_interval_and_never_when_off() -> None:
    assert not MaintenanceSettings().enabled
    assert not MaintenanceSettings().due(10_000, 10**12)
    by_count = MaintenanceSettings(every_batches=3)
    assert [by_count.due(n, 0) for n in (1, 2, 3, 4)] == [False, False, True, True]
    by_time = MaintenanceSettings(interval_ms=HOUR)
    assert (by_time.due(1, HOUR - 1), by_time.due(1, HOUR)) == (False, True)


def test_expiry_keeps_the_newest_n_and_the_protected_and_beyond_them_only_the_old_enough() -> None:
    snapshots = [SnapshotInfo(i, i * HOUR) for i in range(1, 11)] + [SnapshotInfo(99, 0, protected=True)]
    assert snapshots_to_expire(snapshots, MaintenanceSettings(keep_snapshots=3), now_ms=10 * HOUR) == [1, 2, 3, 4, 5, 6, 7]
    aged = MaintenanceSettings(keep_snapshots=3, max_snapshot_age_ms=5 * HOUR)
    assert snapshots_to_expire(snapshots, aged, now_ms=10 * HOUR) == [1, 2, 3, 4, 5]
    assert snapshots_to_expire(snapshots[:2], MaintenanceSettings(keep_snapshots=3), now_ms=10 * HOUR) == []


def _file(key: str, size: int, partition: tuple[object, ...] = (), added_ms: int = 0) -> TableFile:
    return TableFile(key, size, partition, added_ms)


def test_compaction_packs_the_small_files_of_closed_partitions_in_key_order_up_to_the_target() -> None:
    settings = MaintenanceSettings(target_file_bytes=100, closed_after_ms=HOUR)
    files = [
        _file("t/eu/3.parquet", 40, ("eu",)), _file("t/eu/1.parquet", 40, ("eu",)),
        _file("t/eu/2.parquet", 40, ("eu",)), _file("t/eu/4.parquet", 100, ("eu",)),  # at the target: left alone
        _file("t/us/1.parquet", 10, ("us",)), _file("t/us/2.parquet", 10, ("us",), added_ms=9 * HOUR + 1),  # open
        _file("t/fr/1.parquet", 10, ("fr",)),  # alone: nothing to merge it with
    ]
    groups = compaction_groups(files, settings, now_ms=10 * HOUR)
    assert [[f.key for f in group] for group in groups] == [["t/eu/1.parquet", "t/eu/2.parquet"]]
    assert compaction_groups(files, MaintenanceSettings(target_file_bytes=0), now_ms=10 * HOUR) == []


def test_a_group_is_named_by_the_keys_it_holds_under_the_tables_prefix() -> None:
    one, two = _file("t/a.parquet", 1), _file("t/b.parquet", 1)
    assert compacted_key("t/", [one, two]) == compacted_key("t", [two, one])
    assert compacted_key("t", [one, two]).startswith("t/.compacted/")
    assert compacted_key("t", [one, two]) != compacted_key("t", [one])


def test_an_age_is_n_and_a_unit_and_a_bad_one_names_the_setting() -> None:
    assert (age_ms("x", "90s"), age_ms("x", "3d"), age_ms("x", "0")) == (90_000, 3 * 24 * HOUR, 0)
    with pytest.raises(ConfigError, match="connect.s3.table.maintenance.interval: invalid age '5'"):
        age_ms("connect.s3.table.maintenance.interval", "5")


MARK = TableMark("sink", "run-1", 2, {("t", 0): 41})


class _Table:
    """A table in memory that a sink commits to ``moves`` times between a read and the maintenance commit."""

    name = "ns.t"

    def __init__(self, *, moves: int = 0, mark: TableMark | None = MARK) -> None:
        self.version, self.moves, self.mark = 0, moves, mark
        self.files_ = [_file("t/0.parquet", 1), _file("t/1.parquet", 1)]
        self.expired: list[int] = []
        self.committed: list[tuple[int, TableMark | None]] = []

    def head(self, connector: str, partitions: Sequence[tuple[str, int]]) -> TableHead:
        return TableHead(self.version, self.mark)

    def snapshots(self, head: TableHead) -> list[SnapshotInfo]:
        return [SnapshotInfo(1, 0), SnapshotInfo(2, 1)]

    def files(self, head: TableHead) -> list[TableFile]:
        return list(self.files_)

    def expire(self, head: TableHead, ids: Sequence[int]) -> None:
        self.expired.extend(ids)

    def compact(self, head: TableHead, groups: Sequence[Sequence[TableFile]], mark: TableMark | None) -> int:
        if self.moves:
            self.moves -= 1
            self.version += 1
            raise TableMovedError("a sink committed")
        self.committed.append((len(groups), mark))
        return len(groups)


SETTINGS = MaintenanceSettings(every_batches=1, keep_snapshots=1, target_file_bytes=10, closed_after_ms=0)


def test_a_run_by_the_sink_carries_its_claims_mark_and_reads_again_when_the_table_moved() -> None:
    table = _Table(moves=2)
    report = maintain_table(table, SETTINGS, 5, connector="sink", claim=TableClaim(MARK))
    assert (report.expired, report.compacted, report.written) == (1, 2, 1)
    assert table.committed == [(1, MARK)] and table.expired == [1]


def test_a_newer_claim_stops_the_sinks_maintenance_fenced() -> None:
    table = _Table(mark=TableMark("sink", "run-2", 3, MARK.offsets))
    with pytest.raises(CommitConflictError, match="claimed by another run"):
        maintain_table(table, SETTINGS, 5, connector="sink", claim=TableClaim(MARK))
    assert table.committed == [] and table.expired == []


def test_by_hand_it_carries_the_newest_mark_as_found_and_gives_up_when_the_sink_keeps_committing() -> None:
    table = _Table(moves=1)
    maintain_table(table, SETTINGS, 5, connector="sink", claim=None)
    assert table.committed == [(1, MARK)]
    busy = _Table(moves=100)
    with pytest.raises(CommitError, match="gave up after 3 reads"):
        maintain_table(busy, SETTINGS, 5, connector="sink", claim=None)
    assert busy.committed == [] and busy.expired == []


def test_a_dry_run_decides_and_commits_nothing() -> None:
    table = _Table()
    report = maintain_table(table, SETTINGS, 5, connector="sink", claim=None, dry_run=True)
    assert (report.expired, report.compacted) == (1, 2) and table.committed == [] and table.expired == []
