"""Translate botocore failures into lakesink storage errors, by S3 error code first, HTTP status second.

Codes are stable across S3-compatible stores, messages are not, so nothing depends on message text;
results name bucket and key, never credentials. A refused permission (``AccessDenied``, a bare 403)
names the IAM action that authorizes it (:data:`IAM_ACTIONS`), since the store does not say and the
fix is one grant; a refused credential names none. See docs/storage.md, "Error mapping", "Permissions".
"""

from __future__ import annotations

import re

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

_OPENSSL_REASON = re.compile(r"\[SSL[^\]]*\][^(]*")
_MISSING_KEY = {"NoSuchKey", "NotFound", "404", "NoSuchUpload"}
_MISSING_BUCKET = {"NoSuchBucket"}
_PRECONDITION = {"PreconditionFailed", "412", "ConditionalRequestConflict"}
_REFUSED = {"AccessDenied", "403", "Forbidden"}
_BAD_CREDENTIALS = {
    "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "TokenRefreshRequired",
    "AllAccessDisabled", "AccountProblem", "InvalidSecurity",
    "XAdminUserNotFound",  # versitygw's answer to an unknown access key, with status 404 (AWS: 403)
    "RequestTimeTooSkewed",  # a 403 that no grant fixes either: the host's clock is off
}
PERMISSIONS_DOC = "docs/storage.md#permissions"
#: The IAM action that authorizes each S3 request the adapter sends (AWS's service authorization
#: reference for Amazon S3): HeadBucket is authorized as ListBucket, HeadObject as GetObject, the
#: steps of a multipart upload as PutObject, a DeleteObjects batch key by key as DeleteObject.
IAM_ACTIONS = {
    "HeadBucket": "s3:ListBucket",
    "ListObjectsV2": "s3:ListBucket",
    "HeadObject": "s3:GetObject",
    "GetObject": "s3:GetObject",
    "PutObject": "s3:PutObject",
    "CreateMultipartUpload": "s3:PutObject",
    "UploadPart": "s3:PutObject",
    "CompleteMultipartUpload": "s3:PutObject",
    "CopyObject": "s3:GetObject (on the source) or s3:PutObject (on the destination)",
    "DeleteObject": "s3:DeleteObject",
    "DeleteObjects": "s3:DeleteObject",
}
_TRANSIENT = {
    "SlowDown", "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottled",
    "RequestLimitExceeded", "TooManyRequestsException", "RequestTimeout", "RequestTimeoutException",
    "InternalError", "ServiceUnavailable", "503", "500", "502", "504", "OperationAborted",
}
_NEVER_SERVED = {"NotImplemented", "501"}


def translate_s3_error(exc: Exception, bucket: str, key: str | None, operation: str | None = None) -> Exception:
    """The lakesink error for ``exc`` (an answer to the S3 request ``operation``, when given); ``exc``
    itself when it is not a storage failure.

    A bare 404 without a code (HEAD responses have no body) becomes ObjectNotFoundError when a key
    is involved; callers that must tell a missing bucket apart check the bucket afterwards. A code
    that denies access wins over the status: versitygw refuses an unknown access key with a 404.
    """
    from botocore import exceptions as boto_errors

    where = f"{bucket}/{key}" if key is not None else bucket
    if isinstance(exc, boto_errors.ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code", ""))
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
        detail = f"{code or status}: {error.get('Message', '')}".rstrip(": ")
        if code in _BAD_CREDENTIALS:
            return AccessDeniedError(f"Access denied to {where} ({detail}).")
        if code in _REFUSED or status in (401, 403):
            return permission_denied(operation, bucket, key, detail)
        if code in _MISSING_BUCKET or (key is None and status == 404):
            return BucketNotFoundError(f"Bucket {bucket} does not exist ({detail}).")
        if code in _MISSING_KEY or status == 404:
            return ObjectNotFoundError(f"Object {where} does not exist ({detail}).")
        if code in _PRECONDITION or status == 412:
            return PreconditionFailedError(f"Conditional request on {where} failed ({detail}).")
        if code in _TRANSIENT or (code not in _NEVER_SERVED and transient_status(status)):
            return TransientStorageError(f"S3 request on {where} failed transiently ({detail}).")
        return StorageError(f"S3 request on {where} failed ({detail}).")
    if isinstance(exc, boto_errors.NoCredentialsError | boto_errors.PartialCredentialsError):
        return AccessDeniedError(f"No usable S3 credentials for {where} ({type(exc).__name__}).")
    if isinstance(exc, boto_errors.SSLError):  # before ConnectionError, its base class
        return StoreTlsError(f"TLS to the S3 endpoint for {where} failed ({_tls_reason(exc)}).")
    if isinstance(exc, boto_errors.HTTPClientError | boto_errors.ConnectionError):
        return TransientStorageError(f"S3 connection for {where} failed ({type(exc).__name__}: {exc}).")
    return exc


def permission_denied(operation: str | None, bucket: str, key: str | None, detail: str) -> AccessDeniedError:
    """The refusal of ``operation`` on ``bucket``/``key`` as one line naming the IAM action to grant
    (just "Access denied" when the operation is not one :data:`IAM_ACTIONS` knows)."""
    action = IAM_ACTIONS.get(operation or "")
    if action is None:
        where = f"{bucket}/{key}" if key is not None else bucket
        return AccessDeniedError(f"Access denied to {where} ({detail}).")
    resource = f"s3://{bucket}" if key is None or action == "s3:ListBucket" else f"s3://{bucket}/{key}"
    return AccessDeniedError(f"{action} denied on {resource} ({operation}: {detail}): grant it to these "
                             f"credentials, or check that they are the intended ones ({PERMISSIONS_DOC}).")


def _tls_reason(exc: Exception) -> str:
    """OpenSSL's reason (``[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get
    local issuer certificate``), not botocore's whole chain of wrapped exceptions."""
    match = _OPENSSL_REASON.search(str(exc))
    return match.group(0).strip() if match else f"{type(exc).__name__}: {exc}"
