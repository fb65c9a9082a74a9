"""Iceberg metadata files no kept version of a table needs, deleted once older than a grace period:
the part of snapshot expiry pyiceberg leaves undone (docs/tables.md, "Maintenance").

The decision is the domain's (:mod:`lakesink.domain.tables.metadata_orphans`); this module reads in
the order that keeps it safe while a sink commits (the folder's listing, then the table) and deletes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from lakesink.application.table_clean import CleanedTable
from lakesink.domain.ports import Clock, ObjectStore, iter_objects
from lakesink.domain.tables.metadata_orphans import MetadataTable, metadata_folder, unreferenced_metadata
from lakesink.domain.tables.orphans import by_age
from lakesink.domain.tables.table_port import LakeTable
from lakesink.domain.tables.target import TableTarget

logger = logging.getLogger(__name__)


def clean_metadata(
    targets: Iterable[TableTarget],
    store: ObjectStore,
    open_table: Callable[[TableTarget], LakeTable],
    clock: Clock,
    *,
    dry_run: bool,
    grace_ms: int,
) -> list[CleanedTable]:
    """The unneeded metadata files of each Iceberg table of ``targets``, older than ``grace_ms``,
    deleted unless ``dry_run`` (tables of other formats are left out: Delta cleans its own log)."""
    cleaned = []
    for target in targets:
        table = open_table(target)
        if not isinstance(table, MetadataTable):
            continue
        # listed before the table is read: a file a commit writes meanwhile is not listed, so never deleted
        listed = {info.key: info.modified_ms for info in iter_objects(store, target.bucket, metadata_folder(target.prefix))}
        references = table.metadata_references()
        if references is None:
            logger.info("Table %s: metadata not cleaned, the table does not exist yet or names files outside "
                        "its bucket", target.name)
            continue
        found = unreferenced_metadata(target.prefix, listed, references)
        old, recent = by_age(found, listed, clock.now_ms(), grace_ms)
        if old and not dry_run:
            store.delete_many(target.bucket, old)
        logger.info("Table %s: %d metadata files no kept version needs %s, %d younger than the grace period kept",
                    target.name, len(old), "found" if dry_run else "deleted", len(recent))
        cleaned.append(CleanedTable(target.name, f"{target.bucket}/{target.prefix}", old, not dry_run, recent))
    return cleaned
