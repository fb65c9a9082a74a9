"""AWS S3 and S3-compatible stores (MinIO, moto, Ceph...) through boto3.

Conditional writes are S3's own preconditions (``If-None-Match: *``, ``If-Match: <etag>``), resent
on every retry of botocore's ``standard`` mode. boto3 is imported when the first client is built;
the client is shared in the process (:mod:`.client_cache`) and dropped when the adapter is
pickled, so each Spark executor builds one. See docs/storage.md, "Retries", "Request checksums
(S3)" and "Conditional writes per backend".
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from lakesink.adapters.clock import epoch_ms
from lakesink.adapters.storage.paging import rolled_up_client_side
from lakesink.adapters.storage.s3_errors import permission_denied, translate_s3_error
from lakesink.adapters.storage.store_base import SdkStore
from lakesink.domain.config.backends import S3Settings
from lakesink.domain.errors import (
    AccessDeniedError,
    BucketNotFoundError,
    ConfigError,
    ObjectNotFoundError,
    PreconditionFailedError,
    StorageError,
)
from lakesink.domain.ports import ListPage, ObjectInfo, StoredObject

logger = logging.getLogger(__name__)

_DELETE_BATCH = 1000
_CHUNK = 1024 * 1024
PART_THREADS = 4
"""Parts of one multipart upload in flight at once (each thread holds one part in memory)."""
BOTOCORE_BASE_DELAY_MS = 50
"""botocore's fixed backoff base for non-throttling failures (standard mode); also our default interval."""


