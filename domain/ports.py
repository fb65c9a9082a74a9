"""The ports: what the domain and the application need from the outside world.

Adapters implement these Protocols structurally (no inheritance needed). Every method documents
the lakesink errors it raises; that list is the behavioural contract the shared suite in
``contract-tests/`` checks for every backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from lakesink.domain.dead_letters import DeadLetter
from lakesink.domain.flush.rolls import RollReason
from lakesink.domain.records import Record, TopicPartition


@dataclass(frozen=True, slots=True)
class ObjectInfo:
    """Metadata of one stored object.

    ``etag`` is an opaque version token usable with :meth:`ObjectStore.put_if_match`
    (S3/Azure ETag, GCS generation, local content hash).
    """

    key: str
    size: int
    etag: str
    modified_ms: int | None = field(default=None, compare=False)
    """When the object was last written (epoch milliseconds, the store's clock), as listings and
    heads report it; None where the store's answer does not say (a write's)."""


@dataclass(frozen=True, slots=True)
class StoredObject:
    """An object's bytes together with the version they belong to."""

    data: bytes
    etag: str


@dataclass(frozen=True, slots=True)
class ListPage:
    """One page of a listing: objects in key order, and (with a delimiter) common prefixes."""

    objects: tuple[ObjectInfo, ...]
    prefixes: tuple[str, ...] = ()


@runtime_checkable
class ObjectStore(Protocol):
    """A bucketed object store (S3, GCS, Azure Blob, a local directory, memory).

    Keys are ``/``-separated strings; a store never interprets them beyond prefix matching.
    Every method may raise :class:`~lakesink.domain.errors.TransientStorageError` once the
    retries of the adapter's SDK are exhausted, :class:`~lakesink.domain.errors.AccessDeniedError`
    for bad or insufficient credentials and
    :class:`~lakesink.domain.errors.BucketNotFoundError` when the bucket does not exist.

    Retries and conditional writes: a network adapter retries a failed request by sending the same
    request again, condition included (``If-None-Match``, ``If-Match``, ``ifGenerationMatch``): a
    condition is never dropped on a retry. When the answer to an attempt that the store *applied*
    is lost (connection reset, timeout), the retry meets the object that attempt wrote and fails
    its condition. So a :class:`~lakesink.domain.errors.PreconditionFailedError` from
    :meth:`put_if_absent`, :meth:`put_if_match` or :meth:`upload_file` with ``if_absent`` means
    "the condition did not hold when the last attempt arrived", which includes "an earlier attempt
    of this very call applied it". Callers that must know which (the commit engine must) establish
    the outcome by reading the object back and comparing it with what they wrote.
    """

    def put(self, bucket: str, key: str, data: bytes) -> str:
        """Create or overwrite ``key``; returns the new etag."""
        ...

    def put_if_absent(self, bucket: str, key: str, data: bytes) -> str:
        """Create ``key`` only if it does not exist; returns the etag.

        Raises:
            PreconditionFailedError: the key already exists: another writer won, or an earlier
                attempt of this call created it and its answer was lost (see the class docstring);
                read the object back to tell the two apart.
        """
        ...

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        """Overwrite ``key`` only if its current etag is ``etag``; returns the new etag.

        Raises:
            PreconditionFailedError: the object changed or was deleted since ``etag`` was read,
                possibly by an earlier attempt of this very call whose answer was lost (see the
                class docstring); read the object back to tell.
        """
        ...

    def upload_file(self, bucket: str, key: str, path: Path, *, if_absent: bool = False) -> str:
        """Stream a local file to ``key`` (multipart when large); returns the etag.

        Raises:
            PreconditionFailedError: ``if_absent`` was set and the key exists, possibly created by
                an earlier attempt of this very call whose answer was lost (see the class
                docstring); read the object back to tell.
        """
        ...

    def get(self, bucket: str, key: str) -> StoredObject:
        """Read a whole object with its etag.

        Raises:
            ObjectNotFoundError: no such key.
        """
        ...

    def download_file(self, bucket: str, key: str, path: Path) -> ObjectInfo:
        """Stream an object into a local file (bounded memory); returns its metadata.

        Raises:
            ObjectNotFoundError: no such key.
        """
        ...

    def head(self, bucket: str, key: str) -> ObjectInfo:
        """Metadata of ``key``.

        Raises:
            ObjectNotFoundError: no such key.
        """
        ...

    def list_pages(
        self,
        bucket: str,
        prefix: str = "",
        *,
        delimiter: str | None = None,
        start_after: str | None = None,
        page_size: int = 1000,
    ) -> Iterator[ListPage]:
        """List keys under ``prefix`` in lexicographic (UTF-8 byte) order, one page at a time.

        Pages are fetched lazily, so a caller holds at most one page in memory. With a
        ``delimiter`` keys containing it after the prefix are rolled up into ``prefixes``.
        ``start_after`` skips every key ``<=`` it; with both, prefixes are rolled up from the keys
        that remain after ``start_after``. A page holds at most ``page_size`` (1..1000) entries,
        objects and prefixes counted together.
        """
        ...

    def delete(self, bucket: str, key: str) -> None:
        """Delete ``key``; deleting a missing key is not an error."""
        ...

    def delete_many(self, bucket: str, keys: Iterable[str]) -> None:
        """Delete many keys (batched by the adapter); missing keys are not an error."""
        ...

    def copy(
        self,
        bucket: str,
        source_key: str,
        destination_key: str,
        *,
        destination_bucket: str | None = None,
        if_match: str | None = None,
    ) -> str:
        """Server-side copy; returns the destination etag.

        ``if_match`` conditions the *source*, and every retry carries it; a retry after a lost
        answer copies the same source again, so it raises nothing the first attempt would not have.

        Raises:
            ObjectNotFoundError: the source does not exist.
            PreconditionFailedError: ``if_match`` is set and the source etag differs.
        """
        ...

    def check_bucket(self, bucket: str) -> None:
        """Fail fast at start-up when the bucket is missing or not accessible.

        Raises:
            BucketNotFoundError, AccessDeniedError
        """
        ...


