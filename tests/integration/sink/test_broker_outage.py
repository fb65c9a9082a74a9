"""The broker goes away under a running sink and comes back: the sink waits for it, every offset once.

The sink runs continuously while records arrive; mid-run the broker is taken down for a while, then
brought back with every record it held, and more records arrive. On Apache Kafka the broker process
is stopped (SIGTERM, a controlled shutdown) and started again on the same ports and data; on the
librdkafka mock (tests/support/mock_cluster.py) the broker closes its connections and refuses new ones. The sink must still be running when the last record is committed (a
batch failure ends the run and the test), and the store, read as plain files, holds every produced
offset exactly once.
``make test-reliability`` takes each broker down three times, for 5, 15 and 30 s; ``make test``
takes Apache Kafka down once, for 5 s (the session's broker: every other test's topics survive it).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import ProducedRecord
from tests.conftest import unique_name
from tests.integration.sink.conftest import assert_exactly_once, local_props, produce_ids, run_sink
from tests.support.mock_cluster import MockCluster
from tests.support.reliability import FULL, record_cell

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.reliability, pytest.mark.timeout(600)]

OUTAGES_S = (5.0, 15.0, 30.0) if FULL else (5.0,)
CHUNK = 40


class Outages(Protocol):
    """What the test does with a broker: both brokers' handles have these."""

    bootstrap_servers: str

    def create_topic(self, name: str, partitions: int) -> None: ...
    def stop_broker(self) -> None: ...
    def start_broker(self) -> None: ...
    def produce(self, topic: str, records: Iterable[ProducedRecord]) -> int: ...


@pytest.fixture(params=["apache-kafka", "librdkafka-mock"])
def cluster(request: pytest.FixtureRequest) -> Iterator[Outages]:
    if request.param == "apache-kafka":
        broker = request.getfixturevalue("apache_kafka")
        if not broker.restartable:
            pytest.skip("the tests do not stop an external cluster's broker (LAKESINK_TEST_BOOTSTRAP_SERVERS)")
        yield broker
        return
    if not FULL:
        pytest.skip("the mock broker's outage runs in make test-reliability; make test takes Apache Kafka down")
    with MockCluster() as mock:
        yield mock


def test_a_broker_outage_is_waited_out_and_every_offset_lands_once(
    spark: SparkSession, cluster: Outages, tmp_path: Path
) -> None:
    topic = unique_name("outage")
    cluster.create_topic(topic, 4)
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    kcql = f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=20, 'flush.interval'=1)"
    props = local_props(tmp_path / "store", kcql, topic, cluster)  # type: ignore[arg-type]
    produce_ids(cluster, topic, range(CHUNK))  # type: ignore[arg-type]
    produced = [CHUNK]

    def outages() -> None:
        for outage_s in OUTAGES_S:
            time.sleep(4)
            produce_ids(cluster, topic, range(produced[0], produced[0] + CHUNK))  # type: ignore[arg-type]
            produced[0] += CHUNK
            cluster.stop_broker()
            print(f"broker down for {outage_s:.0f} s")
            time.sleep(outage_s)
            cluster.start_broker()
            time.sleep(2)
            produce_ids(cluster, topic, range(produced[0], produced[0] + CHUNK))  # type: ignore[arg-type]
            produced[0] += CHUNK

    failures: list[BaseException] = []

    def outages_or_failure() -> None:
        try:
            outages()
        except BaseException as error:  # reported by the test thread
            failures.append(error)

    feeding = threading.Thread(target=outages_or_failure, daemon=True)
    started = time.monotonic()
    feeding.start()
    job = run_sink(spark, props, tmp_path / "ck", once=False, feeding=feeding)
    elapsed = time.monotonic() - started
    assert failures == [], f"the outages did not happen as planned: {failures[0]!r}"
    assert produced[0] == CHUNK * (1 + 2 * len(OUTAGES_S))
    assert len(job.reports) > len(OUTAGES_S), "the sink committed no batch after an outage"

    files = sorted(path for path in (tmp_path / "store" / "bkt").rglob("*") if path.is_file()
                   and ".indexes" not in path.parts)
    ids = [json.loads(line)["id"] for path in files for line in path.read_bytes().splitlines()]
    assert_exactly_once(ids, range(produced[0]))
    record_cell("broker outage", broker=type(cluster).__name__, outages=", ".join(f"{s:.0f} s" for s in OUTAGES_S), records=produced[0],
                seconds=elapsed, outcome="the sink kept running and resumed; every offset once")
