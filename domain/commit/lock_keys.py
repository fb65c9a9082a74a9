"""Where the index objects live: the exact Lenses key layout (reference §4.1, §4.3, §4.4).

These keys are shared state between Lenses and lakesink on one bucket, so every quirk is kept:
the topic segment is literally ``Topic(<topic>)`` (a Scala ``toString``), partitions are not
padded in lock keys but padded to 5 digits in legacy v1 index keys, and granular lock names use
Java's ``URLEncoder`` form encoding with ``_`` escaped too (``_`` joins the entries).
Index objects sit at the bucket root, never under the KCQL prefix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lakesink.domain.errors import CommitError

_LOCKS = ".locks"
_SWEEP_MARKER = "sweep-marker.json"
_TEMP_UPLOAD = ".temp-upload"
# Java URLEncoder leaves these unchanged; everything else (but space) is %XX of its UTF-8 bytes.
_LOCK_SUFFIX = ".lock"
_UNRESERVED = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")


def _topic_dir(indexes_name: str, connector: str, topic: str) -> str:
    return f"{indexes_name}/{connector}/{_LOCKS}/Topic({topic})"


def master_lock_key(indexes_name: str, connector: str, topic: str, partition: int) -> str:
    """``<indexes>/<connector>/.locks/Topic(<topic>)/<partition>.lock``."""
    return f"{_topic_dir(indexes_name, connector, topic)}/{partition}.lock"


def granular_lock_key(
    indexes_name: str, connector: str, topic: str, partition: int, partition_key: str
) -> str:
    """``<indexes>/<connector>/.locks/Topic(<topic>)/<partition>/<partition_key>.lock`` (one per writer)."""
    return f"{_topic_dir(indexes_name, connector, topic)}/{partition}/{partition_key}.lock"


def granular_locks_prefix(indexes_name: str, connector: str, topic: str, partition: int) -> str:
    """The folder holding a partition's granular locks and sweep marker (for the orphan sweep's listing)."""
    return f"{_topic_dir(indexes_name, connector, topic)}/{partition}/"


def granular_partition_key_of(prefix: str, key: str) -> str | None:
    """The writer's partition key of a granular lock listed under ``prefix``; None for anything else
    there (the sweep marker, deeper keys): the inverse of :func:`granular_lock_key`."""
    name = key[len(prefix) :] if key.startswith(prefix) else ""
    if "/" in name or not name.endswith(_LOCK_SUFFIX):
        return None
    return name[: -len(_LOCK_SUFFIX)]


def sweep_marker_key(indexes_name: str, connector: str, topic: str, partition: int) -> str:
    """``<indexes>/<connector>/.locks/Topic(<topic>)/<partition>/sweep-marker.json``."""
    return granular_locks_prefix(indexes_name, connector, topic, partition) + _SWEEP_MARKER


def old_master_lock_key(indexes_name: str, topic: str, partition: int) -> str:
    """The Lenses 9.0.0 master lock key (no connector name), migrated on open when present."""
    return f"{indexes_name}/{_LOCKS}/Topic({topic})/{partition}.lock"


def master_committed_offset(global_safe_offset: int) -> int | None:
    """The ``committedOffset`` a master lock stores for a safe offset: one less, or None at 0.

    Kafka commits "the next offset to read"; the lock stores "the last offset written".
    """
    return None if global_safe_offset == 0 else global_safe_offset - 1


def temp_upload_key(topic: str, partition: int, upload_id: str, final_key: str) -> str:
    """``.temp-upload/Topic(<topic>)/<partition>/<upload_id>/<final_key>``.

    Deliberate deviation: Lenses glues ``<uuid>`` and the final key together without a ``/``;
    lakesink inserts it so temporary objects form one folder per upload. Temp keys are never
    read back by key shape (the lock records them), so both layouts coexist on one bucket.
    """
    return f"{_TEMP_UPLOAD}/Topic({topic})/{partition}/{upload_id}/{final_key}"


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


# --- legacy v1 indexes ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LegacyIndexKey:
    """A parsed v1 index key ``<indexes>/<connector>/<topic>/<partition %05d>/<offset %020d>``."""

    root: str
    topic: str
    partition: int
    offset: int


def legacy_index_prefix(indexes_name: str, connector: str, topic: str, partition: int) -> str:
    """The folder listed to find a partition's v1 indexes."""
    return f"{indexes_name}/{connector}/{topic}/{partition:05d}/"


def legacy_index_key(indexes_name: str, connector: str, topic: str, partition: int, offset: int) -> str:
    """A v1 index key, whose object body is the data key written up to ``offset``."""
    return legacy_index_prefix(indexes_name, connector, topic, partition) + f"{offset:020d}"


def parse_legacy_index_key(key: str) -> LegacyIndexKey:
    """Read topic, partition and offset back from a v1 index key.

    Raises:
        CommitError: the key does not have the v1 shape.
    """
    parts = key.rsplit("/", 3)
    if len(parts) != 4 or not parts[0]:
        raise CommitError(
            f"Not a legacy index key (expected <indexes>/<connector>/<topic>/<p>/<offset>): {key}"
        )
    root, topic, partition, offset = parts
    if not (topic and partition.isdigit() and partition.isascii() and offset.isdigit() and offset.isascii()):
        raise CommitError(f"Not a legacy index key (partition and offset must be digits): {key}")
    return LegacyIndexKey(root=root, topic=topic, partition=int(partition), offset=int(offset))
