"""Which files of an Iceberg table's ``metadata/`` folder no kept version needs: metadata.json files
neither current nor in the current one's metadata log, manifest lists of expired snapshots, manifests
no kept snapshot's manifest list names (pyiceberg's expiry deletes none of them).

Safe while a sink commits, by the read order of :mod:`~lakesink.domain.tables.orphans` (list, then
read the table) and its grace period. See docs/tables.md, "Maintenance".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

METADATA_FOLDER = "metadata/"
_KINDS = (".metadata.json", ".avro")
"""metadata.json files, manifest lists and manifests: the kinds expiry leaves behind (statistics
files and ``version-hint.text`` are never candidates)."""


@dataclass(frozen=True, slots=True)
class MetadataReferences:
    """The keys a table's current metadata needs from its metadata folder, read after the listing."""

    current: str
    """The current metadata.json."""
    needed: frozenset[str]
    """The metadata log's metadata.json files, every kept snapshot's manifest list and its manifests."""


@runtime_checkable
class MetadataTable(Protocol):
    """A table whose metadata files lakesink can tell apart (Iceberg)."""

    @property
    def name(self) -> str:
        """The table as users name it."""
        ...

    def metadata_references(self) -> MetadataReferences | None:
        """A fresh read of what the table's current metadata needs (None: no table yet, or one whose
        metadata names files outside its bucket, which lakesink cannot account for)."""
        ...


def metadata_folder(prefix: str) -> str:
    """The folder under the table at ``prefix`` where its writers keep its metadata."""
    return f"{prefix.strip('/')}/{METADATA_FOLDER}"


def unreferenced_metadata(prefix: str, listed: Iterable[str], references: MetadataReferences) -> list[str]:
    """The listed metadata files of the table at ``prefix`` that ``references`` does not need, in key order.

    Nothing when the current metadata.json is not in the table's metadata folder: the folder then is not
    known to be this table's (``write.metadata.path`` points elsewhere), so nothing in it is a candidate.
    """
    folder = metadata_folder(prefix)
    if not references.current.startswith(folder):
        return []
    return sorted(
        key for key in listed
        if key.startswith(folder) and key.endswith(_KINDS) and key != references.current
        and key not in references.needed
    )
