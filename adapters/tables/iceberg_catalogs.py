"""The Iceberg catalog a sink names its tables in: pyiceberg's SQL catalog on a SQLite file by
default (no server to run), or a REST catalog, or AWS Glue, from ``table.catalog.*``."""

from __future__ import annotations

import logging
from pathlib import Path

from pyiceberg.catalog import Catalog, load_catalog
from pyiceberg.catalog.sql import SqlCatalog

from lakesink.adapters.tables.locations import TableLocation
from lakesink.domain.config.secret import Secret
from lakesink.domain.tables.target import CatalogSettings, CatalogType

logger = logging.getLogger(__name__)

DEFAULT_SQLITE = Path.home() / ".local" / "share" / "lakesink" / "iceberg-catalog.db"
"""The embedded catalog's file when ``table.catalog.uri`` is not set: it must outlive every run."""


def open_catalog(settings: CatalogSettings, location: TableLocation) -> Catalog:
    """The catalog of ``settings``, reaching table files as ``location`` says."""
    properties = {
        **location.iceberg_io,
        **{key: value.reveal() if isinstance(value, Secret) else value for key, value in settings.properties.items()},
    }
    if settings.warehouse:
        properties["warehouse"] = settings.warehouse
    uri = settings.uri.reveal() if isinstance(settings.uri, Secret) else settings.uri
    if settings.type is CatalogType.SQL:
        return SqlCatalog(settings.name, uri=uri or _default_sqlite(), **properties)
    if uri:
        properties["uri"] = uri
    return load_catalog(settings.name, type=settings.type.value, **properties)


def _default_sqlite() -> str:
    DEFAULT_SQLITE.parent.mkdir(parents=True, exist_ok=True)
    logger.info("Iceberg tables are named in the embedded SQL catalog %s (table.catalog.uri)", DEFAULT_SQLITE)
    return f"sqlite:///{DEFAULT_SQLITE}"
