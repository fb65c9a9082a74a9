"""What the five storage backends share, written once.

:class:`PagedStore`: ``list_pages``'s signature and page-size rule, a backend supplying only how it
pages; :class:`SdkStore`: the network backends' client, one per settings per process (only the
settings are pickled, so every executor builds its own), and their calls, whose final failures
become the port's errors (:func:`.sdk_call.sdk_call`); :class:`PerObjectDeleteStore`: GCS's and
Azure's deletes (one object per call, a missing one no error). See docs/storage.md, "Adding a backend".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from lakesink.adapters.storage.client_cache import shared_client
from lakesink.adapters.storage.paging import check_page_size, delete_each
from lakesink.adapters.storage.sdk_call import sdk_call
from lakesink.domain.errors import ObjectNotFoundError
from lakesink.domain.ports import ListPage

T = TypeVar("T")


class SdkSettings(Protocol):
    """What a network backend's settings carry for this base: hashable (the client cache's key) and the
    retry budget its SDK was given (quoted when it runs out)."""

    http_max_retries: int

    def __hash__(self) -> int: ...


SettingsT = TypeVar("SettingsT", bound=SdkSettings)


class PagedStore(ABC):
    """The port's ``list_pages``; the backend says how it pages."""

    def list_pages(
        self,
        bucket: str,
        prefix: str = "",
        *,
        delimiter: str | None = None,
        start_after: str | None = None,
        page_size: int = 1000,
    ) -> Iterator[ListPage]:
        check_page_size(page_size)
        return self._pages(bucket, prefix, delimiter, start_after, page_size)

    @abstractmethod
    def _pages(
        self, bucket: str, prefix: str, delimiter: str | None, start_after: str | None, page_size: int
    ) -> Iterator[ListPage]:
        """The listing with the port's semantics (:mod:`.paging`), ``page_size`` already checked."""


class SdkStore(PagedStore, Generic[SettingsT]):
    """A backend over a cloud SDK: its settings, its shared client and its translated calls."""

    kind: ClassVar[str]
    """The client cache's kind, which is also the extra that installs the SDK (``s3``, ``gcs``, ``azure``)."""
    service: ClassVar[str]
    """How errors name the service ("S3 PutObject")."""

    def __init__(self, settings: SettingsT) -> None:
        self.settings = settings

    @property
    def client(self) -> Any:
        """The SDK's client for these settings in this process (:mod:`.client_cache`)."""
        return shared_client(self.kind, self.settings, self._build_client)

    @staticmethod
    @abstractmethod
    def _build_client(settings: Any) -> Any:
        """A new SDK client for ``settings``; the SDK is imported here, so a missing extra is named."""

    @abstractmethod
    def _translate(self, error: Exception, bucket: str, key: str | None, operation: str) -> Exception:
        """``error`` as the port's error naming bucket and key, or ``error`` itself when it is not a
        storage failure."""

    def _call(self, bucket: str, key: str | None, operation: str, attempt: Callable[[], T]) -> T:
        """Run one SDK call; the retry policy the client was built with retries inside ``attempt``."""
        return sdk_call(f"{self.service} {operation}", attempt,
                        lambda exc: self._translate(exc, bucket, key, operation),
                        self.settings.http_max_retries)


class PerObjectDeleteStore(SdkStore[SettingsT]):
    """An SDK backend that deletes one object per call and answers a missing one with a not-found error
    (GCS, Azure; S3 has a batch delete and deletes a missing key silently)."""

    def delete(self, bucket: str, key: str) -> None:
        try:
            self._call(bucket, key, "delete", lambda: self._delete_object(bucket, key))
        except ObjectNotFoundError:
            pass  # the port: deleting a missing key is not an error

    def delete_many(self, bucket: str, keys: Iterable[str]) -> None:
        delete_each(lambda key: self.delete(bucket, key), keys)

    @abstractmethod
    def _delete_object(self, bucket: str, key: str) -> None:
        """The SDK's delete of one object (inside :meth:`SdkStore._call`, which translates its errors)."""
