"""The consumer group an exactly-once sink keeps current for lag tools, on the session's broker: its
commits land without the caller waiting, and a broker that does not answer costs one warning, no wait."""

from __future__ import annotations

import logging
import socket
import time

import pytest

from lakesink.adapters.kafka.advisory_group import AdvisoryGroup
from lakesink.adapters.kafka.embedded_broker import BrokerHandle, ProducedRecord
from lakesink.adapters.kafka.group_offsets import read_group
from tests.conftest import unique_name

pytestmark = [pytest.mark.integration]


def test_advised_offsets_are_committed_to_the_group_without_the_caller_waiting(kafka: BrokerHandle, topic: str) -> None:
    kafka.produce(topic, [ProducedRecord(b"x", partition=p) for p in (0, 1) for _ in range(3)])
    client = {"bootstrap.servers": kafka.bootstrap_servers}
    group_id = unique_name("connect-lag")
    group = AdvisoryGroup(client, group_id)
    calls = []
    for positions in ({(topic, 0): 1, (topic, 1): 2}, {(topic, 0): 3, (topic, 1): 2}):
        started = time.perf_counter()
        group.advise(positions)
        calls.append(time.perf_counter() - started)
    group.close()  # waits for the commits in flight

    assert read_group(client, group_id, [(topic, 0), (topic, 1)], timeout_s=10) == {(topic, 0): 3, (topic, 1): 2}
    assert max(calls[1:]) < 0.05, calls  # the batch does not wait for the broker (the first call creates the client)


def test_a_broker_that_does_not_answer_is_one_warning_and_never_stalls_the_caller(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    group = AdvisoryGroup({"bootstrap.servers": f"127.0.0.1:{port}"}, unique_name("connect-lag"), close_wait_s=0.5)
    started = time.perf_counter()
    with caplog.at_level(logging.DEBUG, logger="lakesink.adapters.kafka.advisory_group"):
        for offset in range(3):
            group.advise({("t", 0): offset})
        advised = time.perf_counter() - started
        group.close()

    assert advised < 0.5, advised
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "not committed" in warnings[0] and "resumes from the store's index" in warnings[0]
