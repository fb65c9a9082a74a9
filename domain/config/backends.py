"""Typed settings of each storage backend (pure data; the SDK adapters consume them).

The key names are the Lenses ones: ``connect.s3.*`` (AWS S3 and S3-compatible stores),
``connect.gcpstorage.*`` (Google Cloud Storage), ``connect.datalake.*`` (Azure Blob / ADLS) and
lakesink's own ``connect.local.*`` (a local directory). Parsing lives in
:mod:`lakesink.domain.config.backend_parsing`; these classes only hold validated values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lakesink.domain.config.secret import Secret


@dataclass(frozen=True, slots=True)
class S3Settings:
    """``connect.s3.*``: AWS S3, MinIO and other S3-compatible stores."""

    auth_mode: str = "Default"  # "Default" (SDK chain) | "Credentials"
    access_key: Secret | None = field(default=None, repr=False)
    secret_key: Secret | None = field(default=None, repr=False)
    region: str | None = None
    custom_endpoint: str | None = None
    ca_bundle: str | None = None  # PEM file of the CAs that sign the endpoint's certificate; None = botocore's
    path_style_access: bool = False  # path.style.access, else the inverted legacy vhost.bucket
    http_max_retries: int = 5
    http_retry_interval_ms: int = 50
    http_socket_timeout_ms: int = 60_000
    http_connection_timeout_ms: int = 60_000
    pool_max_connections: int = 50
    multipart_threshold_bytes: int = 16 * 1024 * 1024
    multipart_part_size_bytes: int = 8 * 1024 * 1024
    checksum_calculation: str | None = None
    """``when_supported`` or ``when_required`` (botocore's request_checksum_calculation and
    response_checksum_validation); None until the start-up probe decides (:mod:`lakesink.adapters.storage.s3_checksums`)."""


@dataclass(frozen=True, slots=True)
class GcsSettings:
    """``connect.gcpstorage.*``: Google Cloud Storage."""

    auth_mode: str = "Default"  # "Credentials" | "File" | "Default" | "None"
    credentials: Secret | None = field(default=None, repr=False)  # service-account JSON text
    credentials_file: str | None = None
    project_id: str | None = None
    endpoint: str | None = None
    http_max_retries: int = 5
    http_retry_interval_ms: int = 50
    http_retry_timeout_multiplier: float = 3.0
    http_socket_timeout_ms: int = 60_000
    http_connection_timeout_ms: int = 60_000


@dataclass(frozen=True, slots=True)
class AzureSettings:
    """``connect.datalake.*``: Azure Blob Storage / ADLS Gen2."""

    auth_mode: str = "Default"  # "Credentials" | "ConnectionString" | "Default"
    account_name: str | None = None
    account_key: Secret | None = field(default=None, repr=False)
    connection_string: Secret | None = field(default=None, repr=False)
    endpoint: str | None = None
    http_max_retries: int = 5
    http_retry_interval_ms: int = 50
    http_socket_timeout_ms: int = 60_000
    http_connection_timeout_ms: int = 60_000
    pool_max_connections: int | None = None  # None = the SDK's own default


@dataclass(frozen=True, slots=True)
class LocalSettings:
    """``connect.local.*``: a directory on the local (or a shared) filesystem; buckets are subdirectories."""

    root: Path = Path(".")


@dataclass(frozen=True, slots=True)
class MemorySettings:
    """``connect.memory.*``: an in-process store, for tests and dry runs."""

    name: str = "default"


BackendSettings = S3Settings | GcsSettings | AzureSettings | LocalSettings | MemorySettings

#: Config-key prefix of each backend, and the backend name the storage registry knows it by.
BACKEND_PREFIXES: dict[str, str] = {
    "connect.s3": "s3",
    "connect.gcpstorage": "gcs",
    "connect.datalake": "azure",
    "connect.local": "local",
    "connect.memory": "memory",
}
