"""An Iceberg change table through pyiceberg: each batch's change records applied as upserts and
deletes by key, in one catalog commit carrying the batch's mark (docs/tables.md, "Change data").

The commit reads the batch's change log back (Lenses envelopes), keeps each key's newest change,
deletes the rows of every changed key and appends each upserted key's new row. The delete rewrites
the files holding changed keys (copy-on-write: readers need no delete files) under ``data/``, found
with an Arrow join rather than pyiceberg's delete, which binds the filter of every key again and again.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyiceberg.conversions import from_bytes
from pyiceberg.manifest import DataFile as IcebergDataFile
from pyiceberg.table import Table, Transaction

from lakesink.adapters.tables.change_batches import AppliedChanges, applied_changes
from lakesink.adapters.tables.footers import Footer
from lakesink.adapters.tables.iceberg_table import IcebergTable, without_rebase
from lakesink.domain.errors import CommitError
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
        with self._reading("rewrite the files that hold its changed keys"):
            replaced = self._replaced(table, spec.key_columns, applied.changed)
        with self._sending():
            with without_rebase(table).transaction() as transaction:
                self._apply(transaction, applied, replaced, mark)
        return True

    def rows(self, head: TableHead) -> pa.Table:
        """Every row of the table at ``head`` (``lakesink verify`` compares them with the change log)."""
        assert isinstance(head.version, Table)
        with self._reading("read its rows"):
            return head.version.scan().to_arrow()

    def _apply(
        self, transaction: Transaction, applied: AppliedChanges,
        replaced: list[tuple[list[IcebergDataFile], Footer | None]], mark: TableMark,
    ) -> None:
        """Replace the files holding changed keys, then append, each snapshot with the mark; a snapshot of no
        files when neither made one (the mark must be in the newest snapshot: it is what the next read finds)."""
        properties = mark_properties(mark)
        transaction.set_properties(**{mark_property(mark.connector): mark_text(mark)})
        if applied.rows is not None:
            self._evolve(transaction, [applied.rows.schema])
        if replaced:
            with transaction.update_snapshot(snapshot_properties=properties).overwrite() as overwrite:
                for old, kept in replaced:
                    for data_file in old:
                        overwrite.delete_data_file(data_file)
                    if kept is not None:
                        overwrite.append_data_file(self._data_file(transaction.table_metadata, kept))
        if applied.rows is not None:
            transaction.append(applied.rows, snapshot_properties=properties)
        if not replaced and applied.rows is None:
            with transaction.update_snapshot(snapshot_properties=properties).fast_append():
                pass

    def _replaced(
        self, table: Table, columns: Sequence[str], keys: Sequence[tuple[object, ...]]
    ) -> list[tuple[list[IcebergDataFile], Footer | None]]:
        """The data files holding one of ``keys``, per partition, and the one file of the rows they keep
        (None: they keep none), written under ``data/``: a batch leaves one rewritten file per partition it
        touched, not one per file. A file whose key range (its statistics, for a one-column key) misses
        every key is not opened."""
        if not keys:
            return []
        changed = pa.table({column: [key[index] for key in keys] for index, column in enumerate(columns)})
        outside = _outside_range(table, columns, changed)
        touched: dict[tuple[int, tuple[object, ...]], tuple[list[IcebergDataFile], list[pa.Table]]] = {}
        for path, entry, _added in self._entries(table):
            data_file = entry.data_file
            if outside(data_file) or (kept := _rows_kept(table, path, changed)) is None:
                continue
            old, rows = touched.setdefault((data_file.spec_id, tuple(data_file.partition)), ([], []))
            old.append(data_file)
            rows.append(kept)
        replaced = []
        for old, rows in touched.values():
            kept = pa.concat_tables(rows, promote_options="permissive")
            key = f"{self._target.prefix.strip('/')}/data/{uuid.uuid4().hex}-changes.parquet"
            replaced.append((old, self._written(table, key, kept) if kept.num_rows else None))
        return replaced


def _rows_kept(table: Table, path: str, changed: pa.Table) -> pa.Table | None:
    """The rows of the file at ``path`` whose key is none of ``changed``'s; None when it holds none of them
    (only its key columns were read then)."""
    columns = changed.column_names
    with table.io.new_input(path).open() as stream:
        stored = pq.ParquetFile(stream)
        if not all(column in stored.schema_arrow.names for column in columns):
            return None
        probe = stored.read(columns=columns)
        probe = probe.append_column("_row", pa.array(range(probe.num_rows), pa.int64()))
        types = pa.schema([pa.field(column, stored.schema_arrow.field(column).type) for column in columns])
        try:
            wanted = changed.cast(types)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as error:
            raise CommitError(
                f"The batch's keys ({', '.join(columns)}) do not fit the key columns of Iceberg table file {path} "
                f"({error}): the key changed its type; this batch is not committed."
            ) from None
        hits = probe.join(wanted, keys=columns, join_type="left semi").column("_row")
        if not len(hits):
            return None
        return stored.read().filter(pc.invert(pc.is_in(probe.column("_row"), value_set=hits)))


def _outside_range(table: Table, columns: Sequence[str], changed: pa.Table) -> Callable[[IcebergDataFile], bool]:
    """Whether a data file's statistics show its key column's values all below or all above ``changed``'s
    (a one-column key whose bounds the file keeps; otherwise every file may hold one)."""
    fields = {field.name: field for field in table.schema().fields}
    if len(columns) != 1 or columns[0] not in fields:
        return lambda _data_file: False
    low, high = pc.min_max(changed.column(0)).values()
    if not low.is_valid:
        return lambda _data_file: False
    field = fields[columns[0]]

    def outside(data_file: IcebergDataFile) -> bool:
        lower, upper = data_file.lower_bounds.get(field.field_id), data_file.upper_bounds.get(field.field_id)
        if lower is None or upper is None:
            return False
        try:
            return bool(high.as_py() < from_bytes(field.field_type, lower) or low.as_py() > from_bytes(field.field_type, upper))
        except (TypeError, ValueError):  # bounds of a type the keys do not compare with: open the file
            return False

    return outside


def _read(table: Table, uri: str) -> pa.Table:
    stored = table.io.new_input(uri)
    with stored.open() as stream:
        return pq.read_table(stream)
