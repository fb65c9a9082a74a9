"""Fixtures shared by the whole test session: one SparkSession, one Kafka broker and one Iceberg
REST catalog server.

Each is expensive to start (Spark ~5 s, Apache Kafka ~3 s), so each is started once, lazily, the
first time a test asks for it, and stopped at the end of the session. Tests isolate themselves with
unique names (:func:`unique_name`), never by restarting these.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.support.iceberg_rest import IcebergRestServer, iceberg_rest_missing_reason
from tests.support.kafka_broker import REPO, ApacheKafka, KafkaCluster, external_cluster, kafka_missing_reason
from tests.support.spark_kafka_source import spark_kafka_jars, spark_kafka_missing_reason

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from lakesink.adapters.kafka.embedded_broker import BrokerHandle

# Every Spark endpoint a test starts, the UI of a sink run included, listens on loopback only: Spark's
# web UI binds to SPARK_LOCAL_IP, else to every interface. Child processes inherit it.
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

#: Where the broker's log is kept when a test of the session failed.
BROKER_LOG_KEPT = REPO / ".test-logs" / "kafka-broker.log"
#: Where the Iceberg REST catalog server's log is kept when a test of the session failed.
ICEBERG_REST_LOG_KEPT = REPO / ".test-logs" / "iceberg-rest.log"


def unique_name(prefix: str) -> str:
    """``prefix`` plus a random suffix: topic, bucket or query names no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """A ``local[2,2]`` SparkSession (2 cores, a failed task is retried once, as on a cluster)
    with the lakesink data sources registered, UI off, and Spark's own Kafka source on its
    ``spark.jars`` when ``make install`` fetched it (tests/support/spark_kafka_source.py)."""
    from lakesink.adapters.spark.session import create_session

    jars = spark_kafka_jars()
    conf = {"spark.jars": ",".join(str(jar) for jar in jars)} if jars else {}
    session = create_session("local[2,2]", app_name="lakesink-tests", ui_enabled=False, conf=conf)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def kafka(request: pytest.FixtureRequest) -> Iterator[BrokerHandle]:
    """The session's broker: Apache Kafka (:func:`apache_kafka`) when its jars are here or an external
    cluster is named, else librdkafka's mock cluster, so everything but the real-broker tests still runs
    without Maven."""
    if kafka_missing_reason() is None or external_cluster() is not None:
        yield request.getfixturevalue("apache_kafka")
        return
    from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka

    with EmbeddedKafka() as broker:
        yield broker
        _close_kept_consumers()


@pytest.fixture(scope="session")
def apache_kafka(request: pytest.FixtureRequest) -> Iterator[KafkaCluster]:
    """Apache Kafka itself (tests/support/kafka_broker.py): KRaft, a plaintext listener, a SCRAM
    listener with ACLs; or the cluster ``LAKESINK_TEST_BOOTSTRAP_SERVERS`` names (docs/operations.md).
    Skips the test, with the reason, when the jars or Java are missing."""
    external = external_cluster()
    if external is not None:
        yield external
        external.close()
        return
    reason = kafka_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    broker = ApacheKafka()
    broker.start()
    yield broker
    _close_kept_consumers()
    failed = request.session.testsfailed > 0
    broker.close(keep_log_in=BROKER_LOG_KEPT if failed else None)
    if failed:
        print(f"\nApache Kafka's log of this session: {BROKER_LOG_KEPT}")


@pytest.fixture(scope="session")
def iceberg_rest(request: pytest.FixtureRequest) -> Iterator[IcebergRestServer]:
    """Apache Iceberg's own REST catalog server (tests/support/iceberg_rest.py), tables in local
    directories; tests keep apart by table names. Skips the test, with the reason, when the jars or
    Java are missing."""
    reason = iceberg_rest_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    server = IcebergRestServer()
    server.start()
    yield server
    failed = request.session.testsfailed > 0
    server.close(keep_log_in=ICEBERG_REST_LOG_KEPT if failed else None)
    if failed:
        print(f"\nIceberg's REST catalog log of this session: {ICEBERG_REST_LOG_KEPT}")


def _close_kept_consumers() -> None:
    """Close the consumers ``read_range`` kept in this process, before their broker stops."""
    from lakesink.adapters.kafka.consumer_pool import close_kept

    close_kept()


@pytest.fixture
def spark_kafka(spark: SparkSession) -> SparkSession:
    """The session, for a test of Spark's own ``format("kafka")``; skips, with the reason, without its jars."""
    reason = spark_kafka_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    return spark


@pytest.fixture
def topic() -> str:
    """A fresh topic name (the embedded broker auto-creates it with 4 partitions on first use)."""
    return unique_name("topic")
