"""A change table's rows read and compared with its change log: the log's objects up to the table's
mark reduced as the sink reduces a batch, then :func:`~lakesink.domain.verify.tables.compare_rows`.

The whole log and the whole table are read (docs/verify.md, "Change tables" says what that costs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lakesink.adapters.tables.change_batches import applied_changes
from lakesink.domain.errors import LakesinkError
from lakesink.domain.ports import ObjectStore
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.table_port import TableHead
from lakesink.domain.tables.target import TableTarget
from lakesink.domain.verify.tables import Key, LogObject, Row, TableCheck, compare_rows

READING_THREADS = 16
"""Change objects read at once (each a store round trip)."""


class ReadableChangeTable(Protocol):
    """A change table that can be read whole at the version a head found (the change table adapters)."""

    @property
    def name(self) -> str: ...

    def head(self, connector: str, partitions: Sequence[TopicPartition]) -> TableHead: ...

    def rows(self, head: TableHead) -> pa.Table:
        """Every row of the table at ``head``."""
        ...


def check_change_table(
    target: TableTarget,
    open_table: Callable[[TableTarget], ReadableChangeTable],
    store: ObjectStore,
    connector: str,
    log: Sequence[LogObject],
) -> TableCheck:
    """The change table of ``target`` against the newest change of every key its change ``log`` holds up
    to the table's mark (``connector``'s newest commit); a table or log that cannot be read is reported,
    not raised."""
    spec = target.changes
    assert spec is not None
    try:
        table = open_table(target)
        head = table.head(connector, sorted({each.topic_partition for each in log}))
        marked = dict(head.mark.offsets) if head.mark is not None else {}
        records = _marked_changes(store, [each for each in log if each.topic_partition in marked], marked)
        applied = applied_changes(records, spec, table.name)
        expected = _keyed(applied.rows, spec.key_columns) if applied.rows is not None else []
        held = _keyed(table.rows(head), spec.key_columns) if head.version is not None else []
    except LakesinkError as error:
        return TableCheck(target.name, error=str(error))
    changes = sum(batch.num_rows for batch in records)
    return compare_rows(target.name, dict(expected), applied.removed, held, changes=changes, marked=marked)


def _marked_changes(
    store: ObjectStore, log: Sequence[LogObject], marked: Mapping[TopicPartition, int]
) -> list[pa.Table]:
    """The change records of ``log`` at offsets the table's mark holds (a later upload is not applied yet)."""

    def read(each: LogObject) -> pa.Table:
        envelopes = pq.read_table(pa.BufferReader(store.get(each.bucket, each.key).data))
        offsets = pc.struct_field(envelopes.column("metadata").combine_chunks(), "offset")
        return envelopes.filter(pc.less_equal(offsets, marked[each.topic_partition]))

    with ThreadPoolExecutor(READING_THREADS) as pool:
        return list(pool.map(read, log))


def _keyed(rows: pa.Table, columns: Sequence[str]) -> list[tuple[Key, Row]]:
    return [(tuple(row.get(column) for column in columns), row) for row in rows.to_pylist()]
