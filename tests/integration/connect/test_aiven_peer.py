"""The benchmark's Aiven peer (bench/connect_plugins/AivenCommonsS3Sink.java) end to end: a real Connect
worker, a real topic and moto's S3 server give the objects, keys and bytes, that Aiven's own sink-task loop
(tests/support/aiven_oracle/AivenSinkTaskOracle.java, Aiven's commons) produces for the same records,
file.max.records rotation and gzip included."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from bench import aiven_peer
from bench.verify import count_records
from lakesink.adapters.demo.s3 import MotoS3
from lakesink.adapters.kafka.embedded_broker import ProducedRecord
from lakesink.domain.records import Record
from tests.conftest import unique_name
from tests.support.aiven_oracle.java_side import SINK_TASK, record_json, run_aiven
from tests.support.connect_standalone import BYTES, ConnectWorker
from tests.support.kafka_broker import KafkaCluster

VALUES = [b'{"id":1,"name":"caf\xc3\xa9"}', b'{"id":2,"nested":{"a":[1,2]}}', b"{}", b'{"id":4}', b'"text"']
PARTITIONS = 2
MAX_RECORDS = 2


def _objects_when_complete(client: Any, bucket: str, count: int, timeout_s: float = 30.0) -> dict[str, bytes]:
    """Every object of ``bucket`` (key -> bytes) once their lines add up to ``count`` records."""
    deadline = time.monotonic() + timeout_s
    while True:
        listed = client.list_objects_v2(Bucket=bucket).get("Contents", [])
        objects = {item["Key"]: client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read() for item in listed}
        if sum(count_records(body, key) for key, body in objects.items()) >= count or time.monotonic() > deadline:
            return objects
        time.sleep(0.2)


@pytest.mark.parametrize("compressed", [False, True], ids=["jsonl", "jsonl-gzip"])
def test_the_aiven_peer_uploads_what_aivens_sink_task_writes(
    connect_worker: ConnectWorker, apache_kafka: KafkaCluster, moto: MotoS3, tmp_path: Path, compressed: bool
) -> None:
    reason = aiven_peer.missing_reason()
    if reason is not None:
        pytest.skip(reason)
    topic, bucket = unique_name("aiven-peer"), unique_name("aiven-peer").replace("_", "-")
    apache_kafka.create_topic(topic, PARTITIONS)
    produced = [ProducedRecord(value, key=f"k{i}".encode(), partition=i % PARTITIONS) for i, value in enumerate(VALUES)]
    apache_kafka.produce(topic, produced)
    client = moto.endpoint.client()
    client.create_bucket(Bucket=bucket)
    config = {**aiven_peer.connector_config(topic, bucket, moto.endpoint, gzip=compressed, max_records=MAX_RECORDS,
                                            tasks=1),
              "value.converter": BYTES, "key.converter": BYTES}
    name = unique_name("aiven-peer")
    connect_worker.add_connector(name, config)
    try:
        uploaded = _objects_when_complete(client, bucket, len(VALUES))
    finally:
        connect_worker.delete_connector(name)
    offsets = [0] * PARTITIONS
    records = []
    for i, value in enumerate(VALUES):
        partition = i % PARTITIONS
        records.append(Record(topic, partition, offsets[partition], timestamp=0, key=f"k{i}".encode(), value=value))
        offsets[partition] += 1
    oracle_config = {key: value for key, value in config.items() if not key.startswith(("aws.", "connector.", "tasks."))}
    case = {"id": "peer", "config": oracle_config, "flushes": [[record_json(r) for r in records]]}
    expected = run_aiven(SINK_TASK, [case], tmp_path)["peer"]
    assert "error" not in expected, expected
    assert {key: body.hex() for key, body in uploaded.items()} == expected["objects"]
    assert len(uploaded) == 3  # partition 0's 3 records rotate at file.max.records 2: 2 files; partition 1's 2: 1
