"""The table adapter a statement's ``'table.format'`` asks for, reaching the connector's store."""

from __future__ import annotations

from collections.abc import Callable

from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.extras import needs_extra
from lakesink.domain.tables.table_port import LakeTable
from lakesink.domain.tables.target import TableFormat, TableTarget


def table_opener(settings: ConnectorSettings) -> Callable[[TableTarget], LakeTable]:
    """What opens a statement's table for the sink of ``settings`` (its store, its catalog)."""

    def open_lake_table(target: TableTarget) -> LakeTable:
        """The table of ``target``, opened when the sink claims it (a SQL catalog connects, a REST
        catalog asks its server for its configuration: inside the start-up's waiting).

        pyiceberg and deltalake are imported here, by the sinks that write tables only: each takes
        a noticeable time to import, which every other run (and every Spark worker) is spared.
        """
        location = table_location(settings.backend, settings.storage, target.bucket, target.prefix)
        if target.format is TableFormat.ICEBERG:
            with needs_extra("iceberg"):
                from lakesink.adapters.tables.iceberg_catalogs import open_catalog
                from lakesink.adapters.tables.iceberg_changes import IcebergChangeTable
                from lakesink.adapters.tables.iceberg_table import IcebergTable

            kind = IcebergTable if target.changes is None else IcebergChangeTable
            return kind(target, location, open_catalog(settings.table_catalog, location))
        with needs_extra("delta"):
            from lakesink.adapters.tables.delta_changes import DeltaChangeTable
            from lakesink.adapters.tables.delta_table import DeltaLakeTable

        return (DeltaLakeTable if target.changes is None else DeltaChangeTable)(target, location)

    return open_lake_table
