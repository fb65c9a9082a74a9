"""``lakesink verify`` on buckets the sink wrote: clean ones verify clean, damaged ones (boto3) are reported, exit 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from confluent_kafka import ConsumerGroupState, ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.storage import open_store
from lakesink.application.bootstrap import verify as verify_command
from lakesink.application.cli import EXIT_FAILURE, EXIT_OK, main
from lakesink.domain.config.connector import ConnectorSettings
from tests.conftest import unique_name
from tests.integration.sink.conftest import MotoS3, local_props, produce_ids, run_sink, s3_props
from tests.support.boto_bucket import BotoBucket
from tests.support.confluent_configs import FMT, PKG
from tests.support.faulty_store import CrashBeforeCommit

pytestmark = [pytest.mark.integration, pytest.mark.slow]

RECORDS = range(24)  # 6 per partition


def _verify(
    config: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str
) -> tuple[int, dict[str, Any], str]:
    """The exit code, the JSON report (stdout) and the progress lines (stderr)."""
    path = tmp_path / "sink.json"
    path.write_text(json.dumps({"name": config["name"], "config": config}))
    capsys.readouterr()
    code = main(["verify", "--config", str(path), "--json", *flags])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _by_partition(report: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {p["partition"]: p for p in report["partitions"]}


def _check_status(
    props: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str], bucket: BotoBucket, topic: str
) -> None:
    """``lakesink status`` on the bucket: each partition committed at 5 of 6 records, the group one past it
    (the sink keeps it current), no lag, the newest object the one ending at offset 5."""
    path = tmp_path / "status.json"
    path.write_text(json.dumps({"name": props["name"], "config": props}))
    capsys.readouterr()
    assert main(["status", "--config", str(path), "--json"]) == EXIT_OK
    status = json.loads(capsys.readouterr().out)
    assert (status["schema"], status["committed_from"], status["lag"], status["group_error"]) == (
        "lakesink.status/1", "index", 0, None
    )
    for p in status["partitions"]:
        assert (p["topic"], p["committed"], p["group"], p["group_differs"], p["end"], p["lag"]) == (topic, 5, 6, False, 6, 0)
        assert p["newest"]["bucket"] == bucket.name and p["newest"]["modified_ms"] > 0
        assert p["newest"]["key"].startswith(f"out/{topic}/{p['partition']}/000000000005_"), p["newest"]
    assert [p["partition"] for p in status["partitions"]] == [0, 1, 2, 3]
    assert main(["status", "--config", str(path)]) == EXIT_OK
    text = capsys.readouterr().out
    assert f"{topic}-0: committed 5, end 6, lag 0; newest {bucket.name}/out/{topic}/0/000000000005_" in text


def _check_lag_tools_see_the_group(kafka: EmbeddedKafka, name: str, topic: str) -> None:
    """What kafka-consumer-groups --describe and lag exporters ask the broker (DescribeGroups, OffsetFetch,
    ListOffsets) shows the sink's group: empty (no member joins it), every partition at its end, no lag."""
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap_servers})
    group = f"connect-{name}"
    described = admin.describe_consumer_groups([group], request_timeout=10)[group].result(10)
    assert (described.state, described.members) == (ConsumerGroupState.EMPTY, [])
    listed = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(10)
    committed = {tp.partition: tp.offset for tp in listed.topic_partitions if tp.topic == topic}
    ends = admin.list_offsets({TopicPartition(topic, p): OffsetSpec.latest() for p in committed}, request_timeout=10)
    lags = {tp.partition: future.result(10).offset - committed[tp.partition] for tp, future in ends.items()}
    assert (committed, lags) == (dict.fromkeys(range(4), 6), dict.fromkeys(range(4), 0))


