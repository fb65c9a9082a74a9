"""A Delta Lake table through delta-rs: lakesink's Parquet objects added by one log commit per batch,
with the batch's mark in the same commit.

The mark is kept as ``txn`` actions (the epoch, the last offset of each topic-partition), which
checkpoints and log clean-up keep, plus ``commitInfo`` (connector, owner, epoch). delta-rs would
rebase a commit that lost a race; the protocol must decide again instead, so every commit runs with
``max_commit_retries=0`` and fails if any commit landed since its base version.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import DeltaTable, Field, Schema
from deltalake.exceptions import CommitFailedError, DeltaError, TableNotFoundError
from deltalake.transaction import AddAction, CommitProperties, Transaction, create_table_with_add_actions
from pyarrow.fs import FileSelector, FileSystem, FileType, LocalFileSystem, S3FileSystem

from lakesink.adapters.storage.local_paths import decode_name, encode_segment
from lakesink.adapters.tables.footers import footers
from lakesink.adapters.tables.locations import TableLocation
from lakesink.domain.errors import (
    AccessDeniedError,
    CommitError,
    CommitOutcomeUnknownError,
    TableMovedError,
    TransientStorageError,
)
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.maintenance import SnapshotInfo, TableFile
from lakesink.domain.tables.marks import (
    CONNECTOR_PROPERTY,
    EPOCH_PROPERTY,
    OWNER_PROPERTY,
    UNKNOWN_OWNER,
    TableMark,
    epoch_app_id,
    offset_app_id,
    offsets_from,
)
from lakesink.domain.tables.table_port import DataFile, TableHead
from lakesink.domain.tables.target import TableTarget

HISTORY_DEPTH = 50
"""Commits searched for the owner of the newest mark."""
STRING_BOUND_CHARS = 32
"""Longer string minima and maxima stay out of the file statistics: every commit repeats them."""
_LOST_RACE = "Failed to commit transaction"
"""delta-rs's message for a conflict and for a commit whose version is no longer the newest."""
_DENIED = ("necessary privileges", "Unauthenticated")
"""object_store's messages for 403 and 401, which delta-rs raises as plain OSError like the rest."""
_COMMIT_FILE = re.compile(r"[0-9]{20}\.json")
_COLOURS = re.compile(r"\x1b\[[0-9;]*m")
_BACKTRACE = re.compile(r"\n\s*0: ")


@dataclass(frozen=True, slots=True)
class _Written:
    """A data file as a commit adds it: its path under the table root (its key's, or on the local
    store the file's, which escapes some keys), and what the store says of it."""

    path: str
    size: int
    modified_ms: int
    footer: pq.FileMetaData
    schema: pa.Schema


