"""An Iceberg change table through pyiceberg: each batch's change records applied as upserts and
deletes by key, in one catalog commit carrying the batch's mark (docs/tables.md, "Change data").

The commit reads the batch's change log back (Lenses envelopes), keeps each key's newest change,
deletes the rows of every changed key and appends each upserted key's new row. pyiceberg rewrites
the files holding deleted rows (copy-on-write: readers need no delete files) under ``data/``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import reduce

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.expressions import And, BooleanExpression, EqualTo, In, Or
from pyiceberg.table import Table, Transaction

from lakesink.adapters.tables.change_batches import AppliedChanges, applied_changes
from lakesink.adapters.tables.iceberg_table import IcebergTable, without_rebase
from lakesink.domain.tables.changes import ChangeSpec
from lakesink.domain.tables.marks import TableMark, mark_properties, mark_property, mark_text
from lakesink.domain.tables.table_port import DataFile, TableHead

logger = logging.getLogger(__name__)


class IcebergChangeTable(IcebergTable):
    """An Iceberg table holding the newest state of every key of a change topic."""

    def commit(self, head: TableHead, files: Sequence[DataFile], mark: TableMark) -> bool:
        spec = self._target.changes
        assert spec is not None
        with self._reading("read the change records it applies"):
            table = self._created() if head.version is None else head.version
            assert isinstance(table, Table)
            records = [_read(table, self._location.file_uri(data_file.key)) for data_file in files]
        applied = applied_changes(records, spec, self.name)
        if applied.skipped:
            logger.warning(
                "Iceberg table %s: %d truncate events of this batch are not applied (they name no key)",
                self.name, applied.skipped,
            )
        with self._sending():
            with without_rebase(table).transaction() as transaction:
                self._apply(transaction, table, applied, spec, mark)
        return True

    def rows(self, head: TableHead) -> pa.Table:
        """Every row of the table at ``head`` (``lakesink verify`` compares them with the change log)."""
        assert isinstance(head.version, Table)
        with self._reading("read its rows"):
            return head.version.scan().to_arrow()

    def _apply(
        self, transaction: Transaction, table: Table, applied: AppliedChanges, spec: ChangeSpec, mark: TableMark
    ) -> None:
        """Delete, then append, each snapshot with the mark; a snapshot of no files when neither made one
        (the mark must be in the newest snapshot: it is what the next read finds)."""
        properties = mark_properties(mark)
        transaction.set_properties(**{mark_property(mark.connector): mark_text(mark)})
        if applied.rows is not None:
            self._evolve(transaction, [applied.rows.schema])
        if applied.changed and table.current_snapshot() is not None:
            transaction.delete(_matching(spec.key_columns, applied.changed), snapshot_properties=properties)
        if applied.rows is not None:
            transaction.append(applied.rows, snapshot_properties=properties)
        if transaction.table_metadata.current_snapshot_id == table.metadata.current_snapshot_id:
            with transaction.update_snapshot(snapshot_properties=properties).fast_append():
                pass


def _read(table: Table, uri: str) -> pa.Table:
    stored = table.io.new_input(uri)
    with stored.open() as stream:
        return pq.read_table(stream)


def _matching(columns: Sequence[str], keys: Sequence[tuple[object, ...]]) -> BooleanExpression:
    """The rows whose key columns equal one of ``keys``."""
    if len(columns) == 1:
        return In(columns[0], {key[0] for key in keys})
    return reduce(Or, (reduce(And, (EqualTo(c, v) for c, v in zip(columns, key, strict=True))) for key in keys))
