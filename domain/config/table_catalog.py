"""``table.catalog.*``: the Iceberg catalog of a sink's ``'table.format'='ICEBERG'`` statements."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from lakesink.domain.config.catalog import looks_secret
from lakesink.domain.config.reader import PropertyReader
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from lakesink.domain.tables.target import CatalogSettings, CatalogType

_FAMILY = "table.catalog."
_TYPED = ("type", "name", "uri", "warehouse")


def parse_table_catalog(
    reader: PropertyReader, props: Mapping[str, str], *, hidden: Collection[str] = frozenset()
) -> CatalogSettings:
    """The catalog settings; ``hidden`` keys' values (from a config provider) become secrets.

    Raises:
        ConfigError: an unknown type, or a REST catalog without its URL.
    """
    catalog_type = CatalogType(reader.choice("table.catalog.type", {t.value: t.value for t in CatalogType}) or "sql")
    family = f"{reader.prefix}.{_FAMILY}"
    properties: dict[str, str | Secret] = {}
    for key, value in props.items():
        name = key[len(family) :] if key.startswith(family) else None
        if name is None or name in _TYPED:
            continue
        properties[name] = Secret(value) if key in hidden or looks_secret(name) else value
    raw_uri = reader.text("table.catalog.uri")
    uri_key = reader.key("table.catalog.uri")
    # a SQLAlchemy or REST URL may carry a password (user:password@host)
    uri: str | Secret | None = Secret(raw_uri) if raw_uri and ("@" in raw_uri or uri_key in hidden) else raw_uri
    if catalog_type is CatalogType.REST and not raw_uri:
        raise ConfigError(f"{reader.key('table.catalog.type')}=rest needs {reader.key('table.catalog.uri')}: the REST catalog's URL.")
    return CatalogSettings(
        type=catalog_type,
        name=reader.text("table.catalog.name") or "lakesink",
        uri=uri,
        warehouse=reader.text("table.catalog.warehouse"),
        properties=properties,
    )
