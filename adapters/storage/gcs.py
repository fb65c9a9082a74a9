"""Google Cloud Storage through google-cloud-storage.

The port's etag is the object generation, and conditional writes are GCS's own generation
preconditions (:class:`GcsObjectStore`). Every call carries a ``google.api_core.retry.Retry``
(:func:`retry_policy`): full-jitter exponential backoff from ``http_retry_interval_ms``, up to
:data:`MAX_BACKOFF_S`, for at most ``http_max_retries`` retries. See docs/storage.md, "Retries".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from lakesink.adapters.clock import epoch_ms
from lakesink.adapters.storage.gcs_errors import is_retryable, translate_gcs_error
from lakesink.adapters.storage.paging import regroup, rolled_up_client_side
from lakesink.adapters.storage.store_base import PerObjectDeleteStore
from lakesink.domain.config.backends import GcsSettings
from lakesink.domain.errors import AccessDeniedError, ObjectNotFoundError, PreconditionFailedError
from lakesink.domain.ports import ListPage, ObjectInfo, StoredObject

T = TypeVar("T")
MAX_BACKOFF_S = 20.0
"""Longest wait between two attempts, however many retries came before (botocore's cap too)."""


class GcsObjectStore(PerObjectDeleteStore[GcsSettings]):
    """The :class:`~lakesink.domain.ports.ObjectStore` port over the GCS JSON API.

    The port's etag is the object *generation* (a decimal string): create-only writes send
    ``ifGenerationMatch=0`` and compare-and-swap ``ifGenerationMatch=<generation>``, both enforced
    atomically by GCS. ``copy(if_match=...)`` checks the source generation itself (emulators ignore
    ``ifSourceGenerationMatch``) and also sends ``ifSourceGenerationMatch`` so GCS enforces it.
    """

    kind = "gcs"
    service = "GCS"

    def __init__(self, settings: GcsSettings) -> None:
        super().__init__(settings)
        self._timeout = settings.http_socket_timeout_ms / 1000

    # --- writes -------------------------------------------------------------------------------

    def put(self, bucket: str, key: str, data: bytes) -> str:
        return self._upload(bucket, key, lambda blob, cond: blob.upload_from_string(data, **cond), None)

    def put_if_absent(self, bucket: str, key: str, data: bytes) -> str:
        return self._upload(bucket, key, lambda blob, cond: blob.upload_from_string(data, **cond), 0)

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        generation = _generation(bucket, key, etag)
        try:
            return self._upload(bucket, key, lambda blob, cond: blob.upload_from_string(data, **cond), generation)
        except ObjectNotFoundError:
            raise PreconditionFailedError(f"Object {bucket}/{key} was deleted since generation {etag}.") from None

    def upload_file(self, bucket: str, key: str, path: Path, *, if_absent: bool = False) -> str:
        if if_absent and self._exists(bucket, key):
            # Fail fast before streaming a large file that would be refused anyway (a replay after a
            # crash); ifGenerationMatch=0 below still decides races. It also covers emulators that
            # ignore preconditions on resumable uploads.
            raise PreconditionFailedError(f"Object {bucket}/{key} already exists.")
        return self._upload(bucket, key, lambda blob, cond: blob.upload_from_filename(str(path), **cond),
                            0 if if_absent else None)

    def _delete_object(self, bucket: str, key: str) -> None:
        self._blob(bucket, key).delete(**self._per_call())

    def copy(
        self,
        bucket: str,
        source_key: str,
        destination_key: str,
        *,
        destination_bucket: str | None = None,
        if_match: str | None = None,
    ) -> str:
        extra: dict[str, int] = {}
        if if_match is not None:
            extra["if_source_generation_match"] = _generation(bucket, source_key, if_match)
            if self.head(bucket, source_key).etag != if_match:
                raise PreconditionFailedError(f"Object {bucket}/{source_key} no longer has generation {if_match}.")
        client = self.client
        target = client.bucket(destination_bucket or bucket)
        copied = self._call(bucket, source_key, "copy", lambda: client.bucket(bucket).copy_blob(
            self._blob(bucket, source_key), target, destination_key, **self._per_call(), **extra))
        return str(copied.generation)

    # --- reads --------------------------------------------------------------------------------

    def get(self, bucket: str, key: str) -> StoredObject:
        def read() -> StoredObject:
            blob = self._blob(bucket, key)
            data = blob.download_as_bytes(**self._per_call())
            return StoredObject(data, str(blob.generation))

        return self._call(bucket, key, "download", read)

    def download_file(self, bucket: str, key: str, path: Path) -> ObjectInfo:
        def fetch() -> ObjectInfo:
            blob = self._blob(bucket, key)
            blob.download_to_filename(str(path), **self._per_call())
            return ObjectInfo(key, Path(path).stat().st_size, str(blob.generation))

        return self._call(bucket, key, "download", fetch)

    def head(self, bucket: str, key: str) -> ObjectInfo:
        def reload() -> ObjectInfo:
            blob = self._blob(bucket, key)
            blob.reload(**self._per_call())
            return _info(blob)

        return self._call(bucket, key, "metadata", reload)

    def _pages(
        self, bucket: str, prefix: str, delimiter: str | None, start_after: str | None, page_size: int
    ) -> Iterator[ListPage]:
        if delimiter and start_after is not None:
            flat_pages = self._server_pages(bucket, prefix, None, start_after, 1000)
            return rolled_up_client_side(flat_pages, prefix, delimiter, start_after, page_size)
        if delimiter:
            return regroup(self._server_pages(bucket, prefix, delimiter, start_after, page_size), page_size)
        return self._server_pages(bucket, prefix, delimiter, start_after, page_size)

    def check_bucket(self, bucket: str) -> None:
        # Listing needs only object-level permissions, unlike buckets.get.
        for _ in self._server_pages(bucket, "", None, None, 1):
            break

    # --- client lifecycle -----------------------------------------------------------------------

    @staticmethod
    def _build_client(settings: GcsSettings) -> Any:
        from google.auth.credentials import AnonymousCredentials
        from google.cloud import storage

        options = {"api_endpoint": settings.endpoint} if settings.endpoint else None
        mode = settings.auth_mode.lower()
        credentials = AnonymousCredentials() if mode == "none" else gcs_credentials(settings)
        project = settings.project_id or ("lakesink" if mode == "none" else None)
        return storage.Client(project=project, credentials=credentials, client_options=options)

    # --- internals ----------------------------------------------------------------------------

    def _exists(self, bucket: str, key: str) -> bool:
        try:
            self.head(bucket, key)
        except ObjectNotFoundError:
            return False
        return True

    def _per_call(self) -> dict[str, Any]:
        """The ``retry`` and ``timeout`` keywords every SDK call gets (a fresh retry budget each)."""
        return {"retry": retry_policy(self.settings), "timeout": self._timeout}

    def _blob(self, bucket: str, key: str) -> Any:
        return self.client.bucket(bucket).blob(key)

    def _translate(self, error: Exception, bucket: str, key: str | None, operation: str) -> Exception:
        return translate_gcs_error(error, bucket, key)

    def _call(self, bucket: str, key: str | None, operation: str, attempt: Callable[[], T]) -> T:
        """Run one GCS call; the ``Retry`` it carries retries inside ``attempt``."""
        try:
            return super()._call(bucket, key, operation, attempt)
        except ObjectNotFoundError:
            self.check_bucket(bucket)  # GCS answers 404 for a missing bucket too
            raise

    def _upload(self, bucket: str, key: str, send: Callable[[Any, dict[str, Any]], None],
                generation: int | None) -> str:
        def attempt() -> str:
            blob = self._blob(bucket, key)
            send(blob, {"if_generation_match": generation, **self._per_call()})
            return str(blob.generation)

        return self._call(bucket, key, "upload", attempt)

    def _server_pages(
        self, bucket: str, prefix: str, delimiter: str | None, start_after: str | None, page_size: int
    ) -> Iterator[ListPage]:
        token: str | None = None
        while True:
            def fetch(page_token: str | None = token) -> tuple[list[Any], tuple[str, ...], str | None]:
                found = self.client.list_blobs(
                    bucket, prefix=prefix or None, delimiter=delimiter, start_offset=start_after,
                    max_results=None, page_size=page_size, page_token=page_token, **self._per_call())
                page = next(found.pages, None)
                if page is None:
                    return [], (), None
                return list(page), tuple(sorted(page.prefixes)), found.next_page_token

            blobs, prefixes, token = self._call(bucket, None, "list", fetch)
            objects = tuple(_info(b) for b in blobs if b.name != start_after)  # startOffset is inclusive
            if objects or prefixes:
                yield ListPage(objects, prefixes)
            if not token:
                return


def gcs_credentials(settings: GcsSettings) -> Any:
    """The service account of auth mode Credentials (its JSON key) or File (a key file); None for the
    other modes (Default: the machine's credentials, None: anonymous), which each client sets up itself.

    Raises:
        AccessDeniedError: the mode's key is not set.
    """
    mode = settings.auth_mode.lower()
    if mode not in ("credentials", "file"):
        return None
    from google.oauth2 import service_account

    if mode == "credentials":
        if not settings.credentials:
            raise AccessDeniedError("GCS auth mode Credentials needs the service-account JSON.")
        return service_account.Credentials.from_service_account_info(json.loads(settings.credentials.reveal()))
    if not settings.credentials_file:
        raise AccessDeniedError("GCS auth mode File needs a credentials file path.")
    return service_account.Credentials.from_service_account_file(settings.credentials_file)


def retry_policy(settings: GcsSettings) -> Any:
    """A fresh ``google.api_core.retry.Retry`` for one call: at most ``http_max_retries`` retries of the
    failures :func:`.gcs_errors.is_retryable` accepts, the n-th after a random wait of up to
    ``interval * multiplier**(n-1)`` seconds (capped at :data:`MAX_BACKOFF_S`).

    api-core bounds a Retry by time, not by attempts, so the attempt budget is its ``on_error``
    callback, which re-raises the failure once the budget is spent; that is why each call gets its
    own Retry. There is no deadline: each attempt is bounded by the socket timeout instead.

    A retried request is the same request, so conditional writes keep their ``ifGenerationMatch`` on
    every attempt, and unconditional writes are safe to repeat because they carry the full object.
    """
    from google.api_core.retry import Retry

    return Retry(predicate=is_retryable, initial=settings.http_retry_interval_ms / 1000,
                 maximum=MAX_BACKOFF_S, multiplier=settings.http_retry_timeout_multiplier, timeout=None,
                 on_error=_RetryBudget(settings.http_max_retries).spend)


class _RetryBudget:
    """How many more retries one call may make; api-core calls :meth:`spend` before each one."""

    def __init__(self, retries: int) -> None:
        self.left = retries

    def spend(self, error: Exception) -> None:
        if self.left <= 0:
            raise error
        self.left -= 1


def _generation(bucket: str, key: str, etag: str) -> int:
    try:
        return int(etag)
    except ValueError:
        raise PreconditionFailedError(f"Etag {etag!r} of {bucket}/{key} is not a GCS generation.") from None


def _info(blob: Any) -> ObjectInfo:
    return ObjectInfo(blob.name, int(blob.size or 0), str(blob.generation), epoch_ms(blob.updated))
