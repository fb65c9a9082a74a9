"""The table commit protocol: claim the table at start-up, then one conditional commit per batch.

The table is the commit point: objects first (under range plans), then one table commit with the
batch's offsets in its mark, then the index locks (moved up by :func:`ahead_of_index` after a
crash in between). A run claims the table with a new epoch; each commit re-reads the table and is
conditional on that version, so an older run never adds files after a newer one claimed.
See docs/tables.md, "Why it is exactly-once".
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from lakesink.domain.errors import CommitConflictError, CommitError, TableMovedError
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.marks import UNKNOWN_OWNER, TableMark, first_mark
from lakesink.domain.tables.table_port import DataFile, LakeTable

logger = logging.getLogger(__name__)

ATTEMPTS = 10
"""Reads and commits of one claim or batch before a table that keeps moving stops the sink."""


@dataclass(frozen=True, slots=True)
class TableClaim:
    """A run's hold on a table: its newest mark, and whether its claim is in the table yet."""

    mark: TableMark
    landed: bool = True
    """False while the table does not exist and could not be created without files (Delta): the
    run's first batch commit creates it and is the claim."""

    def owns(self, newest: TableMark | None) -> bool:
        """Whether ``newest``, the connector's newest mark in the table, is this run's."""
        if newest is None:
            return not self.landed
        same_run = newest.owner in (self.mark.owner, UNKNOWN_OWNER)
        return newest.epoch == self.mark.epoch and (same_run if self.landed else newest.owner == self.mark.owner)


def claim_table(table: LakeTable, connector: str, owner: str, partitions: Collection[TopicPartition]) -> TableClaim:
    """Claim ``table`` for the run ``owner`` of ``connector``: its mark holds the offsets to resume from.

    Raises:
        CommitError: the table moved under every one of :data:`ATTEMPTS` claims.
    """
    for _ in range(ATTEMPTS):
        head = table.head(connector, partitions)
        mark = first_mark(connector, owner) if head.mark is None else head.mark.claimed_by(owner)
        try:
            landed = table.commit(head, (), mark)
        except TableMovedError:
            logger.info("Table %s moved while sink %s claimed it; reading it again", table.name, connector)
            continue
        logger.info(
            "Sink %s (run %s) %s table %s as epoch %d; its offsets there: %s",
            connector, owner, "claimed" if landed else "will create (with its first batch)", table.name,
            mark.epoch, _shown(mark.offsets),
        )
        return TableClaim(mark, landed)
    raise _still_moving(table, "claim it")


@dataclass(frozen=True, slots=True)
class RangeWrite:
    """What a batch wrote of one range of a topic-partition: offsets ``first``..``last``, their files."""

    where: TopicPartition
    first: int
    last: int
    files: tuple[DataFile, ...]


def commit_to_table(table: LakeTable, claim: TableClaim, batch: Sequence[RangeWrite]) -> TableClaim:
    """Add the files of ``batch`` in one commit: the run's claim after it (still not landed when the
    table does not exist and the batch has no file to create it with: nothing was committed).

    What the table already holds is not added again: a whole batch whose commit landed but whose
    answer was lost, or the ranges of a partition whose index lock stayed behind the table (a run
    stopped between the two, then a batch re-wrote that partition's pending plans before anything
    moved the lock up: a DataFrame's, or a partition first met after the start).

    Raises:
        CommitConflictError: another run claimed the table (this run is fenced).
        CommitError: the table moved under every one of :data:`ATTEMPTS` commits, or holds part of
            a range (a table rolled back or written by another sink of this name).
    """
    ends: dict[TopicPartition, int] = {}
    for write in batch:
        ends[write.where] = max(write.last, ends.get(write.where, write.last))
    for _ in range(ATTEMPTS):
        head = table.head(claim.mark.connector, list(ends))
        if not claim.owns(head.mark):
            raise _fenced(table, claim.mark, head.mark)
        held = {} if head.mark is None else head.mark.offsets
        fresh = [write for write in batch if not _holds(table, held, write)]
        # the table's mark is fresher than the claim's after a lost answer (and, on Delta, it holds
        # these partitions' offsets)
        base = claim if head.mark is None else TableClaim(replace(head.mark, owner=claim.mark.owner))
        if not fresh:
            logger.info("Table %s already holds the batch up to %s (its commit landed)", table.name, _shown(ends))
            return base
        mark = base.mark.advanced({write.where: ends[write.where] for write in fresh})
        try:
            landed = table.commit(head, [data_file for write in fresh for data_file in write.files], mark)
        except TableMovedError:
            logger.info("Table %s moved since it was read (another writer committed); reading it again", table.name)
            continue
        # Not landed: a table that does not exist yet and a batch with no files (every record skipped)
        # that cannot create it; the offsets stay out of the table, and so the caller keeps its locks.
        return TableClaim(mark) if landed else claim
    raise _still_moving(table, "commit a batch")


def _holds(table: LakeTable, held: Mapping[TopicPartition, int], write: RangeWrite) -> bool:
    """Whether the table holds ``write`` already (True), or none of it (False).

    Raises:
        CommitError: it holds part of it.
    """
    in_table = held.get(write.where)
    if in_table is None or in_table < write.first:
        return False
    if in_table >= write.last:
        return True
    topic, partition = write.where
    raise CommitError(
        f"Table {table.name} holds {topic}-{partition} up to offset {in_table}, inside a range of the batch, "
        f"{write.first}..{write.last}: its commits do not follow this sink's index (rolled back, or written by "
        "another sink of this name without fencing). Restore the table or start over with a new connector name."
    )


def ahead_of_index(
    mark: TableMark, committed: Mapping[TopicPartition, int | None]
) -> dict[TopicPartition, int]:
    """The partitions whose index lock is behind the table (a run stopped between its table commit and
    its lock writes), with the table's offset the lock must move up to.

    Raises:
        CommitError: a lock is ahead of the table: the index says records are written that no commit
            of this sink added to the table (the table was dropped, replaced or rolled back).
    """
    ahead = {}
    for (topic, partition), last in sorted(committed.items()):
        in_table = mark.offsets.get((topic, partition))
        if last is not None and (in_table is None or in_table < last):
            raise CommitError(
                f"The index of sink {mark.connector} says {topic}-{partition} is written up to offset {last}, "
                f"but the table holds it only up to {in_table}: the table was dropped, replaced or rolled back "
                "after the sink wrote to it (or the sink wrote plain files before). Restore the table, or start "
                "over with a new connector name (a new index): the sink will not guess which records the table lost."
            )
        if in_table is not None and (last is None or last < in_table):
            ahead[(topic, partition)] = in_table
    return ahead


def _fenced(table: LakeTable, mine: TableMark, newest: TableMark | None) -> CommitConflictError:
    who = "no commit of this sink at all" if newest is None else f"run {newest.owner} (epoch {newest.epoch})"
    return CommitConflictError(
        f"Table {table.name} was claimed by another run of sink {mine.connector}: its newest commit is {who}, "
        f"not this run's (epoch {mine.epoch}); this run is fenced out and must stop without committing."
    )


def _still_moving(table: LakeTable, what: str) -> CommitError:
    return CommitError(
        f"Table {table.name} kept moving: {ATTEMPTS} times another writer committed between this sink's read "
        f"and its commit, so it could not {what}. Pause the other writers (compaction, a second sink) and restart."
    )


def _shown(offsets: Mapping[TopicPartition, int]) -> str:
    return ", ".join(f"{topic}-{partition}: {last}" for (topic, partition), last in sorted(offsets.items())) or "none"