class DeltaLakeTable:
    """The Delta table at a statement's bucket and prefix (:class:`~lakesink.domain.tables.table_port.LakeTable`).

    Not for concurrent use by several threads: :meth:`commit` reuses the table :meth:`head` loaded.
    """

    def __init__(self, target: TableTarget, location: TableLocation) -> None:
        self._target = target
        self._location = location
        self._prefix = target.prefix.strip("/") + "/"
        self._read: DeltaTable | None = None
        self._store, self._root = _file_system(location)

    @property
    def name(self) -> str:
        return self._location.uri

    def head(self, connector: str, partitions: Collection[TopicPartition]) -> TableHead:
        with self._reading("read it"):
            table = self._read = self._load(None)
            if table is None:
                return TableHead(None, None)
            epoch = table.transaction_version(epoch_app_id(connector))
            if epoch is None:
                return TableHead(table.version(), None)
            offsets = offsets_from(
                {
                    (topic, partition): table.transaction_version(offset_app_id(connector, topic, partition))
                    for topic, partition in partitions
                }
            )
            owner = self._owner(table.version(), connector, epoch)
        return TableHead(table.version(), TableMark(connector, owner, epoch, offsets))

    def referenced(self) -> set[str]:
        """The current version's files, and every file a kept log commit added or removed (a reader
        travelling back to that version needs it until a vacuum)."""
        with self._reading("read its files"):
            table = self._load(None)
            if table is None:
                return set()
            paths = set(table.get_add_actions(flatten=True).column("path").to_pylist())
            log = self._store.get_file_info(FileSelector(f"{self._root}/_delta_log"))
            for info in log:
                if info.type == FileType.File and info.path.endswith(".json"):
                    with self._store.open_input_stream(info.path) as commit:
                        actions = [json.loads(line) for line in commit.read().decode().splitlines() if line.strip()]
                    paths.update(action[kind]["path"] for action in actions for kind in ("add", "remove") if kind in action)
        return {self._key(unquote(path)) for path in paths}

    def _key(self, path: str) -> str:
        """The object key of a path relative to the table root (the inverse of :meth:`_path`)."""
        if self._location.uri.startswith("file:"):
            path = "/".join(decode_name(segment) or "" for segment in path.split("/"))
        return self._prefix + path

    def commit(self, head: TableHead, files: Sequence[DataFile], mark: TableMark) -> bool:
        if head.version is None:
            if not files:  # a Delta table needs a column: the run's first batch creates it
                return False
            self._create(files, mark)
            return True
        table = self._at(head)
        with self._reading("read it"):
            partition_columns = list(table.metadata().partition_columns)
            written = self._written(files)
        new_columns = _columns(self.name, table.schema().fields, [each.schema for each in written])
        actions = [_add_action(self.name, each, partition_columns) for each in written]
        if new_columns:
            # delta-rs's append ignores the schema it is given: a table gains columns only by its own
            # commit. It holds the epoch (so a claim landing since fails it) and no offsets yet.
            with self._sending("add the new columns of its files"):
                table.alter.add_columns(new_columns, commit_properties=marked(replace(mark, offsets={})))
        with self._sending("commit"):
            table.create_write_transaction(
                actions,
                "append",
                table.schema(),
                partition_by=partition_columns,
                commit_properties=marked(mark),
            )
        return True

    def snapshots(self, head: TableHead) -> list[SnapshotInfo]:
        """The log's commits (its versions, dated by their files): Delta's snapshots."""
        if head.version is None:
            return []
        with self._reading("read its log"):
            log = self._store.get_file_info(FileSelector(f"{self._root}/_delta_log"))
        commits = [info for info in log if info.type == FileType.File and _COMMIT_FILE.fullmatch(info.base_name)]
        return [
            SnapshotInfo(int(info.base_name[:20]), info.mtime_ns // 1_000_000 if info.mtime_ns else 0,
                         protected=int(info.base_name[:20]) == head.version)
            for info in commits
        ]

    def expire(self, head: TableHead, ids: Sequence[int]) -> None:
        """Delta cannot drop chosen commits: a checkpoint at the newest version (it keeps the ``txn``
        marks), then delta-rs's log clean-up, which removes the commits older than both the checkpoint
        and the table's ``delta.logRetentionDuration`` (30 days unless the table says otherwise)."""
        with self._sending("checkpoint and clean its log"):
            table = self._load(None)
            if table is not None:
                table.create_checkpoint()
                table.cleanup_metadata()

    def files(self, head: TableHead) -> list[TableFile]:
        if head.version is None:  # no table yet
            return []
        table = self._at(head)
        with self._reading("read its files"):
            actions = pa.table(table.get_add_actions(flatten=True))
            columns = list(table.metadata().partition_columns)
        added_ms = actions.column("modification_time").cast(pa.int64()).to_pylist()  # ms since the epoch
        return [
            TableFile(
                self._key(unquote(action["path"])),
                action["size_bytes"],
                tuple(action[f"partition.{column}"] for column in columns),
                added,
            )
            for action, added in zip(actions.to_pylist(), added_ms, strict=True)
        ]

    def compact(self, head: TableHead, groups: Sequence[Sequence[TableFile]], mark: TableMark | None) -> int:
        """delta-rs's own compaction (``optimize.compact``), one commit per closed partition of ``groups``,
        each conditional on the version before it (no retry) and carrying ``mark``; delta-rs names and
        packs the new files itself, up to the size of the largest group (at most the target size)."""
        table = self._at(head)
        columns = list(table.metadata().partition_columns)
        target = max(sum(each.size for each in group) for group in groups)
        written = 0
        for partition in sorted({group[0].partition for group in groups}, key=repr):
            filters = [(column, "=", _partition_text(self.name, value)) for column, value in zip(columns, partition, strict=True)]
            with self._sending("compact its small files"):
                metrics = table.optimize.compact(
                    partition_filters=filters or None,
                    target_size=max(target, 1),
                    commit_properties=marked(mark) if mark is not None else CommitProperties(max_commit_retries=0),
                )
            written += int(metrics.get("numFilesAdded", 0))
        return written

    def _at(self, head: TableHead) -> DeltaTable:
        """The table at ``head``'s version (the one :meth:`head` loaded, when it still is)."""
        assert isinstance(head.version, int)
        table = self._read if self._read is not None and self._read.version() == head.version else None
        with self._reading("read it"):
            table = table or self._load(head.version)
        if table is None:
            raise TableMovedError(f"Delta table {self.name} was deleted since it was read (version {head.version}).")
        return table

    def _create(self, files: Sequence[DataFile], mark: TableMark) -> None:
        """Create the table with its first files, their columns its schema, partitioned by the
        statement's PARTITIONBY fields that are columns of the files."""
        with self._reading("read the files it is created with"):
            written = self._written(files)
        columns = _columns(self.name, [], [each.schema for each in written])
        partition_by = [column for column in self._target.partition_columns if column in {f.name for f in columns}]
        with self._sending("create it"):
            create_table_with_add_actions(
                self._location.uri,
                Schema(columns),
                [_add_action(self.name, each, partition_by) for each in written],
                mode="error",
                partition_by=partition_by or None,
                name=self._target.name,
                storage_options=self._location.delta_storage,
                commit_properties=marked(mark),
            )

    def _load(self, version: int | None) -> DeltaTable | None:
        try:
            return DeltaTable(
                self._location.uri, version=version, storage_options=self._location.delta_storage
            )
        except TableNotFoundError:
            return None

    def _written(self, files: Sequence[DataFile]) -> list[_Written]:
        """The files as commits add them: from the footers their tasks kept, else read from the store."""
        now_ms = time.time_ns() // 1_000_000
        return [
            _Written(self._path(f), footer.size, now_ms, footer.metadata, footer.metadata.schema.to_arrow_schema())
            for f, footer in zip(files, footers(files, self._read_back), strict=True)
        ]

    def _read_back(self, data_file: DataFile) -> tuple[int, pq.FileMetaData]:
        """A file's size and footer read from the store (its task kept none)."""
        with self._opened(data_file) as source:
            return source.size(), pq.read_metadata(source)

    @contextmanager
    def _opened(self, data_file: DataFile) -> Iterator[pa.NativeFile]:
        """An object the sink wrote for the table, open for reading.

        Raises:
            CommitError: the object is missing (naming it): no retry brings it back.
        """
        try:
            with self._store.open_input_file(f"{self._root}/{self._path(data_file)}") as source:
                yield source
        except FileNotFoundError:
            raise CommitError(
                f"Object {data_file.key!r} that the sink wrote for Delta table {self.name} is missing."
            ) from None

    def _owner(self, version: int, connector: str, epoch: int) -> str:
        """The run of the newest commit of ``connector`` with ``epoch`` among the last
        :data:`HISTORY_DEPTH` (the newest, unless others wrote since).

        Read from the log's commit files, not with delta-rs's ``history``, which holds the GIL while
        it reads the store (see :func:`_file_system`) and reads all of them.
        """
        for newer in range(version, max(version - HISTORY_DEPTH, -1), -1):
            try:
                with self._store.open_input_stream(f"{self._root}/_delta_log/{newer:020d}.json") as log:
                    lines = log.read().decode().splitlines()
            except FileNotFoundError:  # cleaned up: older commits are gone too
                break
            actions = (json.loads(line) for line in lines if '"commitInfo"' in line)
            info = next((action["commitInfo"] for action in actions if "commitInfo" in action), {})
            if info.get(CONNECTOR_PROPERTY) == connector and info.get(EPOCH_PROPERTY) == str(epoch):
                return str(info.get(OWNER_PROPERTY, UNKNOWN_OWNER))
        return UNKNOWN_OWNER

    def _path(self, data_file: DataFile) -> str:
        """Where ``data_file`` is, relative to the table root (the Delta add path)."""
        if data_file.bucket != self._target.bucket or not data_file.key.startswith(self._prefix):
            raise CommitError(
                f"Object {data_file.key!r} of bucket {data_file.bucket!r} is outside Delta table {self.name}: "
                "a Delta table holds only files under its own root."
            )
        path = data_file.key[len(self._prefix) :]
        if self._location.uri.startswith("file:"):  # the local store escapes "%" and empty segments
            return "/".join(encode_segment(segment) for segment in path.split("/"))
        return path

    def _refused(self, error: OSError, what: str) -> AccessDeniedError | None:
        """The store's refusal (403, 401) in ``error``, which delta-rs raises as a plain OSError."""
        if not any(words in str(error) for words in _DENIED):
            return None
        return AccessDeniedError(f"Delta table {self.name}: the store refused to {what}: {_text(error)}")

    @contextmanager
    def _reading(self, what: str) -> Iterator[None]:
        """Store and delta-rs failures before anything is sent: nothing was committed."""
        try:
            yield
        except OSError as error:
            raise self._refused(error, what) or TransientStorageError(
                f"Delta table {self.name}: could not {what}: {_text(error)}"
            ) from error
        except DeltaError as error:
            raise CommitError(f"Delta table {self.name}: could not {what}: {_text(error)}") from error

    @contextmanager
    def _sending(self, what: str) -> Iterator[None]:
        """Failures of a commit: lost races, and store failures once the commit may have been sent."""
        try:
            yield
        except CommitFailedError as error:
            if not str(error).startswith(_LOST_RACE):
                raise CommitError(f"Delta table {self.name}: could not {what}: {_text(error)}") from error
            raise TableMovedError(
                f"Delta table {self.name} moved since it was read: {_text(error)}"
            ) from None
        except OSError as error:
            raise self._refused(error, what) or CommitOutcomeUnknownError(
                f"Delta table {self.name}: the store failed while the sink tried to {what}, which may or may not "
                f"have landed: {_text(error)}"
            ) from error
        except DeltaError as error:
            if "already exists" in str(error):  # created since it was read (delta-rs's check, or the put's)
                raise TableMovedError(
                    f"Delta table {self.name} was created since it was read: {_text(error)}"
                ) from None
            raise CommitError(f"Delta table {self.name}: could not {what}: {_text(error)}") from error


