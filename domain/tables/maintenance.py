"""Table maintenance: which snapshots to expire, which small files to rewrite as one, when a run is due.

A sink commits a snapshot and a few small files per batch; maintenance (between batches, or by hand
with ``lakesink table maintain``) expires old snapshots and replaces the small files of *closed*
partitions by target-sized ones, in one commit that keeps the rows and the lakesink mark and is
conditional on the version read (:func:`maintain_table`). See docs/tables.md, "Maintenance".
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from lakesink.domain.errors import CommitConflictError, CommitError, ConfigError, TableMovedError
from lakesink.domain.tables.marks import TableMark
from lakesink.domain.tables.table_commits import ATTEMPTS, TableClaim
from lakesink.domain.tables.table_port import TableHead

logger = logging.getLogger(__name__)

UNITS_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
COMPACTED_DIRECTORY = ".compacted"
"""Where compaction writes its files under a table's prefix (apart from the sink's own keys)."""
DEFAULT_TARGET_BYTES = 128 * 1024 * 1024
BY_HAND_ATTEMPTS = 3
"""Reads of ``lakesink table maintain`` before it leaves the table to a sink that keeps committing."""


def age_ms(name: str, text: str) -> int:
    """An age such as ``90s``, ``30m``, ``12h`` or ``3d`` (``0`` alone: none), in milliseconds.

    Raises:
        ConfigError: not an age; the message names ``name`` (the setting or option at fault).
    """
    number, unit = (text[:-1], text[-1]) if text[-1:] in UNITS_MS else (text, "")
    if not (number.isascii() and number.isdigit()) or (not unit and int(number) != 0):
        raise ConfigError(f"{name}: invalid age {text!r}: expected N followed by s, m, h or d (3d), or 0")
    return int(number) * UNITS_MS.get(unit, 0)


@dataclass(frozen=True, slots=True)
class MaintenanceSettings:
    """``connect.<p>.table.maintenance.*``: off unless ``every.batches`` or ``interval`` is set."""

    every_batches: int | None = None
    """Run after every this many batches (None: not by count)."""
    interval_ms: int | None = None
    """Run when this long passed since the last run (None: not by time)."""
    keep_snapshots: int = 100
    """The newest snapshots of the main branch never expired."""
    max_snapshot_age_ms: int | None = None
    """Beyond ``keep_snapshots``, expire only snapshots older than this (None: every older one)."""
    target_file_bytes: int = DEFAULT_TARGET_BYTES
    """The size compaction packs small files into (0: no compaction)."""
    closed_after_ms: int = 3_600_000
    """A partition with no file added for this long is closed: its small files are compacted."""
    orphans: bool = True
    """Delete files no version of the table references, older than ``orphans_older_than_ms``."""
    orphans_older_than_ms: int = 3 * 86_400_000

    @property
    def enabled(self) -> bool:
        """Whether the sink runs maintenance between batches at all."""
        return self.every_batches is not None or self.interval_ms is not None

    def due(self, batches_since: int, ms_since: int) -> bool:
        """Whether a run is due, ``batches_since`` batches and ``ms_since`` ms after the last one
        (or the start)."""
        by_count = self.every_batches is not None and batches_since >= self.every_batches
        by_time = self.interval_ms is not None and ms_since >= self.interval_ms
        return by_count or by_time


NO_MAINTENANCE = MaintenanceSettings()
"""The default: the sink never maintains its tables."""


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    """One snapshot (Iceberg) as expiry sees it."""

    id: int
    timestamp_ms: int
    protected: bool = False
    """The head of a branch or a tag: never expired."""


def snapshots_to_expire(
    snapshots: Sequence[SnapshotInfo], settings: MaintenanceSettings, now_ms: int
) -> list[int]:
    """The ids to expire: every snapshot but the newest ``keep_snapshots`` and the protected ones,
    and of those only the older than ``max_snapshot_age_ms`` when it is set. Sorted."""
    newest_first = sorted(snapshots, key=lambda s: (s.timestamp_ms, s.id), reverse=True)
    older = newest_first[settings.keep_snapshots:]
    limit = settings.max_snapshot_age_ms
    return sorted(
        s.id for s in older if not s.protected and (limit is None or s.timestamp_ms <= now_ms - limit)
    )


@dataclass(frozen=True, slots=True)
class TableFile:
    """A data file of the table's current version, as compaction sees it."""

    key: str
    size: int
    partition: tuple[object, ...]
    """The file's partition values (empty: unpartitioned); files are only grouped within one."""
    added_ms: int
    """When the commit that added it was made."""


def compaction_groups(
    files: Sequence[TableFile], settings: MaintenanceSettings, now_ms: int
) -> list[tuple[TableFile, ...]]:
    """The groups of small files of closed partitions to rewrite, each as one file of at most
    ``target_file_bytes`` (the sum of the group's sizes; Parquet re-encoding changes it little).

    A partition is closed when its newest file is older than ``closed_after_ms``: the sink is no
    longer adding to it, so a group is final. Files are packed in key order (the sink's keys sort
    by offset), greedily; a group of one file is left as it is.
    """
    if settings.target_file_bytes <= 0:
        return []
    partitions: dict[tuple[object, ...], list[TableFile]] = {}
    for each in files:
        partitions.setdefault(each.partition, []).append(each)
    groups: list[tuple[TableFile, ...]] = []
    for members in partitions.values():
        if max(m.added_ms for m in members) > now_ms - settings.closed_after_ms:
            continue
        small = sorted((m for m in members if m.size < settings.target_file_bytes), key=lambda m: m.key)
        bin_: list[TableFile] = []
        for each in small:
            if bin_ and sum(m.size for m in bin_) + each.size > settings.target_file_bytes:
                groups.append(tuple(bin_))
                bin_ = []
            bin_.append(each)
        groups.append(tuple(bin_))
    return [group for group in groups if len(group) > 1]


