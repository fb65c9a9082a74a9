"""The Iceberg catalog a sink names its tables in: pyiceberg's SQL catalog on a SQLite file by
default (no server to run), or a REST catalog, or AWS Glue, from ``table.catalog.*``."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pyiceberg.catalog import Catalog, load_catalog
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import (
    ForbiddenError,
    OAuthError,
    ServerError,
    ServiceUnavailableError,
    UnauthorizedError,
)

from lakesink.adapters.tables.locations import TableLocation
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError, TransientStorageError
from lakesink.domain.tables.target import CatalogSettings, CatalogType

logger = logging.getLogger(__name__)

DEFAULT_SQLITE = Path.home() / ".local" / "share" / "lakesink" / "iceberg-catalog.db"
"""The embedded catalog's file when ``table.catalog.uri`` is not set: it must outlive every run."""


def open_catalog(settings: CatalogSettings, location: TableLocation) -> Catalog:
    """The catalog of ``settings``, reaching table files as ``location`` says (a REST catalog asks its
    server for its configuration here, exchanging ``table.catalog.credential`` for a token first).

    Raises:
        ConfigError: nothing answers at ``table.catalog.uri``, or the catalog refuses the credentials.
        TransientStorageError: the catalog's server failed (5xx): it may answer later.
    """
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
    with _opening(settings):
        return load_catalog(settings.name, type=settings.type.value, **properties)


@contextmanager
def _opening(settings: CatalogSettings) -> Iterator[None]:
    """A catalog that cannot be opened, as an error naming the settings to check; the messages carry
    no secret (a ``table.catalog.uri`` holding credentials is named, not shown)."""
    catalog = f"Iceberg {settings.type.value} catalog"
    uri = "table.catalog.uri" if isinstance(settings.uri, Secret) or not settings.uri else f"table.catalog.uri {settings.uri}"
    try:
        yield
    except (UnauthorizedError, ForbiddenError, OAuthError) as error:
        raise ConfigError(
            f"The {catalog} at {uri} refused lakesink's credentials (table.catalog.credential, table.catalog.token): "
            f"{_scrubbed(str(error), settings)}"
        ) from None
    except (ServerError, ServiceUnavailableError) as error:
        raise TransientStorageError(f"The {catalog} at {uri} failed: {_scrubbed(str(error), settings)}") from None
    except OSError as error:  # requests' connection errors: refused, unknown host, timed out
        raise ConfigError(
            f"The {catalog} does not answer at {uri} ({_scrubbed(str(error), settings)}): check the setting, "
            "and that the catalog's server runs"
        ) from None


def _scrubbed(text: str, settings: CatalogSettings) -> str:
    """``text`` without the value of any secret setting of the catalog."""
    secrets = [settings.uri, *settings.properties.values()]
    for secret in secrets:
        if isinstance(secret, Secret) and secret.reveal():
            text = text.replace(secret.reveal(), "****")
    return text


def _default_sqlite() -> str:
    DEFAULT_SQLITE.parent.mkdir(parents=True, exist_ok=True)
    logger.info("Iceberg tables are named in the embedded SQL catalog %s (table.catalog.uri)", DEFAULT_SQLITE)
    return f"sqlite:///{DEFAULT_SQLITE}"
