"""Does the S3 store take the checksums boto3 sends by default? Decided once, at start.

:func:`settle_checksums` probes; the decision travels in the settings
(:attr:`S3Settings.checksum_calculation`), which is all the executors receive.
See docs/storage.md, "Request checksums (S3)".
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

    Since botocore 1.36 the client sends CRC32 checksums (headers over HTTP, an ``aws-chunked``
    trailer over HTTPS) and asks for response checksums; many S3-compatible stores refuse them, each
    in its own words (``InvalidArgument`` from Backblaze B2, 501 ``NotImplemented`` from older
    Cloudflare R2, ``XAmzContentSHA256Mismatch`` from Hetzner, ``SignatureDoesNotMatch`` from GCS's
    XML API, ``AuthorizationHeaderMalformed`` from Qumulo, ``MissingContentLength`` from Storj), some
    reading like a credential problem. So the probe compares instead of interpreting: a small object
    is written and read back with ``when_supported``; if that fails, with ``when_required``; if that
    passes, the settings say ``when_required`` from then on (one INFO line), otherwise the second
    probe's answer is the error. A restore, which only reads, probes with a read of an object that
    does not exist.

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
