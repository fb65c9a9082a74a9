"""The simulation's table format: a table kept as one JSON object in the object store.

Its commits are conditional writes of that object, so in tests/unit/application/test_simulation.py a
crash, a lost answer or a given-up call can fall between any two of the sink's calls, table commits
included. It is a fake of the :class:`~lakesink.domain.tables.table_port.LakeTable` port with the
same promise as the real formats: a commit based on an old head fails and is never rebased.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from lakesink.domain.errors import ObjectNotFoundError, PreconditionFailedError, TableMovedError
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.marks import TableMark, mark_of, mark_properties
from lakesink.domain.tables.table_port import DataFile, TableHead

KEY = "out/_table.json"


class StoreTable:
    """One table: ``{"commits": [{"files": [keys], "mark": {summary properties}}]}`` at :data:`KEY`."""

    name = "simulated.table"

    def __init__(self, store: Any, bucket: str) -> None:
        self._store = store
        self._bucket = bucket

    def head(self, connector: str, partitions: Collection[TopicPartition]) -> TableHead:
        try:
            stored = self._store.get(self._bucket, KEY)
        except ObjectNotFoundError:
            return TableHead(None, None)
        commits = json.loads(stored.data)["commits"]
        marks = [mark for commit in commits if (mark := mark_of(connector, commit["mark"])) is not None]
        return TableHead((stored.etag, commits), marks[-1] if marks else None)

    def commit(self, head: TableHead, files: Sequence[DataFile], mark: TableMark) -> bool:
        etag, commits = head.version if head.version is not None else (None, [])
        body = json.dumps({"commits": [*commits, {"files": [f.key for f in files], "mark": mark_properties(mark)}]})
        try:
            if etag is None:
                self._store.put_if_absent(self._bucket, KEY, body.encode())
            else:
                self._store.put_if_match(self._bucket, KEY, body.encode(), etag)
        except PreconditionFailedError:
            raise TableMovedError(f"table {self.name} moved since it was read") from None
        return True


    def referenced(self) -> set[str]:
        return set(table_files(self._store, self._bucket))


def table_files(store: Any, bucket: str) -> list[str]:
    """Every data file the table's commits reference, in commit order (duplicates kept)."""
    try:
        commits = json.loads(store.get(bucket, KEY).data)["commits"]
    except ObjectNotFoundError:
        return []
    return [key for commit in commits for key in commit["files"]]
