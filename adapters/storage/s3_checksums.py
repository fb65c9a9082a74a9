"""Does the S3 store take the checksums boto3 sends by default? Decided once, at start.

Since botocore 1.36 (January 2025) the S3 client computes a CRC32 for every payload that may carry
one (PutObject, UploadPart: ``x-amz-checksum-crc32`` and ``x-amz-sdk-checksum-algorithm`` headers
over HTTP, an ``aws-chunked`` trailer with ``x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER``
over HTTPS) and asks for response checksums (``x-amz-checksum-mode: ENABLED`` on GetObject). Many
S3-compatible stores refuse them, each in its own words: ``InvalidArgument`` "Unsupported header
'x-amz-sdk-checksum-algorithm'" (Backblaze B2), 501 ``NotImplemented`` "Header 'x-amz-checksum-crc32'
... not implemented" (Cloudflare R2 until early 2025), ``XAmzContentSHA256Mismatch`` (Hetzner Object
Storage), ``SignatureDoesNotMatch`` (GCS's XML interoperability API), ``AuthorizationHeaderMalformed``
(Qumulo), ``MissingContentLength`` (Storj). botocore's ``when_required`` mode sends what S3 sent
before 1.36, and those stores take it.

Since the codes differ, and some read like a credential problem, the probe does not interpret them:
it compares. A small object is written and read back with boto3's default (``when_supported``);
if that fails, the same is done with ``when_required``; if that passes, the checksums were the
trouble and the settings say ``when_required`` from then on (one INFO line says so). Otherwise
the store's answer to the second probe is the error (a missing bucket, denied access...). The decision travels in the settings
(:attr:`S3Settings.checksum_calculation`), which is all the executors receive: each builds its
client from them. A restore, which only reads, probes with a read of an object that does not exist.
"""

from __future__ import annotations

import dataclasses
import logging

from lakesink.adapters.storage.s3 import S3ObjectStore
from lakesink.domain.config.backends import S3Settings
from lakesink.domain.errors import ObjectNotFoundError, StorageError

logger = logging.getLogger(__name__)

WHEN_SUPPORTED = "when_supported"
WHEN_REQUIRED = "when_required"
_PROBE = b"lakesink checksum probe"


def settle_checksums(settings: S3Settings, bucket: str, key: str, *, writes: bool) -> S3Settings:
    """``settings`` with :attr:`~S3Settings.checksum_calculation` decided (as given when it is set).

    ``writes``: write, read and delete ``bucket/key`` (a sink); otherwise read ``key``, which must
    not exist (a restore, whose credentials may only read).

    Raises:
        StorageError: the store refused the probe without the checksums too (its answer to that).
    """
    if settings.checksum_calculation is not None:
        return settings
    default = dataclasses.replace(settings, checksum_calculation=WHEN_SUPPORTED)
    try:
        _probe(S3ObjectStore(default), bucket, key, writes=writes)
        return default
    except StorageError as refused:
        without = dataclasses.replace(settings, checksum_calculation=WHEN_REQUIRED)
        _probe(S3ObjectStore(without), bucket, key, writes=writes)  # failing too: the trouble is elsewhere
        logger.info(
            "S3: the store refused boto3's default request checksums (%s) and takes requests without them: "
            "this run's S3 clients use checksum mode when_required (docs/storage.md, Request checksums)",
            refused,
        )
        return without


def _probe(store: S3ObjectStore, bucket: str, key: str, *, writes: bool) -> None:
    if not writes:
        try:
            store.get(bucket, key)
        except ObjectNotFoundError:
            pass
        return
    store.put(bucket, key, _PROBE)
    try:
        store.get(bucket, key)
    finally:
        store.delete(bucket, key)
