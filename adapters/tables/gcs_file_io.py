"""pyiceberg's FileIO for ``gs://`` tables authenticated as ``connect.gcpstorage.*`` says.

pyiceberg hands pyarrow's GcsFileSystem only an OAuth2 access token or the machine's credentials. This
FileIO mints the token from the service-account key (auth modes Credentials, File) with google-auth and
mints it again before it expires; None is anonymous (an emulator), Default the machine's credentials.
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

AUTH_MODE = "lakesink.gcs.auth-mode"
CREDENTIALS = "lakesink.gcs.credentials"
CREDENTIALS_FILE = "lakesink.gcs.credentials-file"
ENDPOINT = "gcs.service.host"
SCOPE = "https://www.googleapis.com/auth/devstorage.read_write"


def gcs_io_properties(settings: GcsSettings) -> dict[str, str]:
    """The FileIO properties that name this class and carry the storage settings' auth (secrets in clear)."""
    io = {"py-io-impl": f"{GcsFileIO.__module__}.{GcsFileIO.__qualname__}", AUTH_MODE: settings.auth_mode}
    if settings.credentials is not None:
        io[CREDENTIALS] = settings.credentials.reveal()
    if settings.credentials_file:
        io[CREDENTIALS_FILE] = settings.credentials_file
    if settings.endpoint:
        io[ENDPOINT] = settings.endpoint
    return io


class GcsFileIO(PyArrowFileIO):
    """A PyArrowFileIO whose GCS file system carries a fresh token of the configured service account."""

    def __init__(self, properties: Properties) -> None:
        super().__init__(properties)
        settings = GcsSettings(
            auth_mode=properties.get(AUTH_MODE, "Default"),
            credentials=Secret(properties[CREDENTIALS]) if CREDENTIALS in properties else None,
            credentials_file=properties.get(CREDENTIALS_FILE),
        )
        self._anonymous = settings.auth_mode.lower() == "none"
        account = gcs_credentials(settings)
        self._account: Any = account.with_scopes([SCOPE]) if account is not None else None
        cached = self.fs_by_scheme
        self.fs_by_scheme = self._renewing(cached)  # type: ignore[method-assign]

    def _renewing(self, cached: Any) -> Callable[[str, str | None], FileSystem]:
        """``cached`` (pyiceberg's file system per scheme), dropped when the token it holds is about to expire
        (google-auth counts a token invalid a few minutes before its expiry)."""

        def fs_by_scheme(scheme: str, netloc: str | None) -> FileSystem:
            if scheme in ("gs", "gcs") and self._account is not None and not self._account.valid:
                cached.cache_clear()
            return cached(scheme, netloc)

        return fs_by_scheme

    def _initialize_gcs_fs(self) -> FileSystem:
        options: dict[str, Any] = {}
        if endpoint := self.properties.get(ENDPOINT):
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
