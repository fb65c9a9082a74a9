"""Translate azure-storage-blob failures into lakesink storage errors, by error code and status."""

from __future__ import annotations

from lakesink.domain.errors import (
    AccessDeniedError,
    BucketNotFoundError,
    ObjectNotFoundError,
    PreconditionFailedError,
    StorageError,
    TransientStorageError,
)

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
        if status >= 500 or status in (408, 429):
            return TransientStorageError(f"Azure request on {where} failed transiently ({detail}).")
        return StorageError(f"Azure request on {where} failed ({detail}).")
    if isinstance(exc, az.ClientAuthenticationError):
        return AccessDeniedError(f"No usable Azure credentials for {where} ({type(exc).__name__}).")
    if isinstance(exc, az.ServiceRequestError | az.ServiceResponseError | ConnectionError | TimeoutError):
        return TransientStorageError(f"Azure connection for {where} failed ({type(exc).__name__}: {exc}).")
    return exc
