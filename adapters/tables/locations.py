"""Where a table lives, in the words of the libraries that write it.

The sink's stores speak boto3, google-cloud-storage and azure-storage-blob; pyiceberg reads and
writes through pyarrow's file systems and delta-rs through Rust's ``object_store``. Each gets the
same endpoint and credentials from the connector's storage settings here, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lakesink.domain.config.backends import BackendSettings, LocalSettings, S3Settings
from lakesink.domain.errors import ConfigError
from lakesink.domain.tables.target import table_backend_message


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
    raise ConfigError(table_backend_message(backend))


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
