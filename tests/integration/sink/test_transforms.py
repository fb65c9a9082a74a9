"""Single Message Transforms in a running sink: the primary seed's Rolling Windows example as
written, and wall-clock keys that stay exactly-once through a crash and a replay."""

from __future__ import annotations

import json
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

import boto3
import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.storage import open_store
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore
from tests.integration.sink.conftest import MotoS3, assert_exactly_once, data_keys, local_props, run_sink
from tests.support.faulty_store import CrashBeforeCommit

pytestmark = [pytest.mark.integration, pytest.mark.slow]

_CONNECT_SCHEMA = {
    "type": "struct",
    "optional": False,
    "fields": [
        {"field": "id", "type": "int64", "optional": False},
        {"field": "metadata_id", "type": "string", "optional": False},
        {"field": "customer_id", "type": "int32", "optional": False},
        {"field": "timestamp", "type": "int64", "optional": False},
    ],
}
#: 2024-03-05 07:00:00 UTC: the records span 07:xx and 08:xx.
_T0 = 1_709_622_000_000


def _rolling_windows_config(topic: str, kafka: EmbeddedKafka, moto: MotoS3) -> dict[str, str]:
    """Seed 000's Rolling Windows config as written (topic renamed), plus the broker and the store endpoint."""
    return {
        "connector.class": "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector",
        "connect.s3.kcql": (
            f"insert into lensesio:demo select * from {topic} PARTITIONBY _value.metadata_id, _value.customer_id, "
            "_header.ts, _header.wallclock STOREAS `JSON` PROPERTIES ('flush.size'=1000000, 'flush.interval'=30, "
            "'flush.count'=5000)"
        ),
        "topics": topic,
        "name": f"demo-{topic}",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "transforms": "insertFormattedTs,insertWallclock",
        "transforms.insertFormattedTs.type": "io.lenses.connect.smt.header.TimestampConverter",
        "transforms.insertFormattedTs.header.name": "ts",
        "transforms.insertFormattedTs.field": "timestamp",
        "transforms.insertFormattedTs.target.type": "string",
        "transforms.insertFormattedTs.format.to.pattern": "yyyy-MM-dd-HH",
        "transforms.insertWallclock.type": "io.lenses.connect.smt.header.InsertWallclock",
        "transforms.insertWallclock.header.name": "wallclock",
        "transforms.insertWallclock.value.type": "format",
        "transforms.insertWallclock.format": "yyyy-MM-dd-HH",
        # what the seed leaves to the environment: where Kafka and the store are
        "bootstrap.servers": kafka.bootstrap_servers,
        "connect.s3.aws.auth.mode": "Credentials",
        "connect.s3.aws.access.key": "testing",
        "connect.s3.aws.secret.key": "testing",
        "connect.s3.aws.region": "us-east-1",
        "connect.s3.custom.endpoint": moto.url,
        "connect.s3.vhost.bucket": "false",
    }


def _produce_metadata_records(kafka: EmbeddedKafka, topic: str, count: int) -> None:
    """Connect JSON records (schema + payload) whose ``timestamp`` field walks 07:00 → 08:xx."""
    kafka.produce(
        topic,
        [
            ProducedRecord(
                json.dumps(
                    {
                        "schema": _CONNECT_SCHEMA,
                        "payload": {
                            "id": i,
                            "metadata_id": f"m{i % 2}",
                            "customer_id": i % 3,
                            "timestamp": _T0 + i * 300_000,  # 5 minutes apart
                        },
                    }
                ).encode(),
                key=f"k{i}".encode(),
                partition=i % 4,
            )
            for i in range(count)
        ],
    )


def test_the_seeds_rolling_windows_example_runs_as_written(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, moto_s3: MotoS3
) -> None:
    props = _rolling_windows_config(topic, kafka, moto_s3)
    boto3.client(
        "s3", endpoint_url=moto_s3.url, aws_access_key_id="testing", aws_secret_access_key="testing",
        region_name="us-east-1",
    ).create_bucket(Bucket="lensesio")
    _produce_metadata_records(kafka, topic, 24)
    before = datetime.now(UTC).strftime("%Y-%m-%d-%H")

    run_sink(spark, props, tmp_path / "ck")

    after = datetime.now(UTC).strftime("%Y-%m-%d-%H")
    settings = ConnectorSettings.from_properties(props)
    store = open_store(settings.backend, settings.storage)
    ids = []
    for key in data_keys(store, "lensesio", "demo/"):
        segments = dict(part.split("=", 1) for part in key.split("/")[1:-1])
        assert segments["wallclock"] in {before, after}, key
        for line in store.get("lensesio", key).data.splitlines():
            value = json.loads(line)
            ids.append(value["id"])
            record_hour = datetime.fromtimestamp(value["timestamp"] / 1000, UTC).strftime("%Y-%m-%d-%H")
            assert segments == {
                "metadata_id": value["metadata_id"],
                "customer_id": str(value["customer_id"]),
                "ts": record_hour,
                "wallclock": segments["wallclock"],
            }, key
    assert_exactly_once(ids, range(24))


