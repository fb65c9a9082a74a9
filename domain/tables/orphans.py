"""Which objects under a table are orphans: lakesink data files no version of the table references.

An upload that never reached a table commit (a run killed before it, a connector retired since)
leaves Parquet objects under the table's prefix that readers never see. The next run of the same
connector replays or rolls them back through its range plans; ``lakesink table clean`` removes the
rest. Deciding which are orphans while a sink may be running is the delicate part, and the order
of the reads is the argument:

1. list the objects under the prefix;
2. read the connector's pending plans;
3. read the table's references.

An object listed in 1 was uploaded before it, so its plan was written before it too (plans are
durable before their uploads). Either the plan is still there in 2 (in flight or to be replayed:
kept), or it was deleted, which a run does only after the table commit that references the object,
so 3 sees the reference (kept). Only what is in none of them is an orphan. Objects under the
table's metadata (Iceberg ``metadata/``, Delta ``_delta_log/``) and any object that is not a
Parquet file are never candidates: other writers' files are not lakesink's to judge.

That argument covers lakesink's own uploads. Another writer of the table (a compaction job) also
uploads Parquet files before its commit references them, and leaves no plan lakesink can read, so
an orphan is deleted only once it is older than a grace period (:data:`DEFAULT_GRACE_MS`, Iceberg's
``remove_orphan_files`` default): such a writer's files are safe while its commit follows its
uploads within that time.
"""

from __future__ import annotations

from collections.abc import Iterable

_METADATA = ("metadata/", "_delta_log/")
DEFAULT_GRACE_MS = 3 * 24 * 3600 * 1000
"""Three days: an orphan younger than this is kept (``lakesink table clean --older-than``)."""


def is_candidate(prefix: str, key: str) -> bool:
    """Whether ``key`` is a Parquet object under the table at ``prefix``, outside its metadata."""
    root = prefix.strip("/") + "/"
    if not key.startswith(root) or not key.endswith(".parquet"):
        return False
    return not key[len(root):].startswith(_METADATA)


def orphans(listed: Iterable[str], pending: set[str], referenced: set[str]) -> list[str]:
    """The listed objects neither a pending plan lists nor the table references, in key order."""
    return sorted(key for key in listed if key not in pending and key not in referenced)


def settled(modified_ms: int | None, now_ms: int, grace_ms: int) -> bool:
    """Whether an object last written at ``modified_ms`` is older than the grace period at ``now_ms``.
    An object whose store gave no time is never settled, unless the grace period is zero."""
    if grace_ms <= 0:
        return True
    return modified_ms is not None and modified_ms <= now_ms - grace_ms
