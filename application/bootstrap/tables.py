"""``lakesink table clean`` and ``table maintain`` wired: the sink config's store, its tables' catalogs and the wall clock."""

from __future__ import annotations

from lakesink.adapters.clock import WallClock
from lakesink.adapters.storage import open_store
from lakesink.adapters.tables.opening import table_opener
from lakesink.application.bootstrap.config_file import load_settings
from lakesink.application.table_clean import CleanedTable, clean_tables
from lakesink.application.table_maintain import maintain_tables
from lakesink.domain.tables.maintenance import MaintenanceReport


def clean_tables_command(config_path: str, *, dry_run: bool, grace_ms: int) -> list[CleanedTable]:
    """The orphans of every table the sink config writes, deleted unless ``dry_run``
    (:func:`~lakesink.application.table_clean.clean_tables`)."""
    settings = load_settings(config_path)
    store = open_store(settings.backend, settings.storage)
    return clean_tables(settings, store, table_opener(settings), WallClock(), dry_run=dry_run, grace_ms=grace_ms)


def maintain_tables_command(config_path: str, *, dry_run: bool) -> list[MaintenanceReport]:
    """Every table the sink config writes maintained once with its ``table.maintenance.*`` settings
    (:func:`~lakesink.application.table_maintain.maintain_tables`)."""
    settings = load_settings(config_path)
    store = open_store(settings.backend, settings.storage)
    return maintain_tables(settings, store, table_opener(settings), WallClock(), dry_run=dry_run)
