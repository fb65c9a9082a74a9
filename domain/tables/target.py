"""Which table a statement writes to, and the catalog that names Iceberg tables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from lakesink.domain.config.secret import Secret
from lakesink.domain.tables.changes import ChangeSpec
from lakesink.domain.tables.time_partition import TimePartition

#: The cloud backends whose credentials lakesink does not hand to pyiceberg and delta-rs yet.
NO_TABLE_BACKENDS = ("gcs", "azure")


def table_backend_message(backend: str) -> str:
    """Why ``'table.format'`` is refused on ``backend``: checked when the config is loaded (before
    Spark starts) and again where the table is opened."""
    return (
        f"'table.format' needs the S3 or the local backend for now, not {backend}: lakesink does not yet hand "
        f"{backend} credentials to pyiceberg and delta-rs. Write plain PARQUET there, or use S3 (MinIO and "
        "other S3-compatible stores included)."
    )


class TableFormat(Enum):
    """The table a statement's Parquet objects are committed to (KCQL ``'table.format'``)."""

    ICEBERG = "ICEBERG"
    DELTA = "DELTA"


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
        """Whether ``key`` (in the table's bucket) is one of the objects the table's library writes, not
        one of the statement's layout: Iceberg's ``metadata/``, Delta's ``_delta_log/``, and a change
        table's rows (pyiceberg writes them under ``data/``, delta-rs at the table's root, where no
        layout of the sink puts an object)."""
        root = self.prefix.strip("/") + "/"
        if not key.startswith(root):
            return False
        rest = key[len(root):]
        iceberg = self.format is TableFormat.ICEBERG
        own = ["metadata/" if iceberg else "_delta_log/"]
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
