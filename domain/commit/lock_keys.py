"""Where the index objects live: the exact Lenses key layout.

Shared state between Lenses and lakesink on one bucket, so every quirk is kept: ``Topic(<topic>)``
literally (a Scala ``toString``), unpadded partitions in lock keys, granular lock names in Java's
``URLEncoder`` form with ``_`` escaped too. Index objects sit at the bucket root, never under the KCQL
prefix; Lenses' other index objects are never read or written. See docs/commit-model.md, "Index layout".
"""

from __future__ import annotations

from collections.abc import Mapping

_LOCKS = ".locks"
_LOCK_SUFFIX = ".lock"
# Java URLEncoder leaves these unchanged; everything else (but space) is %XX of its UTF-8 bytes.
_UNRESERVED = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")


def _topic_dir(indexes_name: str, connector: str, topic: str) -> str:
    return f"{indexes_name}/{connector}/{_LOCKS}/Topic({topic})"


def master_lock_key(indexes_name: str, connector: str, topic: str, partition: int) -> str:
    """``<indexes>/<connector>/.locks/Topic(<topic>)/<partition>.lock``."""
    return f"{_topic_dir(indexes_name, connector, topic)}/{partition}.lock"




def granular_locks_prefix(indexes_name: str, connector: str, topic: str, partition: int) -> str:
    """The folder holding a partition's granular locks and sweep marker (for the orphan sweep's listing)."""
    return f"{_topic_dir(indexes_name, connector, topic)}/{partition}/"


def granular_partition_key_of(prefix: str, key: str) -> str | None:
    """The writer's partition key of a granular lock listed under ``prefix``; None for anything else
    there (Lenses' sweep marker, deeper keys). A granular lock's key is
    ``<prefix><partition key>.lock`` (:func:`granular_partition_key`)."""
    name = key[len(prefix) :] if key.startswith(prefix) else ""
    if "/" in name or not name.endswith(_LOCK_SUFFIX):
        return None
    return name[: -len(_LOCK_SUFFIX)]




def old_master_lock_key(indexes_name: str, topic: str, partition: int) -> str:
    """The Lenses 9.0.0 master lock key (no connector name), migrated on open when present."""
    return f"{indexes_name}/{_LOCKS}/Topic({topic})/{partition}.lock"






# --- granular partition key ------------------------------------------------------------------


def sanitize(text: str) -> str:
    """Java ``URLEncoder.encode(text, "UTF-8")`` followed by ``_`` → ``%5F``.

    Form encoding: ``A-Za-z0-9 . - * _`` are kept, space becomes ``+``, every other character
    becomes ``%XX`` (uppercase hex) of its UTF-8 bytes. A lone surrogate is encoded as ``?``
    (``%3F``), as the JVM does.
    """
    out = []
    for byte in text.encode("utf-8", errors="replace"):
        if byte in _UNRESERVED:
            out.append(chr(byte))
        elif byte == 0x20:
            out.append("+")
        else:
            out.append(f"%{byte:02X}")
    return "".join(out).replace("_", "%5F")


def granular_partition_key(values: Mapping[str, str]) -> str | None:
    """The name of a writer's granular lock: ``name=value`` pairs sorted by name, joined by ``_``.

    None for a writer without partition values (NOPARTITION), which uses the master lock.
    The default layout has values ``{topic, partition}``, so it gets ``partition=<p>_topic=<t>``.
    """
    if not values:
        return None
    return "_".join(f"{sanitize(name)}={sanitize(values[name])}" for name in sorted(values))
