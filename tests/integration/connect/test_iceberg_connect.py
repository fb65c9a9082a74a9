"""Apache Iceberg's Kafka Connect sink from its Maven Central jars (bench/iceberg_connect.py) on the session's
Connect worker, committing order events into a table of Iceberg's own REST catalog (the catalog lakesink's
``table.catalog.type=rest`` is tested against): pyiceberg reads back every record once, with its fields."""

from __future__ import annotations

import json
import time

import pytest

from bench import iceberg_connect
from bench.events import order_events
from lakesink.adapters.kafka.embedded_broker import ProducedRecord
from tests.conftest import unique_name
from tests.support.connect_standalone import ConnectWorker
from tests.support.iceberg_rest import IcebergRestServer
from tests.support.kafka_broker import KafkaCluster

RECORDS = 300
PARTITIONS = 2


def test_the_iceberg_connector_commits_every_record_once_to_the_rest_catalogs_table(
    connect_worker: ConnectWorker, apache_kafka: KafkaCluster, iceberg_rest: IcebergRestServer
) -> None:
    reason = iceberg_connect.missing_reason()
    if reason is not None:
        pytest.skip(reason)
    topic, control = unique_name("iceberg-connect"), unique_name("iceberg-control")
    apache_kafka.create_topic(topic, PARTITIONS)
    apache_kafka.create_topic(control, 1)
    events = list(order_events(RECORDS))
    apache_kafka.produce(topic, [ProducedRecord(e.value, key=e.key, partition=i % PARTITIONS)
                                 for i, e in enumerate(events)])
    catalog = iceberg_rest.catalog()
    identifier = f"peers.{unique_name('orders')}"
    iceberg_connect.create_orders_table(catalog, identifier)
    name = unique_name("iceberg-connect")
    config = iceberg_connect.connector_config(topic, identifier, iceberg_rest.uri, control_topic=control,
                                              commit_interval_ms=1000, tasks=1)
    connect_worker.add_connector(name, config)
    try:
        deadline = time.monotonic() + 60
        rows = catalog.load_table(identifier).scan().to_arrow()
        while rows.num_rows < RECORDS and time.monotonic() < deadline:
            time.sleep(0.5)
            rows = catalog.load_table(identifier).scan().to_arrow()
    finally:
        connect_worker.delete_connector(name)
    assert sorted(rows.column("order_id").to_pylist()) == sorted(e.key.decode() for e in events)
    first = json.loads(events[0].value)
    written = next(row for row in rows.to_pylist() if row["order_id"] == first["order_id"])
    assert written == first
