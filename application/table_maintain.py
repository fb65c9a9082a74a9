"""``lakesink table maintain --config FILE [--dry-run]``: expire, compact and clean a sink's tables by
hand, with the config's ``table.maintenance.*`` settings (the sink does the same between batches
when they ask it to).

The decisions and the protocol are the domain's (:mod:`lakesink.domain.tables.maintenance`): run by
hand while a sink runs, this is a second writer of the table; its commits carry the sink's newest
mark, are conditional on the version read, and give up when the sink keeps committing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from lakesink.application.metadata_clean import clean_metadata
from lakesink.application.table_clean import clean_tables
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import ConfigError
from lakesink.domain.ports import Clock, ObjectStore
from lakesink.domain.statement_plan import plan_sink
from lakesink.domain.tables.maintenance import MaintainedTable, MaintenanceReport, maintain_table
from lakesink.domain.tables.table_port import LakeTable
from lakesink.domain.tables.target import TableTarget

Removed = dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
"""Per table: the orphan data files and the unneeded metadata files removed."""


def maintain_tables(
    settings: ConnectorSettings,
    store: ObjectStore,
    open_table: Callable[[TableTarget], LakeTable],
    clock: Clock,
    *,
    dry_run: bool,
) -> list[MaintenanceReport]:
    """Every table of the sink's statements maintained once, then cleaned (:func:`remove_unreferenced`).

    Raises:
        ConfigError: no statement of the config writes a table, or its format cannot be maintained.
        CommitError: a sink kept committing between each read and the maintenance commit.
    """
    targets = plan_sink(settings).tables
    if not targets:
        raise ConfigError("No statement of this config writes a table ('table.format'): there is nothing to maintain.")
    maintenance = settings.table_maintenance
    reports = []
    for target in targets:
        table = open_table(target)
        if not isinstance(table, MaintainedTable):
            raise ConfigError(f"Table {target.name} ({target.format.value}) cannot be maintained by lakesink yet.")
        reports.append(maintain_table(table, maintenance, clock.now_ms(), connector=settings.name, claim=None,
                                      dry_run=dry_run))
    if maintenance.orphans:
        removed = remove_unreferenced(settings, store, open_table, clock, dry_run=dry_run)
        reports = [report.with_removed(*removed.get(report.table, ((), ()))) for report in reports]
    return reports


def remove_unreferenced(
    settings: ConnectorSettings,
    store: ObjectStore,
    open_table: Callable[[TableTarget], LakeTable],
    clock: Clock,
    *,
    dry_run: bool,
) -> Removed:
    """What no kept version of the sink's tables needs, older than ``table.maintenance.orphans.older.than``,
    deleted: data files as ``table clean`` does, then Iceberg metadata files (run after expiry, which
    leaves them behind)."""
    grace_ms = settings.table_maintenance.orphans_older_than_ms
    open_once = cache(open_table)  # both passes read the same tables: each catalog is opened once
    orphans = {c.table: c.orphans for c in clean_tables(settings, store, open_once, clock, dry_run=dry_run,
                                                          grace_ms=grace_ms)}
    metadata = {c.table: c.orphans for c in clean_metadata(plan_sink(settings).tables, store, open_once, clock,
                                                            dry_run=dry_run, grace_ms=grace_ms)}
    return {table: (orphans.get(table, ()), metadata.get(table, ())) for table in orphans.keys() | metadata.keys()}
