"""pyiceberg's pyarrow FileIO with what the connector's storage settings add and pyiceberg does not pass.

GCS: pyiceberg hands pyarrow's GcsFileSystem only an access token or the machine's credentials; here a
service-account key (auth modes Credentials, File) becomes tokens minted with google-auth and minted again
before they expire, None is anonymous, Default the machine's credentials. S3: ``connect.s3.ca.bundle``
becomes the file system's CA file (pyiceberg has no property for it).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from typing import Any

from pyarrow.fs import FileSystem, GcsFileSystem
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.typedef import Properties

from lakesink.adapters.storage.gcs import gcs_credentials
from lakesink.domain.config.backends import GcsSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import AccessDeniedError, TransientStorageError

IMPLEMENTATION = "py-io-impl"
GCS_AUTH_MODE = "lakesink.gcs.auth-mode"
GCS_CREDENTIALS = "lakesink.gcs.credentials"
GCS_CREDENTIALS_FILE = "lakesink.gcs.credentials-file"
GCS_ENDPOINT = "gcs.service.host"
S3_CA_BUNDLE = "lakesink.s3.ca-bundle"
SCOPE = "https://www.googleapis.com/auth/devstorage.read_write"


def gcs_io_properties(settings: GcsSettings) -> dict[str, str]:
    """The FileIO properties of a table on GCS: this FileIO and the storage settings' auth (secrets in clear)."""
    io = {IMPLEMENTATION: _NAME, GCS_AUTH_MODE: settings.auth_mode}
    if settings.credentials is not None:
        io[GCS_CREDENTIALS] = settings.credentials.reveal()
    if settings.credentials_file:
        io[GCS_CREDENTIALS_FILE] = settings.credentials_file
    if settings.endpoint:
        io[GCS_ENDPOINT] = settings.endpoint
    return io


def s3_ca_properties(ca_bundle: str) -> dict[str, str]:
    """The FileIO properties that make a table's S3 file system trust the CAs of ``ca_bundle`` (a PEM file)."""
    return {IMPLEMENTATION: _NAME, S3_CA_BUNDLE: ca_bundle}


class LakesinkFileIO(PyArrowFileIO):
    """A PyArrowFileIO whose GCS file system carries a fresh token of the configured service account and
    whose S3 file system trusts the configured CA file."""

    def __init__(self, properties: Properties) -> None:
        super().__init__(properties)
        mode = properties.get(GCS_AUTH_MODE, "Default")
        self._anonymous = mode.lower() == "none"
        account = gcs_credentials(GcsSettings(
            auth_mode=mode,
            credentials=Secret(properties[GCS_CREDENTIALS]) if GCS_CREDENTIALS in properties else None,
            credentials_file=properties.get(GCS_CREDENTIALS_FILE),
        ))
        self._account: Any = account.with_scopes([SCOPE]) if account is not None else None
        self.fs_by_scheme = self._renewing(self.fs_by_scheme)  # type: ignore[method-assign]

    def _renewing(self, cached: Any) -> Callable[[str, str | None], FileSystem]:
        """``cached`` (pyiceberg's file system per scheme), dropped when the token it holds is about to expire
        (google-auth counts a token invalid a few minutes before its expiry)."""

        def fs_by_scheme(scheme: str, netloc: str | None) -> FileSystem:
            if scheme in ("gs", "gcs") and self._account is not None and not self._account.valid:
                cached.cache_clear()
            return cached(scheme, netloc)

        return fs_by_scheme

    def _initialize_s3_fs(self, netloc: str | None) -> FileSystem:
        built = super()._initialize_s3_fs(netloc)
        if (ca_bundle := self.properties.get(S3_CA_BUNDLE)) is None:
            return built
        rebuild, (options,) = built.__reduce__()  # pickle's contract: every option pyiceberg set, by name
        return rebuild({**options, "tls_ca_file_path": ca_bundle})

    def _initialize_gcs_fs(self) -> FileSystem:
        options: dict[str, Any] = {}
        if endpoint := self.properties.get(GCS_ENDPOINT):
            scheme, _, authority = endpoint.partition("://")
            options.update(scheme=scheme, endpoint_override=authority.rstrip("/"))
        if self._anonymous:
            return GcsFileSystem(anonymous=True, **options)
        if self._account is None:  # Default: the machine's credentials, which pyarrow's client renews itself
            return GcsFileSystem(**options)
        if not self._account.valid:
            self._refresh()
        expiry = self._account.expiry.replace(tzinfo=UTC)  # google-auth keeps naive UTC
        return GcsFileSystem(access_token=self._account.token, credential_token_expiration=expiry, **options)

    def _refresh(self) -> None:
        """A new access token for the service account, from its key's ``token_uri``.

        Raises:
            AccessDeniedError: the token endpoint refused the key (revoked, disabled, a wrong key).
            TransientStorageError: the token endpoint did not answer.
        """
        from google.auth.exceptions import RefreshError, TransportError
        from google.auth.transport.requests import Request

        try:
            self._account.refresh(Request())
        except RefreshError as error:
            raise AccessDeniedError(
                f"GCS refused a token for service account {self._account.service_account_email} "
                f"(connect.gcpstorage.gcp.credentials or its file): {error}"
            ) from None
        except TransportError as error:
            raise TransientStorageError(f"GCS's token endpoint did not answer: {error}") from None


_NAME = f"{LakesinkFileIO.__module__}.{LakesinkFileIO.__qualname__}"
