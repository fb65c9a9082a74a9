"""One real Kafka Connect worker for the session (tests/support/connect_standalone.py): each test adds
its connectors under its own names, so the session pays for one Connect JVM start. The benchmark's Aiven
peer (bench/aiven_peer.py) and
Apache Iceberg's Kafka Connect sink (bench/iceberg_connect.py) are installed in it when their jars are here."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from bench import aiven_peer, iceberg_connect
from tests.support.connect_standalone import ConnectWorker, connect_missing_reason
from tests.support.kafka_broker import REPO, KafkaCluster
from tests.support.moto_s3 import moto_s3

#: Where the worker's log is kept when a test of the session failed.
CONNECT_LOG_KEPT = REPO / ".test-logs" / "kafka-connect.log"

moto = pytest.fixture(scope="module")(moto_s3)


@pytest.fixture(scope="session")
def connect_worker(request: pytest.FixtureRequest, apache_kafka: KafkaCluster) -> Iterator[ConnectWorker]:
    """A standalone Connect worker on the session's broker (skips, with the reason, without the jars)."""
    reason = connect_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    plugins = tuple(peer.PLUGIN for peer in (aiven_peer, iceberg_connect) if peer.missing_reason() is None)
    worker = ConnectWorker(apache_kafka.bootstrap_servers, plugins=plugins)
    started = time.monotonic()
    worker.start()
    print(f"\nKafka Connect standalone started in {time.monotonic() - started:.1f} s")
    yield worker
    failed = request.session.testsfailed > 0
    worker.close(keep_log_in=CONNECT_LOG_KEPT if failed else None)
    if failed:
        print(f"\nKafka Connect's log of this session: {CONNECT_LOG_KEPT}")
