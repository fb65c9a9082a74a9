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
"""

from __future__ import annotations

from collections.abc import Iterable

_METADATA = ("metadata/", "_delta_log/")


def is_candidate(prefix: str, key: str) -> bool:
    """Whether ``key`` is a Parquet object under the table at ``prefix``, outside its metadata."""
    root = prefix.strip("/") + "/"
    if not key.startswith(root) or not key.endswith(".parquet"):
        return False
    return not key[len(root):].startswith(_METADATA)


def orphans(listed: Iterable[str], pending: set[str], referenced: set[str]) -> list[str]:
    """The listed objects neither a pending plan lists nor the table references, in key order."""
    return sorted(key for key in listed if key not in pending and key not in referenced)