def _file_system(location: TableLocation) -> tuple[FileSystem, str]:
    """pyarrow's file system for the table's files, from delta-rs's storage options, and the table
    root in it. Not delta-rs's own (``deltalake.fs``): like ``DeltaTable.history``, its
    ``open_input_file`` holds the GIL while it waits for the store (delta-rs 1.6.6), which stalls
    every thread of the sink and deadlocks a store served by this process (moto, in the demo and
    the tests)."""
    if location.uri.startswith("file:"):
        return LocalFileSystem(), url2pathname(urlparse(location.uri).path)
    options = location.delta_storage
    store = S3FileSystem(
        access_key=options.get("AWS_ACCESS_KEY_ID"),
        secret_key=options.get("AWS_SECRET_ACCESS_KEY"),
        region=options.get("AWS_REGION"),
        endpoint_override=options.get("AWS_ENDPOINT_URL"),
        force_virtual_addressing=options.get("AWS_VIRTUAL_HOSTED_STYLE_REQUEST") == "true",
    )
    return store, location.uri.removeprefix("s3://")


def marked(mark: TableMark) -> CommitProperties:
    """What a commit records of ``mark``; never retried on a newer version by delta-rs."""
    transactions = [Transaction(epoch_app_id(mark.connector), mark.epoch)] + [
        Transaction(offset_app_id(mark.connector, topic, partition), last)
        for (topic, partition), last in sorted(mark.offsets.items())
    ]
    return CommitProperties(
        custom_metadata={
            CONNECTOR_PROPERTY: mark.connector,
            OWNER_PROPERTY: mark.owner,
            EPOCH_PROPERTY: str(mark.epoch),
        },
        max_commit_retries=0,
        app_transactions=transactions,
    )


