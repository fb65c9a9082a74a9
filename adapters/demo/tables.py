"""The demo's tables read back through their own metadata: pyiceberg for Iceberg, polars for Delta.

Neither reader shares code with the sink's commit path: pyiceberg plans the scan from the
catalog's current snapshot, polars replays the Delta log through delta-rs. The audit then reads
the rows of exactly the data files the table references.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import polars as pl
from deltalake import DeltaTable
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table import Table


class _S3Server(Protocol):
    @property
    def url(self) -> str: ...

    def connector_settings(self) -> dict[str, str]: ...


@dataclass(frozen=True, slots=True)
class IcebergReadback:
    """An Iceberg table of a SQL catalog, its data files on the demo's S3 server."""

    catalog_uri: str
    name: str
    server: _S3Server

    def data_keys(self) -> list[str]:
        """Bucket keys of the data files the current snapshot references."""
        return [_key(task.file.file_path) for task in self.table().scan().plan_files()]

    def row_count(self) -> int:
        """Rows of a full pyiceberg scan."""
        return int(self.table().scan().to_arrow().num_rows)

    def table(self) -> Table:
        """The table as its catalog has it now."""
        settings = self.server.connector_settings()
        catalog = SqlCatalog("lakesink", uri=self.catalog_uri, **{
            "s3.endpoint": self.server.url, "s3.region": settings["connect.s3.aws.region"],
            "s3.access-key-id": settings["connect.s3.aws.access.key"],
            "s3.secret-access-key": settings["connect.s3.aws.secret.key"]})
        return catalog.load_table(self.name)


@dataclass(frozen=True, slots=True)
class DeltaReadback:
    """A Delta table at ``uri`` (``s3://bucket/prefix``) on the demo's S3 server."""

    uri: str
    server: _S3Server

    def data_keys(self) -> list[str]:
        """Bucket keys of the data files the table's current version references."""
        return [_key(uri) for uri in self.table().file_uris()]

    def row_count(self) -> int:
        """Rows polars counts scanning the table."""
        return int(pl.scan_delta(self.uri, storage_options=object_store_options(self.server)).select(pl.len()).collect().item())

    def table(self) -> DeltaTable:
        """The table's current version."""
        return DeltaTable(self.uri, storage_options=object_store_options(self.server))


def object_store_options(server: _S3Server) -> dict[str, str]:
    """object_store's options for the demo's S3 server (polars' and delta-rs's own readers)."""
    settings = server.connector_settings()
    return {"AWS_ENDPOINT_URL": server.url, "AWS_ALLOW_HTTP": "true",
            "AWS_REGION": settings["connect.s3.aws.region"],
            "AWS_ACCESS_KEY_ID": settings["connect.s3.aws.access.key"],
            "AWS_SECRET_ACCESS_KEY": settings["connect.s3.aws.secret.key"]}


def _key(uri: str) -> str:
    """``s3://bucket/a/b`` → ``a/b``."""
    return uri.split("://", 1)[1].split("/", 1)[1]
