"""Listing roots page by page into the compact index, with per-directory cursors.

Each listed object becomes an :class:`IndexEntry` at once and pages are never kept; a continuous
restore's later polls list only what is new in the directories seen so far (:func:`discover`).
See docs/restore.md, "Discovery and ordering".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from lakesink.domain.ports import ObjectStore
from lakesink.domain.restore.index import IndexEntry, classify
from lakesink.domain.restore.plan import RestorePlan, RestoreRoot

logger = logging.getLogger(__name__)


@dataclass
class ListingStats:
    """What one discovery pass cost and found."""

    list_calls: int = 0
    objects_listed: int = 0
    entries: int = 0
    largest_page: int = 0


@dataclass
class ListingCursors:
    """Per (root, directory): the last key listed; and how many polls ran."""

    last_keys: dict[tuple[int, str], str] = field(default_factory=dict)
    polls: int = 0


def discover(
    store: ObjectStore,
    plan: RestorePlan,
    cursors: ListingCursors,
    on_page: Callable[[ListingStats], None] | None = None,
) -> tuple[list[IndexEntry], ListingStats]:
    """Index every object not listed before (everything on a full pass); ``on_page`` is told the
    counts so far after each page (the progress of a listing of millions of keys).

    A full pass (the first poll and every ``full_relist_every``-th) lists each root recursively, one
    page at a time. The others list each directory seen so far non-recursively (``delimiter="/"``)
    from the last key seen in it (``start_after``), so a new directory (a new partition, a new
    PARTITIONBY value of a custom layout) shows up only in a full pass.
    """
    stats = ListingStats()
    entries: list[IndexEntry] = []
    full = cursors.polls % max(plan.full_relist_every, 1) == 0
    cursors.polls += 1
    for root in plan.roots:
        if full:
            _list(store, plan, root, root.list_prefix, plan.start_after, None, cursors, stats, entries, on_page)
            continue
        for (number, directory), last in list(cursors.last_keys.items()):
            if number == root.number:
                _list(store, plan, root, directory, last, "/", cursors, stats, entries, on_page)
    stats.entries = len(entries)
    logger.info(
        "Listed %d objects in %d calls (%s pass), %d to restore",
        stats.objects_listed, stats.list_calls, "full" if full else "incremental", stats.entries,
    )
    return entries, stats


def _list(
    store: ObjectStore,
    plan: RestorePlan,
    root: RestoreRoot,
    prefix: str,
    start_after: str | None,
    delimiter: str | None,
    cursors: ListingCursors,
    stats: ListingStats,
    entries: list[IndexEntry],
    on_page: Callable[[ListingStats], None] | None,
) -> None:
    pages = store.list_pages(root.bucket, prefix, delimiter=delimiter, start_after=start_after, page_size=root.page_size)
    for page in pages:
        stats.list_calls += 1
        stats.largest_page = max(stats.largest_page, len(page.objects) + len(page.prefixes))
        for info in page.objects:
            stats.objects_listed += 1
            directory = info.key.rpartition("/")[0]
            cursor = (root.number, directory + "/" if directory else "")
            if info.key > cursors.last_keys.get(cursor, ""):
                cursors.last_keys[cursor] = info.key
            entry = classify(plan, root, info.key, info.size)
            if entry is not None:
                entries.append(entry)
        if on_page is not None:
            on_page(stats)
