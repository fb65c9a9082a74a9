"""A Delta change table through delta-rs: each batch's change records applied as one merge by key,
the batch's mark in the same commit (docs/tables.md, "Change data").

The merge's source holds the newest row of each upserted key and the key of each deleted one, told
apart by a column of their own: matched rows are updated or deleted, unmatched upserts inserted.
delta-rs rewrites the files that hold matched rows (copy-on-write) and writes the new ones itself.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import DeltaTable, write_deltalake

from lakesink.adapters.tables.change_batches import AppliedChanges, applied_changes
from lakesink.adapters.tables.delta_table import DeltaLakeTable, marked
from lakesink.domain.tables.changes import ChangeSpec
from lakesink.domain.tables.marks import TableMark
from lakesink.domain.tables.table_port import DataFile, TableHead

logger = logging.getLogger(__name__)

_OP = "_lakesink_op"
"""The merge source's column that tells an upsert from a delete (never written to the table)."""


class DeltaChangeTable(DeltaLakeTable):
    """A Delta table holding the newest state of every key of a change topic."""

    def commit(self, head: TableHead, files: Sequence[DataFile], mark: TableMark) -> bool:
        spec = self._target.changes
        assert spec is not None
        with self._reading("read the change records it applies"):
            records = [self._change_records(data_file) for data_file in files]
        applied = applied_changes(records, spec, self.name)
        if applied.skipped:
            logger.warning(
                "Delta table %s: %d truncate events of this batch are not applied (they name no key)",
                self.name, applied.skipped,
            )
        if head.version is None:
            # a Delta table needs columns: the first batch that upserts a row creates it (deletes of
            # rows that were never there change nothing, so the offsets may wait for that batch)
            if applied.rows is None:
                return False
            with self._sending("create it"):
                write_deltalake(
                    self._location.uri, applied.rows, mode="error", name=self._target.name,
                    storage_options=self._location.delta_storage, commit_properties=marked(mark),
                )
            return True
        table = self._at(head)
        with self._sending("merge the batch's changes"):
            self._merge(table, applied, spec, mark)
        return True

    def rows(self, head: TableHead) -> pa.Table:
        """Every row of the table at ``head`` (``lakesink verify`` compares them with the change log)."""
        table = self._at(head)
        with self._reading("read its rows"):
            return table.to_pyarrow_table()

    def _merge(self, table: DeltaTable, applied: AppliedChanges, spec: ChangeSpec, mark: TableMark) -> None:
        """One merge commit (or, for a batch that changes no key, one commit of no files) with the mark."""
        source = _merge_source(applied, spec, pa.schema(table.schema().to_arrow()))
        if source is None:
            table.create_write_transaction([], "append", table.schema(), commit_properties=marked(mark))
            return
        on = " AND ".join(f'target."{column}" = source."{column}"' for column in spec.key_columns)
        (
            table.merge(source, on, source_alias="source", target_alias="target", merge_schema=True,
                        commit_properties=marked(mark))
            .when_matched_delete(predicate=f"source.{_OP} = 'delete'")
            .when_matched_update_all(predicate=f"source.{_OP} = 'upsert'", except_cols=[_OP])
            .when_not_matched_insert_all(predicate=f"source.{_OP} = 'upsert'", except_cols=[_OP])
            .execute()
        )

    def _change_records(self, data_file: DataFile) -> pa.Table:
        """A change object's records (a missing one is a CommitError naming it, as for appended files)."""
        with self._opened(data_file) as source:
            return pq.read_table(source)


def _merge_source(applied: AppliedChanges, spec: ChangeSpec, table_schema: pa.Schema) -> pa.Table | None:
    """The upserted rows and the deleted keys, each marked with what to do; None when there is neither."""
    parts = []
    if applied.rows is not None:
        parts.append(applied.rows.append_column(_OP, pa.array(["upsert"] * applied.rows.num_rows)))
    if applied.removed:
        columns = {
            column: pa.array([key[index] for key in applied.removed]).cast(_key_type(column, applied, table_schema))
            for index, column in enumerate(spec.key_columns)
        }
        parts.append(pa.table({**columns, _OP: pa.array(["delete"] * len(applied.removed))}))
    return pa.concat_tables(parts, promote_options="default") if parts else None


def _key_type(column: str, applied: AppliedChanges, table_schema: pa.Schema) -> pa.DataType:
    """The key column's type in this batch's rows, else in the table."""
    schema = applied.rows.schema if applied.rows is not None else table_schema
    return schema.field(column).type if schema.get_field_index(column) >= 0 else table_schema.field(column).type