class Clock(Protocol):
    """Wall-clock time, injected so flush-by-interval is testable."""

    def now_ms(self) -> int:
        """Milliseconds since the epoch."""
        ...


class DeadLetterQueue(Protocol):
    """Kafka Connect's dead-letter topic, written in transactions that also record how far the
    sink's batches have sent their dead letters (:mod:`lakesink.domain.dead_letters`)."""

    def sent(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """Per source partition, the next offset no committed dead-letter transaction covers yet
        (absent: none covers any). Read once, after fencing any earlier writer of the queue.

        Raises:
            LakesinkError: Kafka did not answer.
        """
        ...

    def send(self, letters: Sequence[DeadLetter], marks: Mapping[TopicPartition, int]) -> None:
        """Produce ``letters`` and commit ``marks`` as the new offsets, in one transaction.

        Raises:
            LakesinkError: the transaction failed or was fenced (nothing of it is visible).
        """
        ...

    def close(self) -> None:
        """Release the clients."""
        ...



class FormatWriter(Protocol):
    """Streams records of one storage format into one local staging file.

    A writer owns its file from creation to :meth:`close` (finished, ready to upload) or
    :meth:`abort` (deleted). Memory stays bounded whatever the file size, and the same
    records always produce the same bytes, so a retried task uploads an identical object.
    """

    @property
    def bytes_written(self) -> int:
        """Bytes in the file so far, for ``flush.size``; Parquet adds its buffered row group."""
        ...

    @property
    def record_count(self) -> int:
        """Records written into this file."""
        ...

    def write(self, record: Record) -> None:
        """Append one record.

        Raises:
            SchemaChangedError: the record does not fit the file's schema; nothing was
                written, the caller finishes this file and writes the record into a new one.
            RecordError: the record can never be written in this format (poison record);
                the message names it.
        """
        ...

    def write_many(self, records: Sequence[Record]) -> int:
        """Append records in order until one does not fit; returns how many were written.

        A first batch also decides the file's schema (merged over the records that merge),
        so nullable or widening fields do not each roll a file.

        Raises:
            RecordError: a poison record; the records before it were written.
        """
        ...

    def close(self) -> None:
        """Finish the file (footer, last block); the writer accepts nothing afterwards."""
        ...

    def abort(self) -> None:
        """Discard the file: close it without finishing and delete it."""
        ...


def iter_objects(
    store: ObjectStore, bucket: str, prefix: str = "", *, start_after: str | None = None
) -> Iterator[ObjectInfo]:
    """Every object under ``prefix`` in key order, streamed page by page."""
    for page in store.list_pages(bucket, prefix, start_after=start_after):
        yield from page.objects


class CommittedBatch(Protocol):
    """What a committed batch tells the metrics: the fields of the sink run's ``BatchReport`` they read
    (the application's metrics port, the Prometheus adapter and the progress lines take it)."""

    @property
    def batch_id(self) -> int: ...
    @property
    def records(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def lag(self) -> int | None: ...
    @property
    def files(self) -> tuple[str, ...]: ...
    @property
    def skipped(self) -> int: ...
    @property
    def poison(self) -> int: ...
    @property
    def dead_letters(self) -> int: ...
    @property
    def commit_ms(self) -> float: ...
    @property
    def committed(self) -> Mapping[TopicPartition, int]: ...
    @property
    def lags(self) -> Mapping[TopicPartition, int]: ...
    @property
    def records_by_topic(self) -> Mapping[str, int]: ...
    @property
    def bytes_by_topic(self) -> Mapping[str, int]: ...
    @property
    def rolls(self) -> Mapping[RollReason, int]: ...
    @property
    def requests(self) -> int: ...
    @property
    def duration_ms(self) -> float: ...


@dataclass(frozen=True)
class SinkStart:
    """Where a sink run starts, as its compute is given it (the application's ``SinkCompute.run``): the
    next offset per partition, and the first batch an unfinished earlier run forces (its end and chunks
    per partition, to reproduce every pending range plan)."""

    offsets: Mapping[TopicPartition, int] = field(default_factory=dict)
    first_end: Mapping[TopicPartition, int] = field(default_factory=dict)
    first_chunks: Mapping[TopicPartition, tuple[tuple[int, int], ...]] = field(default_factory=dict)
