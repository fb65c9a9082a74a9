"""Translate google-cloud-storage failures into lakesink storage errors, by exception type.

google-api-core turns HTTP statuses into exception classes (NotFound, PreconditionFailed, ...);
transport failures surface as ``requests``/``urllib3`` connection errors and timeouts. The same
classification decides what the SDK retries (:func:`is_retryable`): exactly the failures that
would otherwise be reported as :class:`TransientStorageError`.
"""

from __future__ import annotations

from lakesink.domain.errors import (
    AccessDeniedError,
    BucketNotFoundError,
    ObjectNotFoundError,
    PreconditionFailedError,
    StorageError,
    StoreTlsError,
    TransientStorageError,
)
from lakesink.domain.transient import transient_status


def translate_gcs_error(exc: Exception, bucket: str, key: str | None) -> Exception:
    """The lakesink error for ``exc``; ``exc`` itself when it is not a storage failure.

    A 404 on an object operation is reported as ObjectNotFoundError; the adapter checks whether
    the bucket itself is missing, since GCS uses the same status for both.
    """
    import requests
    from google.api_core import exceptions as api
    from google.auth import exceptions as auth

    where = f"{bucket}/{key}" if key is not None else bucket
    if isinstance(exc, api.GoogleAPICallError):
        detail = f"{exc.code}: {exc.message}"
        if isinstance(exc, api.NotFound):
            if key is None:
                return BucketNotFoundError(f"Bucket {bucket} does not exist ({detail}).")
            return ObjectNotFoundError(f"Object {where} does not exist ({detail}).")
        if isinstance(exc, api.PreconditionFailed):
            return PreconditionFailedError(f"Conditional request on {where} failed ({detail}).")
        if isinstance(exc, api.Forbidden | api.Unauthorized):
            return AccessDeniedError(f"Access denied to {where} ({detail}).")
        if transient_status(int(exc.code or 0)):
            return TransientStorageError(f"GCS request on {where} failed transiently ({detail}).")
        return StorageError(f"GCS request on {where} failed ({detail}).")
    if isinstance(exc, auth.DefaultCredentialsError | auth.RefreshError):
        return AccessDeniedError(f"No usable GCS credentials for {where} ({type(exc).__name__}).")
    if isinstance(exc, requests.exceptions.SSLError):
        return StoreTlsError(f"TLS with the GCS endpoint for {where} failed ({exc}): check the endpoint's "
                             "certificate, or the CA bundle that trusts it.")
    if isinstance(exc, auth.TransportError):  # the token endpoint (the key's token_uri) did not answer
        return TransientStorageError(f"GCS credentials for {where} could not get a token ({type(exc).__name__}: {exc}).")
    if isinstance(exc, requests.ConnectionError | requests.Timeout | ConnectionError | TimeoutError):
        return TransientStorageError(f"GCS connection for {where} failed ({type(exc).__name__}: {exc}).")
    return exc


def is_retryable(exc: Exception) -> bool:
    """The retry predicate handed to google-api-core: is ``exc`` a transient failure?

    Inside the retry, uploads and downloads raise the media layer's ``InvalidResponse`` (turned
    into an api-core exception only after the retries), so its status is classified here too.
    """
    from google.cloud.storage.exceptions import InvalidResponse

    if isinstance(exc, InvalidResponse):
        status = int(getattr(exc.response, "status_code", 0) or 0)
        return transient_status(status)
    return isinstance(translate_gcs_error(exc, "", None), TransientStorageError)
