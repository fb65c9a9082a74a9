"""Make a range's sealed staging files durable: the batch plan first, then create-only uploads.

With exactly-once the plan object (:mod:`lakesink.domain.commit.range_plans`) is written BEFORE any
upload, so a batch that dies between its uploads and its commit is replayed over the same range
and rewrites the same objects; an object already there from an earlier attempt is accepted only
when its size matches what this attempt wrote. Uploads run a few at a time (S3 multipart parts
are concurrent too, inside each upload).
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from lakesink.application.range_writer import SealedFile
from lakesink.domain.commit.range_plans import BatchPlan, check_existing_plan, decode_plan, encode_plan
from lakesink.domain.errors import CommitConflictError, PreconditionFailedError
from lakesink.domain.ports import ObjectStore

logger = logging.getLogger(__name__)

UPLOAD_THREADS = 4


def write_batch_plan(store: ObjectStore, bucket: str, key: str, wanted: BatchPlan) -> None:
    """Create the plan object; an existing one must describe the same range (a retry of this batch).

    Raises:
        CommitConflictError: the existing plan names another range (see ``check_existing_plan``).
    """
    try:
        store.put_if_absent(bucket, key, encode_plan(wanted))
    except PreconditionFailedError:
        existing = decode_plan(store.get(bucket, key).data, key=key)
        check_existing_plan(existing, wanted, where=f"{bucket}/{key}")
        logger.info("Batch plan %s/%s exists with the same range: re-uploading the same objects", bucket, key)


def upload_sealed(store: ObjectStore, sealed: list[SealedFile], *, create_only: bool) -> list[int]:
    """Upload every sealed file (removing its staging copy); returns their sizes in bytes.

    Raises:
        CommitConflictError: ``create_only`` and an object already exists with another size.
    """
    if not sealed:
        return []
    with ThreadPoolExecutor(max_workers=min(UPLOAD_THREADS, len(sealed))) as pool:
        return list(pool.map(lambda file: _upload(store, file, create_only), sealed))


def _upload(store: ObjectStore, file: SealedFile, create_only: bool) -> int:
    size = file.path.stat().st_size
    try:
        store.upload_file(file.bucket, file.key, file.path, if_absent=create_only)
    except PreconditionFailedError:
        stored = store.head(file.bucket, file.key).size
        if stored != size:
            raise CommitConflictError(
                f"Object {file.bucket}/{file.key} already exists with {stored} bytes, but this batch "
                f"wrote {size} bytes for it: another writer produced different data under the same key."
            ) from None
        logger.info("Object %s/%s already uploaded by an earlier attempt", file.bucket, file.key)
    file.path.unlink(missing_ok=True)
    return size
