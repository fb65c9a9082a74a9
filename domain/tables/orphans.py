"""Which objects under a table are orphans: lakesink data files no version of the table references.

The order of the reads makes this safe while a sink runs: list the objects, then read the
pending plans, then the table's references; only what is in none is an orphan. Other writers'
files are protected by a grace period (:data:`DEFAULT_GRACE_MS`).
See docs/tables.md, "Files that no commit references".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

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


def by_age(
    found: Iterable[str], modified_ms: Mapping[str, int | None], now_ms: int, grace_ms: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``found`` split into the :func:`settled` (to delete) and the younger (kept), each in its order."""
    aged = {key: settled(modified_ms[key], now_ms, grace_ms) for key in found}
    return tuple(key for key, old in aged.items() if old), tuple(key for key, old in aged.items() if not old)
