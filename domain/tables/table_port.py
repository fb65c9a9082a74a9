"""The port a table format plugs into: read the newest mark of a sink, commit files with a new one."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.marks import TableMark


@dataclass(frozen=True, slots=True)
class DataFile:
    """A Parquet object the sink wrote, which a table commit adds."""

    bucket: str
    key: str
    size: int = 0
    """The object's length in bytes (0: unknown, the adapter asks the store)."""
    footer: bytes = b""
    """The Parquet footer (the file's last 8 + footer-length bytes), kept by the task that wrote the file:
    the commit reads the file's schema and column statistics from it instead of reading the object
    back (empty: unknown, the adapter reads the object)."""


@dataclass(frozen=True, slots=True)
class TableHead:
    """The table as one read found it: the version a commit is based on, and the sink's newest mark."""

    version: object
    """The adapter's token for what was read (a snapshot id, a log version; None: no table): a
    commit based on it fails if a conflicting commit landed since."""
    mark: TableMark | None
    """The newest commit of the connector asked for; None when it never committed to this table."""


class LakeTable(Protocol):
    """One table (Iceberg or Delta) as the sink's commit protocol sees it.

    The adapter creates the table on first use. A commit is conditional on the head it is based on:
    the protocol re-reads the head and decides again whenever the table moved, so an adapter must
    never rebase a commit onto a newer head by itself.
    """

    @property
    def name(self) -> str:
        """The table as users name it (``namespace.table``, or the Delta table's URI)."""
        ...

    def head(self, connector: str, partitions: Collection[TopicPartition]) -> TableHead:
        """A fresh read of the table, with ``connector``'s newest mark (holding at least the
        offsets of ``partitions`` that reached the table).

        Raises:
            TransientStorageError: the catalog or the store did not answer.
        """
        ...

    def commit(self, head: TableHead, files: Sequence[DataFile], mark: TableMark) -> bool:
        """Add ``files`` and record ``mark`` in one commit, based on ``head``; create the table
        first when ``head`` found none (its schema from the files, its partition spec from the
        statement). A table that already exists gains the files' new columns (union by name).

        Returns False, committing nothing, only for a commit of no files on a table that does not
        exist and that the format cannot create without columns (Delta): the run's first batch
        commit is its claim then.

        Raises:
            TableMovedError: a commit landed since ``head`` that this one conflicts with (for a
                table ``head`` found absent: it was created since); nothing was committed.
            CommitOutcomeUnknownError: the commit was sent and its answer lost.
            TransientStorageError: the catalog or the store failed before the commit was sent.
        """
        ...

    def referenced(self) -> set[str]:
        """The bucket keys of every data file a version of the table still keeps references (time
        travel included); empty when there is no table.

        Raises:
            TransientStorageError: the catalog or the store did not answer.
        """
        ...
