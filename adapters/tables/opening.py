"""The table adapter a statement's ``'table.format'`` asks for, reaching the connector's store."""

from __future__ import annotations

from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.backends import BackendSettings
from lakesink.domain.tables.table_port import LakeTable
from lakesink.domain.tables.target import CatalogSettings, TableFormat, TableTarget


def open_lake_table(
    target: TableTarget, backend: str, storage: BackendSettings, catalog: CatalogSettings
) -> LakeTable:
    """The table of ``target``, opened when the sink claims it (a SQL catalog connects, a REST catalog
    asks its server for its configuration: inside the start-up's waiting).

    pyiceberg and deltalake are imported here, by the sinks that write tables only: each takes
    a noticeable time to import, which every other run (and every Spark worker) is spared.
    """
    location = table_location(backend, storage, target.bucket, target.prefix)
    if target.format is TableFormat.ICEBERG:
        from lakesink.adapters.tables.iceberg_catalogs import open_catalog
        from lakesink.adapters.tables.iceberg_table import IcebergTable

        return IcebergTable(target, location, open_catalog(catalog, location))
    from lakesink.adapters.tables.delta_table import DeltaLakeTable

    return DeltaLakeTable(target, location)