def _columns(table: str, known: list[Field], schemas: list[pa.Schema]) -> list[Field]:
    """The columns of ``schemas`` (the files' schemas) that ``known`` (the table's) lacks, nullable
    since older files lack them. Columns of Arrow's null type (an Avro ``null`` field) are left out:
    Delta readers take them for nulls, and a later file may give them a type.

    Raises:
        CommitError: a column has different types in the files, or in a file and the table.
    """
    types = {field.name: field.type for field in known}
    new: list[Field] = []
    for schema in schemas:
        typed = pa.schema([field for field in schema if not pa.types.is_null(field.type)])
        try:
            fields = Schema.from_arrow(typed).fields
        except Exception as error:  # delta-rs raises plain Exception for a type Delta lacks
            raise CommitError(
                f"Delta table {table} cannot hold the columns {schema.names}: {_text(error)}"
            ) from error
        for field in fields:
            if field.name not in types:
                types[field.name] = field.type
                new.append(Field(field.name, field.type, nullable=True))
            elif field.type != types[field.name]:
                raise CommitError(
                    f"Column {field.name!r} of Delta table {table} is {types[field.name]}, but a file the sink "
                    f"wrote holds it as {field.type}: a Delta table cannot change a column's type on append."
                )
    return new


def _add_action(table: str, written: _Written, partition_columns: list[str]) -> AddAction:
    return AddAction(
        path=written.path,  # delta-rs URI-encodes it in the log
        size=written.size,
        partition_values={column: _partition_value(table, written, column) for column in partition_columns},
        modification_time=written.modified_ms,
        data_change=True,
        stats=json.dumps(_stats(written), separators=(",", ":")),
    )


