"""Azure Blob Storage (and ADLS Gen2 accounts through their blob endpoint) via azure-storage-blob.

A bucket is a container; conditional writes are the blob service's preconditions; listings have no
"start after", so ``start_after`` is applied while paging. Retries are the SDK's ``LinearRetry``
(:func:`retry_policy`). See docs/storage.md, "Retries" and "Conditional writes per backend".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lakesink.adapters.clock import epoch_ms
from lakesink.adapters.storage.azure_errors import translate_azure_error
from lakesink.adapters.storage.paging import paginate, regroup, roll_up
from lakesink.adapters.storage.store_base import PerObjectDeleteStore
from lakesink.domain.config.backends import AzureSettings
from lakesink.domain.errors import (
    AccessDeniedError,
    ObjectNotFoundError,
    PreconditionFailedError,
    StorageError,
)
from lakesink.domain.ports import ListPage, ObjectInfo, StoredObject

_COPY_POLL_S = 0.05


class AzureBlobObjectStore(PerObjectDeleteStore[AzureSettings]):
    """The :class:`~lakesink.domain.ports.ObjectStore` port over the Azure Blob REST API."""

    kind = "azure"
    service = "Azure"

    # --- writes -------------------------------------------------------------------------------

    def put(self, bucket: str, key: str, data: bytes) -> str:
        return self._upload(bucket, key, lambda: data, overwrite=True)

    def put_if_absent(self, bucket: str, key: str, data: bytes) -> str:
        return self._upload(bucket, key, lambda: data, overwrite=False)

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        from azure.core import MatchConditions

        try:
            return self._upload(bucket, key, lambda: data, overwrite=True, etag=etag,
                                match_condition=MatchConditions.IfNotModified)
        except ObjectNotFoundError:
            raise PreconditionFailedError(f"Blob {bucket}/{key} was deleted since etag {etag} was read.") from None

    def upload_file(self, bucket: str, key: str, path: Path, *, if_absent: bool = False) -> str:
        return self._upload(bucket, key, lambda: open(path, "rb"), overwrite=not if_absent)

    def _delete_object(self, bucket: str, key: str) -> None:
        self._blob(bucket, key).delete_blob()

    def copy(
        self,
        bucket: str,
        source_key: str,
        destination_key: str,
        *,
        destination_bucket: str | None = None,
        if_match: str | None = None,
    ) -> str:
        from azure.core import MatchConditions

        source = self._blob(bucket, source_key)
        target = self._blob(destination_bucket or bucket, destination_key)
        conditions: dict[str, Any] = {}
        if if_match is not None:
            conditions = {"source_etag": if_match, "source_match_condition": MatchConditions.IfNotModified}
        result = self._call(bucket, source_key, "copy", lambda: target.start_copy_from_url(source.url, **conditions))
        while result.get("copy_status") == "pending":  # same-account copies normally finish at once
            time.sleep(_COPY_POLL_S)
            properties = self._call(bucket, destination_key, "copy status", target.get_blob_properties)
            result = {"copy_status": properties.copy.status, "etag": properties.etag}
        if result.get("copy_status") not in (None, "success"):
            raise StorageError(f"Copy of {bucket}/{source_key} to {destination_key} ended {result['copy_status']}.")
        return str(result["etag"])

    # --- reads --------------------------------------------------------------------------------

    def get(self, bucket: str, key: str) -> StoredObject:
        def read() -> StoredObject:
            downloader = self._blob(bucket, key).download_blob()
            return StoredObject(downloader.readall(), str(downloader.properties.etag))

        return self._call(bucket, key, "download", read)

    def download_file(self, bucket: str, key: str, path: Path) -> ObjectInfo:
        def fetch() -> ObjectInfo:
            downloader = self._blob(bucket, key).download_blob()
            with open(path, "wb") as out:
                downloader.readinto(out)
            return _info(key, downloader.properties)

        return self._call(bucket, key, "download", fetch)

    def head(self, bucket: str, key: str) -> ObjectInfo:
        return _info(key, self._call(bucket, key, "properties", self._blob(bucket, key).get_blob_properties))

    def _pages(
        self, bucket: str, prefix: str, delimiter: str | None, start_after: str | None, page_size: int
    ) -> Iterator[ListPage]:
        if start_after is not None:
            flat = (o for page in self._server_pages(bucket, prefix, None, 1000) for o in page.objects)
            return paginate(roll_up(flat, _key_of, prefix, delimiter, start_after), page_size)
        if delimiter:
            return regroup(self._server_pages(bucket, prefix, delimiter, page_size), page_size)
        return self._server_pages(bucket, prefix, delimiter, page_size)

    def check_bucket(self, bucket: str) -> None:
        self._call(bucket, None, "properties", self.client.get_container_client(bucket).get_container_properties)

    # --- client lifecycle -----------------------------------------------------------------------

    @staticmethod
    def _build_client(settings: AzureSettings) -> Any:
        from azure.storage.blob import BlobServiceClient

        options: dict[str, Any] = {"retry_policy": retry_policy(settings),
                                   "connection_timeout": settings.http_socket_timeout_ms / 1000,
                                   "read_timeout": settings.http_socket_timeout_ms / 1000}
        mode = settings.auth_mode.lower()
        if mode == "connectionstring":
            if not settings.connection_string:
                raise AccessDeniedError("Azure auth mode ConnectionString needs a connection string.")
            return BlobServiceClient.from_connection_string(settings.connection_string.reveal(), **options)
        if not settings.endpoint and not settings.account_name:
            raise AccessDeniedError("Azure needs an endpoint or an account name to address the blob service.")
        url = settings.endpoint or f"https://{settings.account_name}.blob.core.windows.net"
        if mode == "credentials":
            if not settings.account_name or not settings.account_key:
                raise AccessDeniedError("Azure auth mode Credentials needs an account name and an account key.")
            credential: Any = {"account_name": settings.account_name, "account_key": settings.account_key.reveal()}
        else:
            from azure.identity import DefaultAzureCredential

            credential = DefaultAzureCredential()
        return BlobServiceClient(url, credential=credential, **options)

    # --- internals ----------------------------------------------------------------------------

    def _blob(self, bucket: str, key: str) -> Any:
        return self.client.get_blob_client(bucket, key)

    def _translate(self, error: Exception, bucket: str, key: str | None, operation: str) -> Exception:
        return translate_azure_error(error, bucket, key)

    def _upload(self, bucket: str, key: str, body: Callable[[], Any], **options: Any) -> str:
        def attempt() -> str:
            data = body()
            try:
                return str(self._blob(bucket, key).upload_blob(data, **options)["etag"])
            finally:
                if hasattr(data, "close"):
                    data.close()

        return self._call(bucket, key, "upload", attempt)

    def _server_pages(self, bucket: str, prefix: str, delimiter: str | None, page_size: int) -> Iterator[ListPage]:
        container = self.client.get_container_client(bucket)
        token: str | None = None
        while True:
            def fetch(continuation: str | None = token) -> tuple[list[Any], str | None]:
                if delimiter:
                    listing = container.walk_blobs(name_starts_with=prefix or None, delimiter=delimiter,
                                                   results_per_page=page_size)
                else:
                    listing = container.list_blobs(name_starts_with=prefix or None, results_per_page=page_size)
                pager = listing.by_page(continuation_token=continuation)
                return list(next(pager, [])), pager.continuation_token

            items, token = self._call(bucket, None, "list", fetch)
            objects = tuple(sorted((_info(i.name, i) for i in items if not _is_prefix(i)), key=_key_of))
            prefixes = tuple(sorted(i.name for i in items if _is_prefix(i)))
            if objects or prefixes:
                yield ListPage(objects, prefixes)
            if not token:
                return


def retry_policy(settings: AzureSettings) -> Any:
    """The client's ``LinearRetry``: ``http_max_retries`` retries whatever failed (the SDK also counts
    connection, read and status failures apart, each with its own default of 3, so all four get the
    budget), each after a uniform random wait in ``[interval / 2, 3 * interval / 2]``.

    The SDK's ``ExponentialRetry`` cannot honour a millisecond interval: its first retry already waits
    ``initial_backoff + increment_base`` seconds, and ``increment_base ** n`` only grows for a base of
    at least one second. A retried request is the same request, so ``If-None-Match``/``If-Match`` are
    resent on every attempt.
    """
    from azure.storage.blob import LinearRetry

    interval_s, retries = settings.http_retry_interval_ms / 1000, settings.http_max_retries
    return LinearRetry(backoff=interval_s, random_jitter_range=interval_s / 2, retry_total=retries,
                       retry_connect=retries, retry_read=retries, retry_status=retries)


def _is_prefix(item: Any) -> bool:
    return not hasattr(item, "size")  # BlobPrefix has no size; BlobProperties always does


def _info(key: str, properties: Any) -> ObjectInfo:
    return ObjectInfo(key, int(properties.size), str(properties.etag), epoch_ms(properties.last_modified))


def _key_of(info: ObjectInfo) -> str:
    return info.key
