"""Where a table lives, in the words of the libraries that write it.

The sink's stores speak boto3, google-cloud-storage and azure-storage-blob; pyiceberg reads and
writes through pyarrow's file systems and delta-rs through Rust's ``object_store``. Each gets the
same endpoint and credentials from the connector's storage settings here, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlparse

from lakesink.domain.config.backends import (
    AzureSettings,
    BackendSettings,
    GcsSettings,
    LocalSettings,
    S3Settings,
)
from lakesink.domain.errors import ConfigError
from lakesink.domain.tables.target import TableFormat, table_backend_refusal


@dataclass(frozen=True, slots=True)
class TableLocation:
    """A table's root URI, its bucket's, and the file-system settings each library needs to reach them."""

    uri: str
    bucket_uri: str
    """The URI of the bucket's root, ending in ``/``: an object's URI is this and its key."""
    iceberg_io: dict[str, str] = field(default_factory=dict, repr=False)
    """pyiceberg FileIO properties (``s3.endpoint``, ``s3.access-key-id``...): secrets in clear."""
    delta_storage: dict[str, str] = field(default_factory=dict, repr=False)
    """delta-rs ``storage_options`` (``AWS_ENDPOINT_URL``...): secrets in clear."""

    def file_uri(self, key: str) -> str:
        """The URI of the object ``key`` of the table's bucket."""
        return self.bucket_uri + key


def table_location(backend: str, settings: BackendSettings, bucket: str, prefix: str) -> TableLocation:
    """The table at ``bucket``/``prefix`` of the connector's store.

    Raises:
        ConfigError: tables are not available on that backend.
    """
    path = prefix.strip("/")
    if isinstance(settings, LocalSettings):
        root = (settings.root / bucket).resolve()
        return TableLocation((root / path).as_uri(), root.as_uri() + "/")
    if isinstance(settings, S3Settings):
        return TableLocation(f"s3://{bucket}/{path}", f"s3://{bucket}/", _iceberg_s3(settings), _delta_s3(settings))
    if isinstance(settings, AzureSettings):
        account = AzureAccount.of(settings)
        # pyiceberg's pyarrow IO reads the container from the URI's authority and the account from its
        # properties: it cannot take abfs://container@account.dfs.core.windows.net/
        root = f"abfs://{bucket}/"
        return TableLocation(root + path, root, account.iceberg_io(), account.delta_storage())
    if isinstance(settings, GcsSettings):
        from lakesink.adapters.tables.file_io import gcs_io_properties

        return TableLocation(f"gs://{bucket}/{path}", f"gs://{bucket}/", gcs_io_properties(settings))
    raise ConfigError(table_backend_refusal(backend, TableFormat.ICEBERG) or f"no table location on {backend}")


@dataclass(frozen=True, slots=True)
class AzureAccount:
    """The storage account of ``connect.datalake.*`` as the table libraries address it: its name, its
    key or SAS (none: Azure's default credential chain), and the blob endpoint when it is not Azure's
    own (Azurite, a private endpoint)."""

    name: str
    key: str | None = field(default=None, repr=False)
    sas: str | None = field(default=None, repr=False)
    endpoint: str | None = None

    @classmethod
    def of(cls, settings: AzureSettings) -> AzureAccount:
        """The account of the settings (a connection string's parts, in ConnectionString mode).

        Raises:
            ConfigError: no account name can be found.
        """
        if settings.auth_mode.lower() == "connectionstring" and settings.connection_string:
            parts = dict(
                item.split("=", 1) for item in settings.connection_string.reveal().split(";") if "=" in item
            )
            name, key, endpoint = parts.get("AccountName"), parts.get("AccountKey"), parts.get("BlobEndpoint")
            sas = parts.get("SharedAccessSignature")
        else:
            name, endpoint, sas = settings.account_name, settings.endpoint, None
            key = settings.account_key.reveal() if settings.account_key else None
        name = name or _account_in(endpoint)
        if not name:
            raise ConfigError(
                "A table on Azure needs the storage account's name: set connect.datalake.azure.account.name "
                "(or an endpoint or connection string that names it)."
            )
        return cls(name, key, sas, endpoint)

    def iceberg_io(self) -> dict[str, str]:
        """pyiceberg's ``adls.*`` FileIO properties, for pyarrow's AzureFileSystem (pyiceberg would pick
        fsspec's adlfs for ``abfs://``, which lakesink does not install)."""
        io = {"py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO", "adls.account-name": self.name}
        if self.key:
            io["adls.account-key"] = self.key
        if self.sas:
            io["adls.sas-token"] = self.sas
        if self.endpoint:
            url = urlparse(self.endpoint)
            authority = url.netloc.removeprefix(f"{self.name}.")  # pyarrow puts the account before it
            for service in ("blob", "dfs"):
                io[f"adls.{service}-storage-authority"] = authority
                io[f"adls.{service}-storage-scheme"] = url.scheme
        return io

    def delta_storage(self) -> dict[str, str]:
        """delta-rs's (object_store's) ``azure_*`` storage options."""
        options = {"azure_storage_account_name": self.name}
        if self.key:
            options["azure_storage_account_key"] = self.key
        if self.sas:
            options["azure_storage_sas_key"] = self.sas
        if self.endpoint:
            options["azure_storage_endpoint"] = self.endpoint.rstrip("/")
            if self.endpoint.startswith("http://"):
                options["azure_allow_http"] = "true"
        return options


def _account_in(endpoint: str | None) -> str | None:
    """The account an endpoint names: ``https://ACCOUNT.blob.core.windows.net`` or Azurite's
    ``http://127.0.0.1:10000/ACCOUNT``."""
    if not endpoint:
        return None
    url = urlparse(endpoint)
    if url.hostname and url.hostname.endswith(".blob.core.windows.net"):
        return url.hostname.split(".", 1)[0]
    return url.path.strip("/").split("/", 1)[0] or None


def _iceberg_s3(settings: S3Settings) -> dict[str, str]:
    io: dict[str, str] = {}
    if settings.region:
        io["s3.region"] = settings.region
    if settings.custom_endpoint:
        io["s3.endpoint"] = settings.custom_endpoint
    if settings.path_style_access:
        io["s3.force-virtual-addressing"] = "false"
    if settings.access_key is not None and settings.secret_key is not None:
        io["s3.access-key-id"] = settings.access_key.reveal()
        io["s3.secret-access-key"] = settings.secret_key.reveal()
    if settings.ca_bundle:
        from lakesink.adapters.tables.file_io import s3_ca_properties

        io.update(s3_ca_properties(settings.ca_bundle))
    return io


def _delta_s3(settings: S3Settings) -> dict[str, str]:
    options = {"AWS_REGION": settings.region or "us-east-1"}
    if settings.custom_endpoint:
        options["AWS_ENDPOINT_URL"] = settings.custom_endpoint
        if settings.custom_endpoint.startswith("http://"):
            options["AWS_ALLOW_HTTP"] = "true"
    if settings.path_style_access:
        options["AWS_VIRTUAL_HOSTED_STYLE_REQUEST"] = "false"
    if settings.access_key is not None and settings.secret_key is not None:
        options["AWS_ACCESS_KEY_ID"] = settings.access_key.reveal()
        options["AWS_SECRET_ACCESS_KEY"] = settings.secret_key.reveal()
    return options
