"""Translate azure-storage-blob failures into lakesink storage errors, by error code and status."""

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

_MISSING_CONTAINER = {"ContainerNotFound", "ContainerBeingDeleted"}
_MISSING_BLOB = {"BlobNotFound", "CannotVerifyCopySource"}
_DENIED = {"AuthorizationFailure", "AuthenticationFailed", "AuthorizationPermissionMismatch",
           "InsufficientAccountPermissions", "AccountIsDisabled"}
_PRECONDITION = {"BlobAlreadyExists", "ConditionNotMet", "SourceConditionNotMet", "TargetConditionNotMet"}


def translate_azure_error(exc: Exception, container: str, key: str | None) -> Exception:
    """The lakesink error for ``exc``; ``exc`` itself when it is not a storage failure."""
    from azure.core import exceptions as az

    where = f"{container}/{key}" if key is not None else container
    if isinstance(exc, az.HttpResponseError):
        code = str(getattr(exc.error_code, "value", exc.error_code) or "")
        status = int(exc.status_code or 0)
        detail = f"{code or status}"
        if code in _MISSING_CONTAINER or (key is None and status == 404):
            return BucketNotFoundError(f"Container {container} does not exist ({detail}).")
        if code in _MISSING_BLOB or status == 404:
            return ObjectNotFoundError(f"Blob {where} does not exist ({detail}).")
        if code in _PRECONDITION or isinstance(exc, az.ResourceExistsError | az.ResourceModifiedError) \
                or status == 412:
            return PreconditionFailedError(f"Conditional request on {where} failed ({detail}).")
        if code in _DENIED or isinstance(exc, az.ClientAuthenticationError) or status in (401, 403):
            return AccessDeniedError(f"Access denied to {where} ({detail}).")
        if transient_status(status):
            return TransientStorageError(f"Azure request on {where} failed transiently ({detail}).")
        return StorageError(f"Azure request on {where} failed ({detail}).")
    if isinstance(exc, az.ClientAuthenticationError):
        return AccessDeniedError(f"No usable Azure credentials for {where} ({type(exc).__name__}).")
    if isinstance(exc, az.ServiceRequestError) and _is_tls(exc):
        return StoreTlsError(f"TLS with the Azure endpoint for {where} failed ({exc}): check the endpoint's "
                             "certificate, or the CA bundle that trusts it.")
    if isinstance(exc, az.ServiceRequestError | az.ServiceResponseError | ConnectionError | TimeoutError):
        return TransientStorageError(f"Azure connection for {where} failed ({type(exc).__name__}: {exc}).")
    return exc


def _is_tls(exc: Exception) -> bool:
    """Whether a request error is a failed TLS handshake (the SDK wraps the ssl module's error)."""
    import ssl

    inner = getattr(exc, "inner_exception", None)
    for _ in range(8):  # the chain of causes is short; a bound keeps an odd one from looping
        if inner is None:
            return False
        if isinstance(inner, ssl.SSLError) or "SSLError" in type(inner).__name__:
            return True
        inner = inner.__cause__ or inner.__context__ or getattr(inner, "inner_exception", None)
    return False
