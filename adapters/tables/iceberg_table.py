"""An Iceberg table through pyiceberg: lakesink's Parquet objects added in one snapshot per batch,
with the batch's mark in the snapshot summary (and in a table property, found when snapshots
expired).

pyiceberg rebases a commit that lost a race (0.12's ``commit.retry.num-retries``); the protocol must
decide again (the new head may be a newer run's claim), so its commits run with that retry off, on a
view of the table, leaving the table's own properties as they are.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.catalog import Catalog
from pyiceberg.exceptions import (
    CommitFailedException,
    CommitStateUnknownException,
    ForbiddenError,
    NoSuchTableError,
    RESTError,
    ServerError,
    ServiceUnavailableError,
    TableAlreadyExistsError,
    TooManyRequestsError,
    UnauthorizedError,
    ValidationError,
)
from pyiceberg.io.pyarrow import (
    compute_statistics_plan,
    data_file_statistics_from_parquet_metadata,
    parquet_path_to_id_mapping,
)
from pyiceberg.manifest import DataFile as IcebergDataFile
from pyiceberg.manifest import DataFileContent, FileFormat, ManifestEntry
from pyiceberg.schema import Schema
from pyiceberg.table import Table, TableProperties, Transaction
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.table.snapshots import Snapshot
from pyiceberg.transforms import DayTransform, HourTransform
from sqlalchemy.exc import OperationalError

from lakesink.adapters.tables.footers import Footer, footers
from lakesink.adapters.tables.locations import TableLocation
from lakesink.domain.errors import (
    AccessDeniedError,
    CommitError,
    CommitOutcomeUnknownError,
    TableMovedError,
    TransientStorageError,
)
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.maintenance import SnapshotInfo, TableFile, compacted_key
from lakesink.domain.tables.marks import (
    TableMark,
    mark_from_text,
    mark_of,
    mark_properties,
    mark_property,
    mark_text,
)
from lakesink.domain.tables.metadata_orphans import MetadataReferences
from lakesink.domain.tables.table_port import DataFile, TableHead
from lakesink.domain.tables.target import TableTarget
from lakesink.domain.tables.time_partition import TimeUnit

_NO_REBASE = {"commit.retry.num-retries": "0"}
_CREATED_PROPERTIES = {TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED: "true"}
"""Tables lakesink creates drop the metadata.json files that fall out of the metadata log (the newest
``write.metadata.previous-versions-max``, 100, are kept) at each commit, as Java Iceberg does."""
_UNAVAILABLE = (OSError, ServerError, ServiceUnavailableError, TooManyRequestsError, OperationalError)
"""The store, the REST catalog or the SQL catalog's database not answering (or busy, or throttling): it
ends by itself."""
_DENIED = (ForbiddenError, UnauthorizedError)


class IcebergTable:
    """One Iceberg table of a catalog (:class:`~lakesink.domain.tables.table_port.LakeTable`)."""

    def __init__(self, target: TableTarget, location: TableLocation, catalog: Catalog) -> None:
        self._target = target
        self._location = location
        self._catalog = catalog
        self._identifier = _identifier(target.name)

    @property
    def name(self) -> str:
        return self._target.name

    def head(self, connector: str, partitions: Collection[TopicPartition]) -> TableHead:
        with self._reading("read it"):
            try:
                table = self._catalog.load_table(self._identifier)
            except NoSuchTableError:
                return TableHead(None, None)
            marks = (mark_of(connector, snapshot.summary.additional_properties) for snapshot in _ancestry(table))
            newest = next((mark for mark in marks if mark is not None), None)
        if newest is None and (kept := table.properties.get(mark_property(connector))) is not None:
            newest = mark_from_text(connector, kept)  # the connector's snapshots expired
        return TableHead(table, newest)

    def referenced(self) -> set[str]:
        with self._reading("read its files"):
            try:
                table = self._catalog.load_table(self._identifier)
            except NoSuchTableError:
                return set()
            if not table.snapshots():
                return set()
            paths = table.inspect.all_data_files().column("file_path").to_pylist()  # every snapshot's files
        root = self._location.bucket_uri
        return {path[len(root):] for path in paths if path.startswith(root)}

    def metadata_references(self) -> MetadataReferences | None:
        with self._reading("read its metadata"):
            try:
                table = self._catalog.load_table(self._identifier)
            except NoSuchTableError:
                return None
            manifests = table.inspect.all_manifests().column("path").to_pylist()  # delete manifests included
        metadata = table.metadata
        paths = [table.metadata_location, *(entry.metadata_file for entry in metadata.metadata_log),
                 *(snapshot.manifest_list for snapshot in metadata.snapshots), *manifests]
        root = self._location.bucket_uri
        if not all(path.startswith(root) for path in paths):
            return None  # metadata in another bucket (or spelt otherwise): lakesink cannot tell what is needed
        current, *needed = (path[len(root):] for path in paths)
        return MetadataReferences(current, frozenset(needed))

    def commit(self, head: TableHead, files: Sequence[DataFile], mark: TableMark) -> bool:
        with self._reading("read the files it commits"):
            table = self._created() if head.version is None else head.version
            assert isinstance(table, Table)
            kept = footers(files, lambda data_file: _read_back(table, self._location.file_uri(data_file.key)))
        with self._sending():
            with without_rebase(table).transaction() as transaction:
                if kept:
                    self._evolve(transaction, [footer.metadata.schema.to_arrow_schema() for footer in kept])
                    if _holds_no_data(table) and table.spec().is_unpartitioned():
                        self._partition(transaction)
                    evolved = transaction.table_metadata.current_schema_id != table.metadata.current_schema_id
                    if evolved or transaction.table_metadata.name_mapping() is None:
                        # lakesink's files carry no field ids: readers find their columns by these names
                        mapping = transaction.table_metadata.schema().name_mapping.model_dump_json()
                        transaction.set_properties(**{TableProperties.DEFAULT_NAME_MAPPING: mapping})
                transaction.set_properties(**{mark_property(mark.connector): mark_text(mark)})
                snapshot = transaction.update_snapshot(snapshot_properties=mark_properties(mark))
                with snapshot.fast_append() as append:
                    for footer in kept:
                        append.append_data_file(self._data_file(transaction.table_metadata, footer))
        return True

    def snapshots(self, head: TableHead) -> list[SnapshotInfo]:
        table = head.version
        if not isinstance(table, Table):
            return []
        protected = {ref.snapshot_id for ref in table.metadata.refs.values()}
        return [SnapshotInfo(s.snapshot_id, s.timestamp_ms, s.snapshot_id in protected) for s in table.snapshots()]

    def files(self, head: TableHead) -> list[TableFile]:
        root = self._location.bucket_uri
        with self._reading("read its files"):
            return [
                TableFile(path[len(root):], entry.data_file.file_size_in_bytes, tuple(entry.data_file.partition), added)
                for path, entry, added in self._entries(head.version)
                if path.startswith(root)
            ]

    def _entries(self, table: object) -> Iterator[tuple[str, ManifestEntry, int]]:
        """The live data files of the current snapshot of ``table`` (a head's version): path, manifest
        entry, when its commit was made (0 when that snapshot expired: long ago)."""
        snapshot = table.current_snapshot() if isinstance(table, Table) else None
        if snapshot is None or not isinstance(table, Table):
            return
        for manifest in snapshot.manifests(table.io):
            for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=True):
                if entry.data_file.content == DataFileContent.DATA:
                    added = table.snapshot_by_id(entry.snapshot_id) if entry.snapshot_id is not None else None
                    yield entry.data_file.file_path, entry, added.timestamp_ms if added is not None else 0

    def expire(self, head: TableHead, ids: Sequence[int]) -> None:
        table = head.version
        assert isinstance(table, Table)
        with self._sending():
            table.maintenance.expire_snapshots().by_ids(list(ids)).commit()

    def compact(self, head: TableHead, groups: Sequence[Sequence[TableFile]], mark: TableMark | None) -> int:
        table = head.version
        assert isinstance(table, Table)
        with self._reading("read the files it compacts"):
            entries = {path: entry.data_file for path, entry, _added in self._entries(table)}
            written = [self._rewritten(table, group) for group in groups]
        with self._sending():
            with without_rebase(table).transaction() as transaction:
                properties = {} if mark is None else mark_properties(mark)
                if mark is not None:
                    transaction.set_properties(**{mark_property(mark.connector): mark_text(mark)})
                with transaction.update_snapshot(snapshot_properties=properties).overwrite() as overwrite:
                    for group in groups:
                        for each in group:
                            overwrite.delete_data_file(entries[self._location.file_uri(each.key)])
                    for footer in written:
                        overwrite.append_data_file(self._data_file(transaction.table_metadata, footer))
        return len(written)

    def _rewritten(self, table: Table, group: Sequence[TableFile]) -> Footer:
        """The group's rows, in its order, written as one Parquet object at its compacted key."""
        parts = []
        for each in group:
            with table.io.new_input(self._location.file_uri(each.key)).open() as stream:
                parts.append(pq.read_table(stream))
        rows = pa.concat_tables(parts, promote_options="permissive")
        return self._written(table, compacted_key(self._target.prefix, group), rows)

    def _written(self, table: Table, key: str, rows: pa.Table) -> Footer:
        """``rows`` written as one Parquet object at ``key`` of the table's bucket, and its footer."""
        buffer = pa.BufferOutputStream()
        pq.write_table(rows, buffer, compression="zstd")  # as pyiceberg writes the table's own files
        data = buffer.getvalue()
        with table.io.new_output(self._location.file_uri(key)).create(overwrite=True) as out:
            out.write(data.to_pybytes())
        return Footer(key, data.size, pq.read_metadata(pa.BufferReader(data)))

    @contextmanager
    def _reading(self, what: str) -> Iterator[None]:
        """Failures before a commit is sent: nothing was committed."""
        try:
            yield
        except FileNotFoundError as error:
            raise CommitError(f"Iceberg table {self.name}: could not {what}, an object is missing: {error}") from error
        except _DENIED as error:
            raise AccessDeniedError(f"Iceberg table {self.name}: not allowed to {what}: {error}") from error
        except _UNAVAILABLE as error:
            raise TransientStorageError(f"Iceberg table {self.name}: could not {what}: {error}") from error

    @contextmanager
    def _sending(self) -> Iterator[None]:
        """Failures of a commit: lost races, and failures once it may have been sent (the protocol
        reads the table again: a commit that landed is recognised by its offsets)."""
        try:
            yield
        except (CommitFailedException, NoSuchTableError) as error:
            raise TableMovedError(f"Iceberg table {self.name} moved since it was read: {error}") from None
        except _DENIED as error:
            raise AccessDeniedError(f"Iceberg table {self.name}: not allowed to commit: {error}") from error
        except (CommitStateUnknownException, *_UNAVAILABLE) as error:
            raise CommitOutcomeUnknownError(
                f"Iceberg table {self.name}: the commit may or may not have landed ({error})"
            ) from error
        except RESTError as error:  # a REST catalog refused the commit: nothing was committed
            if _http_status(error) == 404:  # pyiceberg's REST commit has no NoSuchTableError for it
                raise TableMovedError(f"Iceberg table {self.name} moved since it was read: {error}") from None
            raise CommitError(f"Iceberg table {self.name}: the catalog refused the commit: {error}") from error

    def _evolve(self, transaction: Transaction, schemas: list[pa.Schema]) -> None:
        """Union the files' columns into the table's by name: new columns, and the promotions Iceberg
        allows (int to long, float to double); nothing when they are the table's already."""
        try:
            merged = _optional(pa.unify_schemas(schemas, promote_options="permissive"))
            with transaction.update_schema() as update:
                update.union_by_name(merged)
        except (ValueError, ValidationError, pa.ArrowTypeError, pa.ArrowInvalid) as error:
            raise CommitError(
                f"Iceberg table {self.name} cannot take the columns of this batch's files ({error}): a field changed "
                "its type in a way the table cannot follow. Fix the producer, or route those records to another "
                "table; this batch is not committed."
            ) from None

    def _data_file(self, metadata: TableMetadata, footer: Footer) -> IcebergDataFile:
        try:
            return _data_file(metadata, self._location.file_uri(footer.key), footer)
        except ValueError as error:  # a column of a type the table lacks, or a file of two partition values
            raise CommitError(
                f"Iceberg table {self.name} cannot take file {footer.key} ({error}): its columns or its partition "
                "values do not fit the table's schema and partition spec; this batch is not committed."
            ) from None

    def _partition(self, transaction: Transaction) -> None:
        """The statement's partition spec, given with the table's first files (a table lakesink made,
        or an empty one): identity on each PARTITIONBY field its files hold as a column, then the
        day or hour of the record timestamp for ``_date``. A table with data keeps the spec it has
        (its owner's choice)."""
        columns, timed = self._target.partition_columns, self._target.time_partition
        if columns or timed:
            with transaction.update_spec() as spec:
                for column in columns:
                    spec.add_identity(column)
                if timed is not None:
                    transform = DayTransform() if timed.unit is TimeUnit.DAY else HourTransform()
                    spec.add_field(timed.column, transform, f"{timed.column}_{timed.unit.value}")

    def _created(self) -> Table:
        """The table, created at the statement's location (its schema grows with the first files), with
        :data:`_CREATED_PROPERTIES`."""
        namespace = self._identifier[:-1]
        self._catalog.create_namespace_if_not_exists(namespace)
        try:
            return self._catalog.create_table(self._identifier, schema=Schema(), location=self._location.uri,
                                              properties=_CREATED_PROPERTIES)
        except TableAlreadyExistsError:
            raise TableMovedError(f"Iceberg table {self.name} was created by another writer since it was read") from None


def _identifier(name: str) -> tuple[str, ...]:
    parts = tuple(name.split("."))
    if len(parts) < 2 or not all(parts):
        raise CommitError(f"Iceberg table name {name!r} must be namespace.table")
    return parts


def _http_status(error: RESTError) -> int | None:
    """The HTTP status of a REST catalog's answer, from the error pyiceberg raised it from."""
    response = getattr(error.__cause__, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def _ancestry(table: Table) -> Iterator[Snapshot]:
    """The snapshots of the table's main branch, newest first."""
    snapshot = table.current_snapshot()
    while snapshot is not None:
        yield snapshot
        parent = snapshot.parent_snapshot_id
        snapshot = table.snapshot_by_id(parent) if parent is not None else None


def _read_back(table: Table, uri: str) -> tuple[int, pq.FileMetaData]:
    """A file's size and footer read from the store (its task kept none)."""
    stored = table.io.new_input(uri)
    with stored.open() as stream:
        return len(stored), pq.read_metadata(stream)


def _data_file(metadata: TableMetadata, uri: str, footer: Footer) -> IcebergDataFile:
    """The manifest entry of one Parquet file: its statistics and partition from its footer."""
    schema = metadata.schema()
    statistics = data_file_statistics_from_parquet_metadata(
        parquet_metadata=footer.metadata,
        stats_columns=compute_statistics_plan(schema, metadata.properties),
        parquet_column_mapping=parquet_path_to_id_mapping(schema),
    )
    return IcebergDataFile.from_args(
        content=DataFileContent.DATA,
        file_path=uri,
        file_format=FileFormat.PARQUET,
        partition=statistics.partition(metadata.spec(), schema),
        file_size_in_bytes=footer.size,
        sort_order_id=None,
        spec_id=metadata.default_spec_id,
        equality_ids=None,
        key_metadata=None,
        **statistics.to_serialized_dict(),
    )


def _optional(schema: pa.Schema) -> pa.Schema:
    """``schema`` with every field nullable, nested ones included: Iceberg adds only optional
    columns to a table that has rows (the envelope's ``metadata`` is required in its files)."""
    return pa.schema([_optional_field(f) for f in schema])


def _optional_field(arrow_field: pa.Field) -> pa.Field:
    kind = arrow_field.type
    if pa.types.is_struct(kind):
        kind = pa.struct([_optional_field(kind.field(i)) for i in range(kind.num_fields)])
    elif pa.types.is_list(kind):
        kind = pa.list_(_optional_field(kind.value_field))
    elif pa.types.is_large_list(kind):
        kind = pa.large_list(_optional_field(kind.value_field))
    elif pa.types.is_map(kind):
        kind = pa.map_(kind.key_field, _optional_field(kind.item_field))
    return arrow_field.with_type(kind).with_nullable(True)


def _holds_no_data(table: Table) -> bool:
    snapshot = table.current_snapshot()
    return snapshot is None or snapshot.summary.additional_properties.get("total-data-files", "0") == "0"


def without_rebase(table: Table) -> Table:
    """``table`` whose commits never retry onto a newer head (the protocol decides again instead)."""
    metadata = table.metadata.model_copy(update={"properties": {**table.metadata.properties, **_NO_REBASE}})
    return Table(table.name(), metadata, table.metadata_location, table.io, table.catalog)