@pytest.mark.s3
def test_a_json_bucket_verifies_clean_and_each_kind_of_damage_is_reported(
    spark: SparkSession,
    kafka: EmbeddedKafka,
    topic: str,
    moto_s3: MotoS3,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bucket = BotoBucket(moto_s3.url, unique_name("verify"))
    produce_ids(kafka, topic, RECORDS)
    kcql = f"INSERT INTO {bucket.name}:out SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=2)"
    props = s3_props(moto_s3, kcql, topic, kafka)
    run_sink(spark, props, tmp_path / "ck")

    code, report, err = _verify(props, tmp_path, capsys)

    assert code == EXIT_OK and report["clean"], report
    assert "verify: listed 12 objects (12 in 4 topic-partitions), 12 to open\n" in err  # to count their lines
    assert report["kafka"] == {"reachable": True, "error": None}
    _check_status(props, tmp_path, capsys, bucket, topic)
    _check_lag_tools_see_the_group(kafka, props["name"], topic)
    for partition in _by_partition(report).values():
        assert (
            partition["first_stored"],
            partition["committed"],
            partition["topic_end"],
            partition["lag"],
        ) == (0, 5, 6, 0)
        assert (partition["objects"], partition["records"], partition["evidence"]) == (
            3,
            6,
            ["key and count"],
        )

    s3 = boto3.client(
        "s3",
        endpoint_url=moto_s3.url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    )
    keys = {
        int(key.split("/")[2]): key for key in bucket.keys() if key.split("/")[3].startswith("000000000003_")
    }
    s3.delete_object(Bucket=bucket.name, Key=keys[0])  # partition 0: offsets 2..3 gone
    copied = f"out/{topic}/1/000000000005_0_0.json"  # partition 1: 2..3 again, named as 4..5
    s3.copy_object(Bucket=bucket.name, Key=copied, CopySource={"Bucket": bucket.name, "Key": keys[1]})
    orphan = f"out/{topic}/2/000000000007_0_0.json"  # partition 2: beyond its lock at 5
    s3.put_object(Bucket=bucket.name, Key=orphan, Body=b'{"id":100}\n{"id":101}\n')
    s3.put_object(Bucket=bucket.name, Key=f"out/{topic}/notes.txt", Body=b"stray")

    code, report, err = _verify(props, tmp_path, capsys, "--quiet")

    assert code == EXIT_FAILURE and not report["clean"]
    assert "verify:" not in err
    partitions = _by_partition(report)
    assert partitions[0]["gaps"] == [{"first": 2, "last": 3}]
    (duplicate,) = partitions[1]["duplicates"]
    assert (duplicate["first"], duplicate["last"], copied in duplicate["keys"]) == (4, 5, True)
    assert [(o["key"], o["first"], o["last"]) for o in partitions[2]["orphans"]] == [(orphan, 6, 7)]
    assert [m["key"] for m in report["mismatches"]] == [f"out/{topic}/notes.txt"]
    assert report["totals"] | {"seconds": 0} == {
        "objects_listed": 14, "objects_opened": 13, "seconds": 0,
        "gaps": 1, "duplicates": 1, "orphans": 1, "pending": 0, "unreadable": 0, "mismatches": 1, "table_rows": 0,
    }  # fmt: skip


def test_parquet_plain_and_partitioned_with_an_envelope_verify_clean_without_kafka_too(
    spark: SparkSession,
    kafka: EmbeddedKafka,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    plain, parts = unique_name("plain"), unique_name("parts")
    produce_ids(kafka, plain, RECORDS)
    produce_ids(kafka, parts, RECORDS)
    kcql = (
        f"INSERT INTO bkt:plain SELECT * FROM {plain} STOREAS `PARQUET` PROPERTIES('flush.count'=4); "
        f"INSERT INTO bkt:parts SELECT * FROM {parts} PARTITIONBY region STOREAS `PARQUET` "
        "PROPERTIES('flush.count'=2, 'store.envelope'=true)"
    )
    props = local_props(tmp_path / "store", kcql, f"{plain},{parts}", kafka)
    run_sink(spark, props, tmp_path / "ck")

    code, report, _ = _verify(props, tmp_path, capsys)

    assert code == EXIT_OK and report["clean"], report
    evidence = {(p["topic"], tuple(p["evidence"])) for p in report["partitions"]}
    assert evidence == {(plain, ("key and count",)), (parts, ("read",))}
    assert all((p["committed"], p["records"], p["lag"]) == (5, 6, 0) for p in report["partitions"])

    monkeypatch.setattr(verify_command, "KAFKA_TIMEOUT_S", 1.0)
    code, report, _ = _verify({**props, "bootstrap.servers": "127.0.0.1:9"}, tmp_path, capsys)

    assert code == EXIT_OK and report["clean"]
    assert report["kafka"]["reachable"] is False and "127.0.0.1:9" in report["kafka"]["error"]
    assert all(p["topic_end"] is None and p["committed"] == 5 for p in report["partitions"])


def test_objects_of_a_batch_that_died_before_its_commit_are_pending_until_the_next_run_commits_them(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    produce_ids(kafka, topic, RECORDS)
    kcql = f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=3)"
    props = local_props(tmp_path / "store", kcql, topic, kafka)
    settings = ConnectorSettings.from_properties(props, role="sink")
    store = open_store(settings.backend, settings.storage)
    with pytest.raises(Exception, match="simulated crash"):
        run_sink(spark, props, tmp_path / "ck", store=CrashBeforeCommit(store))

    code, report, _ = _verify(props, tmp_path, capsys)

    assert code == EXIT_OK and report["clean"], report
    for partition in report["partitions"]:
        assert partition["committed"] is None and partition["orphans"] == []
        assert [(p["first"], p["last"]) for p in partition["pending"]] == [(0, 2), (3, 5)]
        assert partition["pending"][0]["plan"]["start"] == 0

    run_sink(spark, props, tmp_path / "ck")
    code, report, _ = _verify(props, tmp_path, capsys)

    assert code == EXIT_OK and report["totals"]["pending"] == 0
    assert all((p["committed"], p["records"]) == (5, 6) for p in report["partitions"])


@pytest.mark.s3
def test_a_confluent_default_partitioner_bucket_verifies_clean(
    spark: SparkSession,
    kafka: EmbeddedKafka,
    topic: str,
    moto_s3: MotoS3,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bucket = BotoBucket(moto_s3.url, unique_name("verify-confluent"))
    produce_ids(kafka, topic, RECORDS)
    config = {
        "name": unique_name("confluent-sink"),
        "connector.class": "io.confluent.connect.s3.S3SinkConnector",
        "storage.class": "io.confluent.connect.s3.storage.S3Storage",
        "format.class": f"{FMT}json.JsonFormat",
        "partitioner.class": f"{PKG}DefaultPartitioner",
        "flush.size": "3",
        "topics": topic,
        "s3.bucket.name": bucket.name,
        "s3.region": "us-east-1",
        "store.url": moto_s3.url,
        "aws.access.key.id": "testing",
        "aws.secret.access.key": "testing",
        "bootstrap.servers": kafka.bootstrap_servers,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
    }
    path = tmp_path / "sink.json"
    path.write_text(json.dumps({"name": config["name"], "config": config}))
    from lakesink.application.bootstrap.config_file import load_settings
    from lakesink.application.bootstrap.sink import sink_run

    sink_run(load_settings(path), spark, checkpoint_dir=str(tmp_path / "ck"), once=True).run(timeout_s=120)

    code, report, _ = _verify(config, tmp_path, capsys)

    assert code == EXIT_OK and report["clean"], report
    assert all((p["objects"], p["records"], p["committed"]) == (2, 6, 5) for p in report["partitions"])
    assert {tuple(p["evidence"]) for p in report["partitions"]} == {("key and count",)}