def _wallclock_props(tmp_path: Path, kafka: EmbeddedKafka, topic: str) -> tuple[dict[str, str], ObjectStore]:
    """A local sink keyed by a millisecond wall clock: any second attempt at another time keys differently."""
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    kcql = (
        f"INSERT INTO bkt:out SELECT * FROM {topic} PARTITIONBY _header.wallclock STOREAS `JSON` "
        "PROPERTIES('flush.count'=4, 'flush.interval'=1)"
    )
    props = local_props(
        tmp_path / "store", kcql, topic, kafka,
        **{
            "transforms": "clock",
            "transforms.clock.type": "io.lenses.connect.smt.header.InsertWallclock",
            "transforms.clock.header.name": "wallclock",
            "transforms.clock.value.type": "format",
            "transforms.clock.format": "yyyy-MM-dd-HH-mm-ss-SSS",
        },
    )
    settings = ConnectorSettings.from_properties(props)
    return props, open_store(settings.backend, settings.storage)


def _ids(store: ObjectStore) -> list[int]:
    return [json.loads(line)["id"] for key in data_keys(store, "bkt") for line in store.get("bkt", key).data.splitlines()]


def test_a_batch_replayed_after_a_crash_reads_its_recorded_clock_and_lands_under_the_same_keys(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _wallclock_props(tmp_path, kafka, topic)
    kafka.produce(topic, [ProducedRecord(json.dumps({"id": i}).encode(), partition=i % 4) for i in range(18)])
    with pytest.raises(Exception, match="simulated crash"):
        run_sink(spark, props, tmp_path / "ck", store=CrashBeforeCommit(store))
    uploaded = data_keys(store, "bkt")
    assert uploaded
    shutil.rmtree(tmp_path / "ck", ignore_errors=True)
    time.sleep(0.01)  # the wall clock has moved on: a fresh clock would key the replay differently

    run_sink(spark, props, tmp_path / "ck")

    assert set(uploaded) <= set(data_keys(store, "bkt"))
    assert_exactly_once(_ids(store), range(18))


def test_kafka_transforms_route_reshape_and_drop_records_before_the_statement_sees_them(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    props = local_props(
        tmp_path / "store",
        "INSERT INTO bkt:out SELECT * FROM `*` STOREAS `JSON` PROPERTIES('flush.count'=100, 'flush.interval'=1)",
        topic, kafka,
        **{
            "transforms": "route,stamp,drop",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "routed-$1",
            "transforms.stamp.type": "org.apache.kafka.connect.transforms.InsertField$Value",
            "transforms.stamp.static.field": "src",
            "transforms.stamp.static.value": "lakesink",
            "transforms.stamp.predicate": "tombstone",
            "transforms.stamp.negate": "true",
            "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
            "transforms.drop.predicate": "tombstone",
            "predicates": "tombstone",
            "predicates.tombstone.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
        },
    )
    kafka.produce(
        topic,
        [ProducedRecord(None if i % 5 == 4 else json.dumps({"id": i}).encode(), key=b"k", partition=i % 4)
         for i in range(20)],
    )
    settings = ConnectorSettings.from_properties(props)
    store = open_store(settings.backend, settings.storage)

    job = run_sink(spark, props, tmp_path / "ck")

    keys = data_keys(store, "bkt")
    assert keys and all(key.startswith(f"out/routed-{topic}/") for key in keys)
    values = [json.loads(line) for key in keys for line in store.get("bkt", key).data.splitlines()]
    assert all(value["src"] == "lakesink" for value in values)
    assert sorted(value["id"] for value in values) == [i for i in range(20) if i % 5 != 4]  # each once
    assert sum(report.skipped for report in job.reports) == 4  # the tombstones the Filter dropped
