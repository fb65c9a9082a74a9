"""One real Kafka Connect worker for the session (tests/support/connect_standalone.py): each test adds
its connectors under its own names, so the session pays for one Connect JVM start."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support.connect_standalone import ConnectWorker, connect_missing_reason
from tests.support.kafka_broker import REPO, KafkaCluster

#: Where the worker's log is kept when a test of the session failed.
CONNECT_LOG_KEPT = REPO / ".test-logs" / "kafka-connect.log"


@pytest.fixture(scope="session")
def connect_worker(request: pytest.FixtureRequest, apache_kafka: KafkaCluster) -> Iterator[ConnectWorker]:
    """A standalone Connect worker on the session's broker (skips, with the reason, without the jars)."""
    reason = connect_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    worker = ConnectWorker(apache_kafka.bootstrap_servers)
    started = time.monotonic()
    worker.start()
    print(f"\nKafka Connect standalone started in {time.monotonic() - started:.1f} s")
    yield worker
    failed = request.session.testsfailed > 0
    worker.close(keep_log_in=CONNECT_LOG_KEPT if failed else None)
    if failed:
        print(f"\nKafka Connect's log of this session: {CONNECT_LOG_KEPT}")
