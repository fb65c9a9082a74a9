"""What the demo needs from the outside world, as Protocols its caller satisfies.

The CLI's ``demo`` command builds the real ones (:mod:`lakesink.adapters.demo`: librdkafka's mock
cluster, moto's S3 server, boto3 / file-system listings, pyarrow and json decoding) and hands
them to :func:`~lakesink.application.demo.run.run_demo`; a test can hand in its own. The
adapters satisfy these structurally: they never import this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from lakesink.application.demo.data import OrderMessage

Position = tuple[str, int, int]
"""(topic, partition, offset)"""


class TopicRecord(Protocol):
    """A record as the broker holds it, decoded like the demo's converters decode it."""

    @property
    def key(self) -> str | None: ...
    @property
    def value(self) -> Any: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def timestamp(self) -> int | None: ...


class StoredRow(Protocol):
    """One record as found in an output file, with the key of the object that holds it."""

    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def timestamp(self) -> int | None: ...
    @property
    def key(self) -> str | None: ...
    @property
    def value(self) -> Any: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def object_key(self) -> str: ...


class ListedObject(Protocol):
    """One object of a bucket: its key and size in bytes."""

    @property
    def key(self) -> str: ...
    @property
    def size(self) -> int: ...


class Bucket(Protocol):
    """A bucket the sink wrote, read with code that shares nothing with the sink."""

    @property
    def name(self) -> str: ...

    def list(self, prefix: str = "") -> Sequence[ListedObject]:
        """Every object whose key starts with ``prefix``, keys as the sink computed them."""
        ...

    def rows(self, key: str) -> Iterator[StoredRow]:
        """The envelope rows of one data object.

        Raises:
            ValueError: the object is not an envelope file in a format the reader knows.
        """
        ...


class Broker(Protocol):
    """A running Kafka-compatible broker that Spark executors can reach."""

    @property
    def name(self) -> str:
        """What it is, for the demo's first line (``Kafka (librdkafka mock)``)."""
        ...

    @property
    def bootstrap_servers(self) -> str: ...

    def produce(self, topic: str, messages: Iterable[OrderMessage]) -> int:
        """Produce and wait for every acknowledgement; returns the count."""
        ...

    def end_data_set(self, topic: str) -> dict[int, int]:
        """Flush what was produced to ``topic``; returns its high watermark per partition."""
        ...

    def contents(self, topic: str) -> Mapping[Position, TopicRecord]:
        """Every record of ``topic`` between the watermarks: the truth the audit compares with.

        Raises:
            RuntimeError: the topic could not be read back completely.
        """
        ...


class ObjectServer(Protocol):
    """A running S3-compatible server."""

    @property
    def name(self) -> str:
        """What it is, for the demo's first line (``S3 (moto)``)."""
        ...

    @property
    def url(self) -> str: ...

    def connector_settings(self) -> dict[str, str]:
        """The ``connect.s3.*`` keys a sink config needs to write here."""
        ...

    def create_bucket(self, bucket: str) -> None: ...

    def bucket(self, bucket: str) -> Bucket: ...


class Services(Protocol):
    """The broker and the object server, started together and stopped together."""

    @property
    def kafka(self) -> Broker: ...
    @property
    def s3(self) -> ObjectServer: ...


class TableReader(Protocol):
    """A table the sink committed to, read through its own metadata by a library of its format."""

    def data_keys(self) -> list[str]:
        """The bucket keys of the data files the table's current version references."""
        ...

    def row_count(self) -> int:
        """The rows a scan of the table returns."""
        ...


class OnceRunner(Protocol):
    """``lakesink sink --once`` for one connector config file."""

    def run(self, config: Path, checkpoint: Path) -> None: ...


@dataclass(frozen=True, slots=True)
class DemoPorts:
    """Everything :func:`~lakesink.application.demo.run.run_demo` is handed by its caller.

    Attributes:
        services: starts the broker and the object server; both stop when the context exits,
            Ctrl-C included.
        local_bucket: a bucket of the local-directory backend, ``(root, bucket)``.
        once_sink: a sink that runs configs once each, on one Spark session started on the
            given master URL.
        iceberg_table: the Iceberg table ``(catalog URI, table name, server)`` read back.
        delta_table: the Delta table ``(s3://bucket/prefix, server)`` read back.
    """

    services: Callable[[], AbstractContextManager[Services]]
    local_bucket: Callable[[Path, str], Bucket]
    once_sink: Callable[[str], AbstractContextManager[OnceRunner]]
    iceberg_table: Callable[[str, str, ObjectServer], TableReader]
    delta_table: Callable[[str, ObjectServer], TableReader]