def compacted_key(prefix: str, group: Sequence[TableFile]) -> str:
    """The key of the file that replaces ``group``: named by the keys it holds, so a retry of the
    same group writes the same object, and a crash before the commit leaves an orphan that
    ``table clean`` finds (it is under the table's prefix, outside its metadata)."""
    digest = hashlib.sha256("\n".join(sorted(f.key for f in group)).encode()).hexdigest()
    return f"{prefix.strip('/')}/{COMPACTED_DIRECTORY}/{digest}.parquet"


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    """What a run did (or, dry, would do) to one table."""

    table: str
    expired: int = 0
    compacted: int = 0
    """Small files replaced."""
    written: int = 0
    """Target-sized files that replaced them."""
    orphans: tuple[str, ...] = field(default_factory=tuple)
    """Files no version references, older than the grace period: deleted (or, dry, to be)."""
    metadata: tuple[str, ...] = field(default_factory=tuple)
    """Metadata files no kept version needs (Iceberg), older than the grace period: deleted (or, dry, to be)."""

    def with_removed(self, orphans: tuple[str, ...], metadata: tuple[str, ...]) -> MaintenanceReport:
        """This report with orphan removal's findings: data files, then metadata files."""
        return replace(self, orphans=orphans, metadata=metadata)


@runtime_checkable
class MaintainedTable(Protocol):
    """A table lakesink can maintain: read its snapshots and files, expire, compact."""

    @property
    def name(self) -> str:
        """The table as users name it."""
        ...

    def head(self, connector: str, partitions: Sequence[tuple[str, int]]) -> TableHead:
        """A fresh read, with ``connector``'s newest mark (see ``LakeTable.head``)."""
        ...

    def snapshots(self, head: TableHead) -> list[SnapshotInfo]:
        """The snapshots (Delta: none; its log is cleaned by :meth:`compact`'s housekeeping) of ``head``."""
        ...

    def files(self, head: TableHead) -> list[TableFile]:
        """The data files of ``head``'s version."""
        ...

    def expire(self, head: TableHead, ids: Sequence[int]) -> None:
        """Remove the snapshots ``ids`` from the table's metadata (their files stay: orphans once
        no kept snapshot references them)."""
        ...

    def compact(self, head: TableHead, groups: Sequence[Sequence[TableFile]], mark: TableMark | None) -> int:
        """Write each group as one file (:func:`compacted_key`), then commit one version that removes
        the groups' files and adds the new ones, recording ``mark``, conditional on ``head``; returns
        the files written.

        Raises:
            TableMovedError: a commit landed since ``head``; nothing was committed.
        """
        ...


def maintain_table(
    table: MaintainedTable,
    settings: MaintenanceSettings,
    now_ms: int,
    *,
    connector: str,
    claim: TableClaim | None,
    dry_run: bool = False,
) -> MaintenanceReport:
    """Expire and compact ``table`` once, re-reading it whenever a commit lands in between.

    ``claim`` is the sink run's own (maintenance between its batches): the compaction carries its
    mark and a newer claim stops it fenced. Without one (``table maintain`` by hand), the commit
    carries the connector's newest mark as found, so the sink's ancestry walk and fencing see no
    difference, and a sink that keeps committing wins: after :data:`BY_HAND_ATTEMPTS` reads the
    run gives up (nothing committed; files it wrote are orphans).

    Raises:
        CommitConflictError: another run claimed the table (``claim``'s run is fenced).
        CommitError: the table kept moving under every attempt.
    """
    attempts = ATTEMPTS if claim is not None else BY_HAND_ATTEMPTS
    partitions = list(claim.mark.offsets) if claim is not None else []
    for _ in range(attempts):
        head = table.head(connector, partitions)
        if claim is not None and not claim.owns(head.mark):
            raise CommitConflictError(
                f"Table {table.name} was claimed by another run of sink {connector}: this run's maintenance "
                "stops without committing."
            )
        groups = compaction_groups(table.files(head), settings, now_ms)
        compacted = sum(len(group) for group in groups)
        if dry_run:
            expire = snapshots_to_expire(table.snapshots(head), settings, now_ms)
            return MaintenanceReport(table.name, len(expire), compacted, len(groups))
        mark = head.mark if claim is None or head.mark is None else replace(head.mark, owner=claim.mark.owner)
        try:
            written = table.compact(head, groups, mark) if groups else 0
        except TableMovedError:
            logger.info("Table %s moved during maintenance (a sink committed); reading it again", table.name)
            continue
        # expiry after the compaction, from a read that shows it: the newest snapshots kept include it
        fresh = table.head(connector, partitions) if groups else head
        expire = snapshots_to_expire(table.snapshots(fresh), settings, now_ms)
        if expire:
            table.expire(fresh, expire)
        logger.info(
            "Table %s maintained: %d snapshots expired, %d small files compacted into %d",
            table.name, len(expire), compacted, written,
        )
        return MaintenanceReport(table.name, len(expire), compacted, written)
    raise CommitError(
        f"Table {table.name}: maintenance gave up after {attempts} reads, a sink committed between each read "
        "and the maintenance commit; nothing was committed (the sink's commits win). Run it again later."
    )