def _statistics(written: _Written, name: str) -> list[pq.Statistics] | None:
    """Per row group, the Parquet statistics of the top-level primitive column ``name``; None when
    it is not one, or when a row group has none."""
    if name not in written.schema.names or pa.types.is_nested(written.schema.field(name).type):
        return None
    footer = written.footer
    leaves = [index for index in range(footer.num_columns) if footer.schema.column(index).path == name]
    if len(leaves) != 1:  # also a struct "a" with a child "b" beside a column named "a.b"
        return None
    found = [footer.row_group(group).column(leaves[0]).statistics for group in range(footer.num_row_groups)]
    return None if any(statistics is None for statistics in found) else found


def _stats(written: _Written) -> dict[str, object]:
    """The add action's statistics: rows, nulls, and the bounds readers may skip files by, given
    only for types whose Parquet bounds mean the same in Delta (no floats: NaN; no timestamps:
    Delta keeps milliseconds)."""
    low: dict[str, object] = {}
    high: dict[str, object] = {}
    nulls: dict[str, int] = {}
    for field in written.schema:
        found = _statistics(written, field.name)
        if found is None:
            continue
        if all(statistics.has_null_count for statistics in found):
            nulls[field.name] = sum(statistics.null_count for statistics in found)
        valued = [statistics for statistics in found if statistics.num_values]
        kind = field.type
        bounded = (
            pa.types.is_signed_integer(kind)
            or pa.types.is_date32(kind)
            or pa.types.is_string(kind)
            or pa.types.is_large_string(kind)
        )
        if not bounded or not valued or not all(statistics.has_min_max for statistics in valued):
            continue
        least, most = min(each.min for each in valued), max(each.max for each in valued)
        if isinstance(least, str) and max(len(least), len(most)) > STRING_BOUND_CHARS:
            continue
        low[field.name], high[field.name] = (
            bound.isoformat() if isinstance(bound, date) else bound for bound in (least, most)
        )
    return {"numRecords": written.footer.num_rows, "minValues": low, "maxValues": high, "nullCount": nulls}


def _partition_value(table: str, written: _Written, column: str) -> str | None:
    """A file's value of a partition column of the table, from its statistics (None: every row null).

    Raises:
        CommitError: the file holds several values of the column, or no statistics of it.
    """
    if column not in written.schema.names:
        return None
    found = _statistics(written, column)
    if found is None or not all(statistics.has_null_count for statistics in found):
        raise CommitError(
            f"File {written.path} of Delta table {table} has no statistics of the partition column {column!r}."
        )
    valued = [statistics for statistics in found if statistics.num_values]
    if not valued:
        return None
    values = {
        bound for statistics in valued if statistics.has_min_max for bound in (statistics.min, statistics.max)
    }
    if (
        len(values) != 1
        or not all(statistics.has_min_max for statistics in valued)
        or any(s.null_count for s in found)
    ):
        raise CommitError(
            f"File {written.path} holds several values of {column!r}, a partition column of Delta table {table}: "
            "a Delta file belongs to one partition. Partition the statement by that column (PARTITIONBY)."
        )
    return _partition_text(table, values.pop())


def _partition_text(table: str, value: object) -> str:
    """A partition value as the Delta protocol writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.isoformat(sep=" ")
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes):
        raise CommitError(
            f"Delta table {table} is partitioned by a binary column: the sink cannot write its values."
        )
    return str(value)


def _text(error: BaseException) -> str:
    """delta-rs's message on one line, without its terminal colours and any Rust backtrace."""
    return " ".join(_BACKTRACE.split(_COLOURS.sub("", str(error)), maxsplit=1)[0].split())
