"""The Iceberg and Delta tables of a sink: claimed at start-up, committed to after each batch.

The decisions are the domain's (:mod:`lakesink.domain.tables.table_commits`): a table commit is
the batch's commit point, so it comes before the index locks, which follow the table (a run that
stopped between the two finds its locks behind the table and moves them up before it replays or
rolls back anything of those partitions).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence

from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.errors import ConfigError, TransientStorageError
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import SinkPlan
from lakesink.domain.tables.maintenance import (
    NO_MAINTENANCE,
    MaintainedTable,
    MaintenanceSettings,
    maintain_table,
)
from lakesink.domain.tables.table_commits import (
    RangeWrite,
    TableClaim,
    ahead_of_index,
    claim_table,
    commit_to_table,
)
from lakesink.domain.tables.table_port import LakeTable
from lakesink.domain.tables.target import TableTarget

logger = logging.getLogger(__name__)

Identity = tuple[str, ...]


class SinkTables:
    """The tables the statements of one sink write to, and this run's claim on each.

    Tables are opened at the claim (inside the start-up's waiting: a catalog that does not answer yet
    is waited out), one per physical table however many statements name it.

    Raises (constructor):
        ConfigError: two statements name one table with different partition columns.
    """

    def __init__(
        self,
        plan: SinkPlan,
        open_table: Callable[[TableTarget], LakeTable],
        *,
        connector: str,
        owner: str,
        maintenance: MaintenanceSettings = NO_MAINTENANCE,
        remove_orphans: Callable[[], object] | None = None,
    ) -> None:
        self._plan = plan
        self._maintenance = maintenance
        self._remove_orphans = remove_orphans
        self._batches_since = 0
        self._last_run_ms: int | None = None
        self._open_table = open_table
        self._connector = connector
        self._owner = owner
        self._targets: dict[Identity, TableTarget] = {}
        for statement in plan.statements:
            target = statement.table
            if target is None:
                continue
            known = self._targets.setdefault(target.identity, target)
            if known.partition_spec != target.partition_spec:
                raise ConfigError(
                    f"Two statements commit to table {target.name} with different partition specs "
                    f"({list(known.partition_spec)} and {list(target.partition_spec)}): give them one "
                    f"PARTITIONBY, or two tables. In {statement.statement.text}"
                )
        self._tables: dict[Identity, LakeTable] = {}
        self._claims: dict[Identity, TableClaim] = {}

    def __bool__(self) -> bool:
        return bool(self._targets)

    def _identity(self, topic: str) -> Identity | None:
        target = self._plan.route(topic).table
        return None if target is None else target.identity

    def _routed(self, partitions: Collection[TopicPartition], identity: Identity) -> list[TopicPartition]:
        return [(topic, partition) for topic, partition in partitions if self._identity(topic) == identity]

    def claim(self, partitions: Collection[TopicPartition]) -> None:
        """Open and claim every table, reading the offsets of ``partitions`` there (fences older runs).

        Raises:
            CommitError: a table kept moving under the claims.
        """
        for identity, target in self._targets.items():
            table = self._tables.get(identity) or self._tables.setdefault(identity, self._open_table(target))
            self._claims[identity] = claim_table(table, self._connector, self._owner, self._routed(partitions, identity))

    def behind(self, committed: Mapping[TopicPartition, int | None]) -> dict[TopicPartition, int]:
        """The partitions of ``committed`` whose index lock is behind their table (read now), with the
        table's offset.

        Raises:
            CommitError: a lock is ahead of its table (the table lost commits).
        """
        behind: dict[TopicPartition, int] = {}
        for identity, claim in self._claims.items():
            routed = {where: committed[where] for where in self._routed(committed, identity)}
            if routed:
                newest = self._tables[identity].head(self._connector, list(routed)).mark
                behind.update(ahead_of_index(newest or claim.mark, routed))
        return behind

    def commit(self, results: Sequence[RangeResult]) -> set[TopicPartition]:
        """One commit per table of the objects ``results`` wrote to it and the offsets they made durable;
        returns the partitions whose offsets reached no table (their locks must stay where they are).

        Raises:
            CommitConflictError: another run claimed a table (this run is fenced).
            CommitError: a table kept moving under the commits.
        """
        kept_out: set[TopicPartition] = set()
        for identity, table in self._tables.items():
            batch = _range_writes([r for r in results if self._identity(r.topic) == identity])
            if batch:
                claim = self._claims[identity] = commit_to_table(table, self._claims[identity], batch)
                if not claim.landed:
                    kept_out.update(write.where for write in batch)
        return kept_out

    def after_batch(self, now_ms: int) -> None:
        """Maintain the tables when a run is due (``table.maintenance.*``): called by the driver after a
        batch's locks, so no commit of this run can race it; a commit of another writer makes it read
        again, a newer claim stops it fenced (as a batch would). A catalog or store that does not
        answer skips this run (the batch is committed; the next due run tries again).

        Raises:
            CommitConflictError: another run claimed a table (this run is fenced).
            CommitError: a table kept moving under the maintenance commits.
        """
        settings = self._maintenance
        if not settings.enabled:
            return
        self._batches_since += 1
        if self._last_run_ms is None:
            self._last_run_ms = now_ms
        if not settings.due(self._batches_since, now_ms - self._last_run_ms):
            return
        self._batches_since, self._last_run_ms = 0, now_ms
        try:
            for identity, table in self._tables.items():
                if isinstance(table, MaintainedTable) and self._claims[identity].landed:
                    maintain_table(table, settings, now_ms, connector=self._connector, claim=self._claims[identity])
            if settings.orphans and self._remove_orphans is not None:
                self._remove_orphans()
        except TransientStorageError as error:
            logger.warning("Table maintenance skipped until its next run: %s", error)


def _range_writes(results: Sequence[RangeResult]) -> list[RangeWrite]:
    """The ranges the results made durable, with the files each wrote."""
    return [
        RangeWrite((r.topic, r.partition), r.first if r.first >= 0 else r.last, r.last, r.table_files)
        for r in results
        if r.last >= 0
    ]
