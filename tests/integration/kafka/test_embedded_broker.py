from __future__ import annotations

import pytest

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord

pytestmark = pytest.mark.integration

MOCK_PARTITIONS = 4
"""How many partitions librdkafka's mock gives every auto-created topic."""


def test_bootstrap_address_is_on_the_loopback_interface(kafka: EmbeddedKafka) -> None:
    host, _, port = kafka.bootstrap_servers.rpartition(":")

    assert host == "127.0.0.1"
    assert int(port) > 0


def test_produced_records_show_in_the_high_watermarks_of_an_auto_created_topic(
    kafka: EmbeddedKafka, topic: str
) -> None:
    records = [ProducedRecord(b"v", partition=i % 2) for i in range(5)]

    count = kafka.produce(topic, records)

    assert count == 5
    assert kafka.end_data_set(topic) == {0: 3, 1: 2, 2: 0, 3: 0}
    assert len(kafka.watermarks(topic)) == MOCK_PARTITIONS


def test_a_second_cluster_gets_its_own_address_and_stops_on_close() -> None:
    with EmbeddedKafka() as other:
        address = other.bootstrap_servers

    assert address.startswith("127.0.0.1:")
    with pytest.raises(RuntimeError):
        _ = other.bootstrap_servers
