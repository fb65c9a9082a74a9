"""``lakesink table clean --config FILE [--older-than D] [--dry-run]``: delete the Parquet objects
under a sink's tables that no table version references and no pending plan lists, once older than
a grace period (docs/tables.md).

The decision is the domain's (:mod:`lakesink.domain.tables.orphans`, which also argues why it is
safe while the sink runs); this module reads in the order that argument needs and deletes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from lakesink.domain.commit.actions import Get, ListKeys, Steps
from lakesink.domain.commit.range_plans import decode_plan, plan_start_of_key, plans_root
from lakesink.domain.commit.store_calls import perform
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import ConfigError
from lakesink.domain.ports import Clock, ObjectStore, iter_objects
from lakesink.domain.statement_plan import plan_sink
from lakesink.domain.tables.orphans import DEFAULT_GRACE_MS, by_age, is_candidate, orphans
from lakesink.domain.tables.table_port import LakeTable
from lakesink.domain.tables.target import TableTarget

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CleanedTable:
    """What ``table clean`` found (and, unless a dry run, deleted) under one table."""

    table: str
    location: str
    orphans: tuple[str, ...]
    """The orphans older than the grace period: deleted, or to be deleted (a dry run)."""
    deleted: bool
    recent: tuple[str, ...] = ()
    """Orphans younger than the grace period: kept (another writer's files may be about to be committed)."""


def clean_tables(
    settings: ConnectorSettings,
    store: ObjectStore,
    open_table: Callable[[TableTarget], LakeTable],
    clock: Clock,
    *,
    dry_run: bool,
    grace_ms: int = DEFAULT_GRACE_MS,
) -> list[CleanedTable]:
    """Every table of the sink's statements, cleaned of its orphans older than ``grace_ms``.

    Raises:
        ConfigError: no statement of the config writes a table.
    """
    targets = plan_sink(settings).tables
    if not targets:
        raise ConfigError("No statement of this config writes a table ('table.format'): there is nothing to clean.")
    cleaned = []
    for target in targets:
        written = {info.key: info.modified_ms for info in iter_objects(store, target.bucket, target.prefix + "/")
                   if is_candidate(target.prefix, info.key) and (target.changes is None or target.owns(info.key))}
        pending = perform(_planned_objects(settings, target.bucket), store)
        found = orphans(written, pending, open_table(target).referenced())
        old, recent = by_age(found, written, clock.now_ms(), grace_ms)
        if old and not dry_run:
            store.delete_many(target.bucket, old)
        logger.info("Table %s: %d orphan objects %s, %d younger than the grace period kept", target.name, len(old),
                    "found" if dry_run else "deleted", len(recent))
        cleaned.append(CleanedTable(target.name, f"{target.bucket}/{target.prefix}", old, not dry_run, recent))
    return cleaned


def _planned_objects(settings: ConnectorSettings, bucket: str) -> Steps[set[str]]:
    """The keys every pending plan of the sink lists in ``bucket`` (uploads in flight or to be replayed)."""
    keys: set[str] = set()
    for key in (yield ListKeys(bucket, plans_root(settings.indexes_name, settings.name))):
        if plan_start_of_key(key) is not None:
            plan = decode_plan((yield Get(bucket, key)).data, key=key)
            keys.update(object_key for object_bucket, object_key in plan.objects or () if object_bucket == bucket)
    return keys