class S3ObjectStore(SdkStore[S3Settings]):
    """The :class:`~lakesink.domain.ports.ObjectStore` port over the S3 API."""

    kind = "s3"
    service = "S3"

    # --- writes -------------------------------------------------------------------------------

    def put(self, bucket: str, key: str, data: bytes) -> str:
        return self._put(bucket, key, data)

    def put_if_absent(self, bucket: str, key: str, data: bytes) -> str:
        return self._put(bucket, key, data, IfNoneMatch="*")

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        try:
            return self._put(bucket, key, data, IfMatch=etag)
        except ObjectNotFoundError:  # AWS answers 404 when the object was deleted meanwhile
            raise PreconditionFailedError(f"Object {bucket}/{key} was deleted since etag {etag} was read.") from None

    def upload_file(self, bucket: str, key: str, path: Path, *, if_absent: bool = False) -> str:
        if Path(path).stat().st_size <= self.settings.multipart_threshold_bytes:
            def put_once() -> str:
                with open(path, "rb") as body:
                    extra = {"IfNoneMatch": "*"} if if_absent else {}
                    return str(self.client.put_object(Bucket=bucket, Key=key, Body=body, **extra)["ETag"])

            return self._call(bucket, key, "PutObject", put_once)
        return self._upload_multipart(bucket, key, Path(path), if_absent=if_absent)

    def delete(self, bucket: str, key: str) -> None:
        self._call(bucket, key, "DeleteObject", lambda: self.client.delete_object(Bucket=bucket, Key=key))

    def delete_many(self, bucket: str, keys: Iterable[str]) -> None:
        batch: list[str] = []
        for key in keys:
            batch.append(key)
            if len(batch) == _DELETE_BATCH:
                self._delete_batch(bucket, batch)
                batch = []
        if batch:
            self._delete_batch(bucket, batch)

    def copy(
        self,
        bucket: str,
        source_key: str,
        destination_key: str,
        *,
        destination_bucket: str | None = None,
        if_match: str | None = None,
    ) -> str:
        extra: dict[str, str] = {}
        if if_match is not None:
            self._call(bucket, source_key, "HeadObject",
                       lambda: self.client.head_object(Bucket=bucket, Key=source_key, IfMatch=if_match))
            extra["CopySourceIfMatch"] = if_match
        target = destination_bucket or bucket
        response = self._call(
            bucket, source_key, "CopyObject",
            lambda: self.client.copy_object(Bucket=target, Key=destination_key,
                                            CopySource={"Bucket": bucket, "Key": source_key}, **extra),
        )
        return str(response["CopyObjectResult"]["ETag"])

    # --- reads --------------------------------------------------------------------------------

    def get(self, bucket: str, key: str) -> StoredObject:
        def read() -> StoredObject:
            response = self.client.get_object(Bucket=bucket, Key=key)
            return StoredObject(response["Body"].read(), str(response["ETag"]))

        return self._call(bucket, key, "GetObject", read)

    def download_file(self, bucket: str, key: str, path: Path) -> ObjectInfo:
        def fetch() -> ObjectInfo:
            response = self.client.get_object(Bucket=bucket, Key=key)
            with open(path, "wb") as out:
                for chunk in response["Body"].iter_chunks(_CHUNK):
                    out.write(chunk)
            return ObjectInfo(key, int(response["ContentLength"]), str(response["ETag"]))

        return self._call(bucket, key, "GetObject", fetch)

    def head(self, bucket: str, key: str) -> ObjectInfo:
        try:
            response = self._call(bucket, key, "HeadObject", lambda: self.client.head_object(Bucket=bucket, Key=key))
        except ObjectNotFoundError:
            self.check_bucket(bucket)  # a HEAD 404 carries no code: tell a missing bucket apart
            raise
        return ObjectInfo(
            key, int(response["ContentLength"]), str(response["ETag"]), epoch_ms(response.get("LastModified"))
        )

    def _pages(
        self, bucket: str, prefix: str, delimiter: str | None, start_after: str | None, page_size: int
    ) -> Iterator[ListPage]:
        if delimiter and start_after is not None:
            flat_pages = self._server_pages(bucket, prefix, None, start_after, 1000)
            return rolled_up_client_side(flat_pages, prefix, delimiter, start_after, page_size)
        return self._server_pages(bucket, prefix, delimiter, start_after, page_size)

    def check_bucket(self, bucket: str) -> None:
        """HeadBucket; a 404 is confirmed by a listing, whose answer has a body to say why.

        A HEAD answer carries no error code, and a 404 is not always a missing bucket: versitygw answers
        an unknown access key with 404 ``XAdminUserNotFound``. The listing tells ``NoSuchBucket`` from
        that refusal (one more request, on the failure path only).
        """
        try:
            self._call(bucket, None, "HeadBucket", lambda: self.client.head_bucket(Bucket=bucket))
        except BucketNotFoundError:
            # raises NoSuchBucket as BucketNotFoundError, or the refusal; a listing that answers means the
            # bucket exists now (created between the two requests)
            self._call(bucket, None, "ListObjectsV2", lambda: self.client.list_objects_v2(Bucket=bucket, MaxKeys=1))

    # --- client lifecycle -----------------------------------------------------------------------

    @staticmethod
    def _build_client(settings: S3Settings) -> Any:
        import boto3
        from botocore.config import Config

        if settings.http_retry_interval_ms != BOTOCORE_BASE_DELAY_MS:
            logger.warning("S3: http.retry.interval=%d ms is not applied; botocore's standard retry mode backs off "
                           "from its own base (%d ms, 1 s for throttling replies). See docs/storage.md.",
                           settings.http_retry_interval_ms, BOTOCORE_BASE_DELAY_MS)
        config = Config(
            retries=retry_options(settings),
            connect_timeout=settings.http_connection_timeout_ms / 1000,
            read_timeout=settings.http_socket_timeout_ms / 1000,
            max_pool_connections=settings.pool_max_connections,
            s3={"addressing_style": "path" if settings.path_style_access else "auto"},
            request_checksum_calculation=settings.checksum_calculation,
            response_checksum_validation=settings.checksum_calculation,
        )
        credentials: dict[str, str] = {}
        if settings.auth_mode.lower() == "credentials":
            if not settings.access_key or not settings.secret_key:
                raise AccessDeniedError("S3 auth mode Credentials needs both an access key and a secret key.")
            credentials = {"aws_access_key_id": settings.access_key.reveal(),
                           "aws_secret_access_key": settings.secret_key.reveal()}
        if settings.ca_bundle is not None and not os.path.isfile(settings.ca_bundle):
            raise ConfigError(f"S3 CA bundle {settings.ca_bundle} (connect.s3.ca.bundle) is not a file on this host.")
        session = boto3.session.Session()
        return session.client("s3", region_name=settings.region, endpoint_url=settings.custom_endpoint,
                              config=config, verify=settings.ca_bundle, **credentials)

    # --- internals ----------------------------------------------------------------------------

    def _translate(self, error: Exception, bucket: str, key: str | None, operation: str) -> Exception:
        return translate_s3_error(error, bucket, key, operation)

    def _put(self, bucket: str, key: str, data: bytes, **conditions: str) -> str:
        return self._call(bucket, key, "PutObject", lambda: str(
            self.client.put_object(Bucket=bucket, Key=key, Body=data, **conditions)["ETag"]))

    def _upload_multipart(self, bucket: str, key: str, path: Path, *, if_absent: bool) -> str:
        """Upload ``path`` in parts, :data:`PART_THREADS` at a time; abort the upload on failure.

        Each thread reads its own part from the file, so at most that many parts are in memory
        (a part at a time was latency-bound: one round trip after another). Nothing is visible
        until the completion, which lists the parts in order. With ``if_absent`` the completion
        carries ``If-None-Match: *``, so the object appears only if nobody created the key
        meanwhile, and a losing upload leaves nothing behind.
        """
        upload_id = self._call(bucket, key, "CreateMultipartUpload", lambda: self.client.create_multipart_upload(
            Bucket=bucket, Key=key)["UploadId"])
        part_size = self.settings.multipart_part_size_bytes
        count = max(1, -(-Path(path).stat().st_size // part_size))

        def upload_part(number: int) -> dict[str, Any]:
            with open(path, "rb") as source:
                chunk = os.pread(source.fileno(), part_size, (number - 1) * part_size)
            etag = self._call(bucket, key, "UploadPart", lambda: self.client.upload_part(
                Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=chunk)["ETag"])
            return {"ETag": etag, "PartNumber": number}

        try:
            threads = max(1, min(PART_THREADS, count, self.settings.pool_max_connections))
            with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="s3-part") as pool:
                futures = [pool.submit(upload_part, number) for number in range(1, count + 1)]
                try:
                    parts = [future.result() for future in futures]
                except BaseException:
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
            extra = {"IfNoneMatch": "*"} if if_absent else {}
            response = self._call(bucket, key, "CompleteMultipartUpload", lambda: self.client.complete_multipart_upload(
                Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}, **extra))
            return str(response["ETag"])
        except BaseException:
            self._abort_multipart(bucket, key, upload_id)
            raise

    def _abort_multipart(self, bucket: str, key: str, upload_id: str) -> None:
        try:
            self.client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
        except Exception:  # the original failure matters more; a lifecycle rule reaps leftovers
            logger.warning("Could not abort multipart upload %s of %s/%s", upload_id, bucket, key, exc_info=True)

    def _delete_batch(self, bucket: str, keys: list[str]) -> None:
        response = self._call(bucket, None, "DeleteObjects", lambda: self.client.delete_objects(
            Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys], "Quiet": True}))
        failures = [e for e in response.get("Errors", []) if e.get("Code") != "NoSuchKey"]
        if failures:
            listed = ", ".join(f"{f.get('Key')} ({f.get('Code')})" for f in failures[:5])
            if all(f.get("Code") == "AccessDenied" for f in failures):
                raise permission_denied("DeleteObjects", bucket, str(failures[0].get("Key")),
                                        f"{len(failures)} key(s) refused: {listed}")
            raise StorageError(f"S3 DeleteObjects in {bucket} failed for {len(failures)} key(s): {listed}.")

    def _server_pages(
        self, bucket: str, prefix: str, delimiter: str | None, start_after: str | None, page_size: int
    ) -> Iterator[ListPage]:
        request: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix, "MaxKeys": page_size}
        if delimiter:
            request["Delimiter"] = delimiter
        if start_after is not None:
            request["StartAfter"] = start_after
        while True:
            response = self._call(bucket, None, "ListObjectsV2", lambda: self.client.list_objects_v2(**request))
            objects = tuple(
                ObjectInfo(o["Key"], int(o["Size"]), str(o["ETag"]), epoch_ms(o.get("LastModified")))
                for o in response.get("Contents", [])
            )
            prefixes = tuple(p["Prefix"] for p in response.get("CommonPrefixes", []))
            if objects or prefixes:
                yield ListPage(objects, prefixes)
            token = response.get("NextContinuationToken")
            if not response.get("IsTruncated") or not token:
                return
            request["ContinuationToken"] = token


def retry_options(settings: S3Settings) -> dict[str, Any]:
    """botocore's ``Config(retries=...)`` for ``settings``: standard mode, the first attempt plus
    ``http_max_retries`` retries."""
    return {"mode": "standard", "total_max_attempts": settings.http_max_retries + 1}
