"""Which table a statement writes to, and the catalog that names Iceberg tables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from lakesink.domain.config.secret import Secret
from lakesink.domain.tables.changes import ChangeSpec
from lakesink.domain.tables.maintenance import COMPACTED_DIRECTORY
from lakesink.domain.tables.time_partition import TimePartition


class TableFormat(Enum):
    """The table a statement's Parquet objects are committed to (KCQL ``'table.format'``)."""

    ICEBERG = "ICEBERG"
    DELTA = "DELTA"


_ICEBERG_INSTEAD = "Write an Iceberg table ('table.format'='ICEBERG') or plain PARQUET there"
_GCS_DELTA_REFUSED = (
    "delta-rs lists a table's log through GCS's XML API (GET /<bucket>?list-type=2), which the fake-gcs-server "
    "emulator answers with 404, so it is not tested here",
    _ICEBERG_INSTEAD,
)
_AZURE_DELTA_REFUSED = (
    "delta-rs 1.6 finds a table's newest commit by listing its log from the last one it knows (comp=list&prefix="
    "<table>/_delta_log/&startFrom=<its newest commit>); the Azurite emulator ignores startFrom, and delta-rs then "
    "fails with 'Invalid table version: 1' at the third commit, so it is not tested here",
    _ICEBERG_INSTEAD,
)
_CA_BUNDLE_REFUSED = (
    "delta-rs's storage options have no key for a CA file (AWS_CA_BUNDLE is not read), so the table commit "
    "could not reach an endpoint signed by a private CA (connect.s3.ca.bundle)",
    _ICEBERG_INSTEAD,
)
_NO_TABLE_LIBRARY = (
    "lakesink hands pyiceberg and delta-rs the S3, Azure, GCS and local stores only",
    "Write plain PARQUET there, or use S3 (MinIO and other S3-compatible stores included)",
)


def table_backend_refusal(backend: str, table_format: TableFormat, *, private_ca: bool = False) -> str | None:
    """Why a ``table_format`` table is refused on ``backend`` (``private_ca``: its endpoint is reached through
    ``connect.s3.ca.bundle``), or None; checked when the config is loaded, before Spark starts, so a store a
    table library cannot reach fails there and not at the first commit."""
    if backend == "gcs" and table_format is TableFormat.DELTA:
        reason, instead = _GCS_DELTA_REFUSED
    elif backend == "azure" and table_format is TableFormat.DELTA:
        reason, instead = _AZURE_DELTA_REFUSED
    elif backend == "s3" and private_ca and table_format is TableFormat.DELTA:
        reason, instead = _CA_BUNDLE_REFUSED
    elif backend in ("s3", "azure", "gcs", "local", "memory"):
        return None
    else:
        reason, instead = _NO_TABLE_LIBRARY
    return f"'table.format'='{table_format.value}' is refused on the {backend} backend: {reason}. {instead}."


class CatalogType(Enum):
    """Where Iceberg table names are kept (``table.catalog.type``)."""

    SQL = "sql"
    """pyiceberg's SQL catalog: a SQLite file by default, no server to run."""
    REST = "rest"
    GLUE = "glue"


@dataclass(frozen=True, slots=True)
class CatalogSettings:
    """The Iceberg catalog: its type, name, address and any further pyiceberg catalog properties."""

    type: CatalogType = CatalogType.SQL
    name: str = "lakesink"
    uri: str | Secret | None = None
    """SQL: a SQLAlchemy URL (None: the embedded SQLite file); REST: the server's URL; Glue: unused. A
    Secret when it holds credentials (``user:password@``)."""
    warehouse: str | None = None
    properties: Mapping[str, str | Secret] = field(default_factory=dict)
    """Further pyiceberg catalog properties (``table.catalog.<property>``); secret-looking ones masked."""


@dataclass(frozen=True, slots=True)
class TableTarget:
    """One statement's table: its format, its name and where its files and metadata live."""

    format: TableFormat
    name: str
    """Iceberg: ``namespace.table`` in the catalog; Delta: the name recorded in the table's metadata."""
    bucket: str
    prefix: str
    """The table's location in the bucket (the KCQL target prefix, never empty)."""
    partition_columns: tuple[str, ...] = ()
    """The table's identity partition columns: the PARTITIONBY fields that are columns of its files."""
    path_only: tuple[str, ...] = ()
    """The PARTITIONBY specs no partition field stands for (key, headers, topic, a coarser date,
    nested fields): they shape the object keys only, the table is not partitioned by them."""
    time_partition: TimePartition | None = None
    """An Iceberg table's ``day``/``hour`` partition field, for ``_date`` specs that name a UTC day or hour."""
    changes: ChangeSpec | None = None
    """A change table: the statement's objects are change records, applied to the table as upserts and
    deletes by key; None: the objects are the table's data files."""

    @property
    def partition_spec(self) -> tuple[str, ...]:
        """The partition fields of a table lakesink creates, as Iceberg writes them."""
        identity = tuple(f"identity({column})" for column in self.partition_columns)
        return identity + ((self.time_partition.spec,) if self.time_partition else ())

    def owns(self, key: str) -> bool:
        """Whether ``key`` (in the table's bucket) is one of the objects the table's library or its
        maintenance writes, not one of the statement's layout: Iceberg's ``metadata/``, Delta's
        ``_delta_log/``, compacted files (``.compacted/``), and a change table's rows (pyiceberg writes
        them under ``data/``, delta-rs at the table's root, where no layout of the sink puts an object)."""
        root = self.prefix.strip("/") + "/"
        if not key.startswith(root):
            return False
        rest = key[len(root):]
        iceberg = self.format is TableFormat.ICEBERG
        own = ["metadata/" if iceberg else "_delta_log/", f"{COMPACTED_DIRECTORY}/"]
        if self.changes is not None:
            if not iceberg and "/" not in rest:
                return True
            own += ["data/"] if iceberg else []
        return rest.startswith(tuple(own))

    @property
    def identity(self) -> tuple[str, ...]:
        """What makes two statements' targets one table: an Iceberg table's name in the catalog, a
        Delta table's location."""
        if self.format is TableFormat.ICEBERG:
            return (self.format.value, self.name)
        return (self.format.value, self.bucket, self.prefix)
