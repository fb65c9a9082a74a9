"""At-least-once mode on Apache Kafka: the group ``connect-<name>`` holds exactly what the sink reports.

With ``exactly.once.enable=false`` there is no index: Kafka Connect's consumer group is where the
sink resumes, and what kafka-consumer-groups, Burrow and every lag exporter read. After each run
the group's committed offsets (read with the admin API, as those tools do) must be the next offset
after the last one each batch reported durable, a second run must resume there, and the objects
must hold every offset once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.group_offsets import connect_group_id
from lakesink.application.sink_run import SinkRun
from tests.conftest import unique_name
from tests.integration.sink.conftest import assert_exactly_once, local_props, produce_ids, run_sink
from tests.support.kafka_broker import ApacheKafka

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _reported_next(jobs: list[SinkRun]) -> dict[tuple[str, int], int]:
    """The next offset after the last one the runs' batches reported durable, per topic-partition."""
    ends: dict[tuple[str, int], int] = {}
    for job in jobs:
        for report in job.reports:
            for partition, last in report.committed.items():
                ends[partition] = max(ends.get(partition, -1), last + 1)
    return ends


def test_the_connect_group_holds_the_offsets_the_sink_reports_and_the_next_run_resumes_there(
    spark: SparkSession, apache_kafka: ApacheKafka, tmp_path: Path
) -> None:
    topic = unique_name("alo")
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    kcql = f"INSERT INTO bkt:alo SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=7)"
    props = local_props(tmp_path / "store", kcql, topic, apache_kafka,
                        **{"connect.local.exactly.once.enable": "false"})
    group = connect_group_id(props["name"])
    produce_ids(apache_kafka, topic, range(50))
    first = run_sink(spark, props, tmp_path / "ck")
    assert apache_kafka.group_offsets(group) == _reported_next([first]) == {
        (topic, partition): high for partition, high in apache_kafka.end_data_set(topic).items()
    }

    produce_ids(apache_kafka, topic, range(50, 90))
    second = run_sink(spark, props, tmp_path / "ck-second")  # a new checkpoint: only the group says where
    assert sum(report.records for report in second.reports) == 40, "the second run did not resume at the group"
    assert apache_kafka.group_offsets(group) == _reported_next([first, second])
    files = sorted(p for p in (tmp_path / "store" / "bkt").rglob("*.json") if p.is_file())
    assert_exactly_once([json.loads(line)["id"] for f in files for line in f.read_bytes().splitlines()], range(90))
