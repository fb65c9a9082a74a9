"""A librdkafka mock cluster the test controls: brokers can be taken down and brought back.

:class:`~lakesink.adapters.kafka.embedded_broker.EmbeddedKafka` starts the mock through a client
setting, which gives no handle on the cluster. This one creates it through librdkafka's C API
(``rd_kafka_mock_cluster_new``), loaded from the library confluent-kafka ships, so a test can call
``rd_kafka_mock_broker_set_down`` / ``_set_up``: the broker closes its connections and refuses new
ones, as a stopped broker does, and keeps its data for when it is back.
"""

from __future__ import annotations

import ctypes
import glob
from collections.abc import Iterable
from pathlib import Path

import confluent_kafka

from lakesink.adapters.kafka.embedded_broker import ProducedRecord

_RD_KAFKA_PRODUCER = 0


def _library() -> ctypes.CDLL:
    libs = Path(confluent_kafka.__file__).parents[1] / "confluent_kafka.libs"
    found = glob.glob(str(libs / "librdkafka*.so*"))
    if not found:
        raise RuntimeError(f"no librdkafka in {libs}")
    lib = ctypes.CDLL(found[0])
    lib.rd_kafka_conf_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_destroy.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_mock_cluster_new.restype = ctypes.c_void_p
    lib.rd_kafka_mock_cluster_new.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.rd_kafka_mock_cluster_destroy.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_mock_cluster_bootstraps.restype = ctypes.c_char_p
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [ctypes.c_void_p]
    for name in ("rd_kafka_mock_broker_set_down", "rd_kafka_mock_broker_set_up"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int32]
        getattr(lib, name).restype = ctypes.c_int
    lib.rd_kafka_mock_topic_create.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    lib.rd_kafka_mock_topic_create.restype = ctypes.c_int
    return lib


class MockCluster:
    """One broker (id 1) on a free 127.0.0.1 port; use as a context manager."""

    def __init__(self) -> None:
        self._lib = _library()
        error = ctypes.create_string_buffer(512)
        self._client = self._lib.rd_kafka_new(_RD_KAFKA_PRODUCER, self._lib.rd_kafka_conf_new(), error, len(error))
        if not self._client:
            raise RuntimeError(f"rd_kafka_new failed: {error.value.decode()}")
        self._cluster = self._lib.rd_kafka_mock_cluster_new(self._client, 1)
        if not self._cluster:
            raise RuntimeError("rd_kafka_mock_cluster_new failed")
        self.bootstrap_servers = self._lib.rd_kafka_mock_cluster_bootstraps(self._cluster).decode()

    def __enter__(self) -> MockCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def produce(self, topic: str, records: Iterable[ProducedRecord]) -> int:
        """Produce ``records`` and wait until all are acknowledged (the broker must be up); returns the count."""
        producer = confluent_kafka.Producer({"bootstrap.servers": self.bootstrap_servers, "linger.ms": 5})
        count = 0
        for record in records:
            producer.produce(topic, value=record.value, key=record.key, headers=list(record.headers) or None,
                             timestamp=record.timestamp_ms or 0, partition=record.partition or 0)
            count += 1
        left = producer.flush(30)
        if left:
            raise RuntimeError(f"{left} of {count} records to {topic} were not acknowledged within 30 s")
        return count

    def create_topic(self, name: str, partitions: int) -> None:
        self._check(self._lib.rd_kafka_mock_topic_create(self._cluster, name.encode(), partitions, 1), "topic_create")

    def stop_broker(self) -> None:
        """The broker goes down: its connections are closed and new ones refused."""
        self._check(self._lib.rd_kafka_mock_broker_set_down(self._cluster, 1), "broker_set_down")

    def start_broker(self) -> None:
        """The broker is back, with every record it held."""
        self._check(self._lib.rd_kafka_mock_broker_set_up(self._cluster, 1), "broker_set_up")

    def close(self) -> None:
        if self._cluster:
            self._lib.rd_kafka_mock_cluster_destroy(self._cluster)
            self._cluster = None
        if self._client:
            self._lib.rd_kafka_destroy(self._client)
            self._client = None

    @staticmethod
    def _check(code: int, what: str) -> None:
        if code != 0:
            raise RuntimeError(f"rd_kafka_mock_{what} failed with error code {code}")
