"""Restoring buckets laid out by hand: Lenses default and custom layouts, the Aiven template on S3."""

from __future__ import annotations

import uuid
from pathlib import Path

import boto3
import pytest

from lakesink.application.bootstrap.restore import restore
from lakesink.application.restore import load_plan
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.records import Record
from tests.integration.restore.conftest import BUCKET, local_restore_props, read_topic, write_object
from tests.support.checksum_rejecting_s3 import ChecksumRejectingS3

pytestmark = pytest.mark.integration


def _values(topic: str, partition: int, offsets: range) -> list[Record]:
    return [Record(topic, partition, o, value=f"{topic}:{partition}:{o}".encode()) for o in offsets]


def test_default_layout_without_padding_restores_in_offset_order_and_deletes_after(spark, kafka, store_root: Path) -> None:  # type: ignore[no-untyped-def]
    target = f"dst-{uuid.uuid4().hex[:8]}"
    # NoOp padding: "10_…" sorts before "9_…" in a listing; the index orders by the number
    for partition in (0, 1):
        for first in (0, 5, 10, 100):
            last = first + 4
            write_object(store_root, f"backup/orders/{partition}/{last}_0_0.text", Format.TEXT,
                         _values("orders", partition, range(first, last + 1)))
    (store_root / BUCKET / "backup/.indexes/n/.locks/Topic(orders)").mkdir(parents=True)
    (store_root / BUCKET / "backup/.indexes/n/.locks/Topic(orders)/0.lock").write_text("{}")
    (store_root / BUCKET / "backup/orders/0/empty_0_0.text").write_bytes(b"")
    kcql = (f"INSERT INTO {target} SELECT * FROM {BUCKET}:backup STOREAS `TEXT` "
            "PROPERTIES('post.process.action'='Delete')")
    restore(load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}")), spark, once=True)
    messages = read_topic(kafka.bootstrap_servers, target, expected=40)
    for partition in (0, 1):
        values = [m[2] for m in messages if m[0] == partition]
        expected = [f"orders:{partition}:{o}".encode() for f in (0, 5, 10, 100) for o in range(f, f + 5)]
        assert values == expected
    remaining = [p.name for p in (store_root / BUCKET / "backup/orders").rglob("*.text")]
    assert remaining == ["empty_0_0.text"], "restored objects are deleted; the skipped empty one stays"
    assert (store_root / BUCKET / "backup/.indexes/n/.locks/Topic(orders)/0.lock").exists()


def test_custom_layout_spread_over_directories_restores_each_partition_in_order(spark, kafka, store_root: Path) -> None:  # type: ignore[no-untyped-def]
    target = f"dst-{uuid.uuid4().hex[:8]}"
    # PARTITIONBY region: offsets of partition 2 alternate between two directories
    for index, region in enumerate(["eu", "us", "eu", "us"]):
        offsets = range(index * 3, index * 3 + 3)
        write_object(store_root, f"cust/region={region}/clicks(2_{offsets[-1]:012d}).json", Format.JSON,
                     [Record("clicks", 2, o, key=b"k", value=b'{"o":%d}' % o, timestamp=1000 + o,
                             headers=(("h", b"v"),)) for o in offsets], envelope=True)
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:cust PROPERTIES('store.envelope'=true)"
    restore(load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}")), spark, once=True)
    messages = read_topic(kafka.bootstrap_servers, target, expected=12)
    assert [(m[0], m[2], m[4]) for m in messages] == [(2, b'{"o":%d}' % o, 1000 + o) for o in range(12)]
    assert {m[1] for m in messages} == {b"k"} and {m[3] for m in messages} == {(("h", b"v"),)}


def test_too_few_target_partitions_fails_before_anything_is_sent(spark, kafka, store_root: Path) -> None:  # type: ignore[no-untyped-def]
    target = f"dst-{uuid.uuid4().hex[:8]}"
    write_object(store_root, "many/orders/6/000000000000_0_0.text", Format.TEXT, _values("orders", 6, range(1)))
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:many STOREAS `TEXT`"
    plan = load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}"))
    with pytest.raises(ConfigError, match=rf"Topic '{target}' has 4 partitions but the restore needs 7"):
        restore(plan, spark, once=True)
    remapped = load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}",
                                             **{"connect.local.source.partition.remap": "modulo"}))
    restore(remapped, spark, once=True)
    assert [m[0] for m in read_topic(kafka.bootstrap_servers, target, expected=1)] == [6 % 4]


@pytest.mark.parametrize("refusing", [False, True], ids=["moto", "refusing-checksums"])
def test_aiven_layout_on_s3_restores_with_topic_and_partition_from_the_name(spark, kafka, moto_endpoint: str, refusing: bool) -> None:  # type: ignore[no-untyped-def]
    """Also through a store refusing boto3's default checksums: the restore's read probe finds it out,
    and the executors' clients carry the decision (no request refused after the probe)."""
    proxy = ChecksumRejectingS3(moto_endpoint).start() if refusing else None
    bucket, topic = f"aiven-{uuid.uuid4().hex[:8]}", f"orders-eu-{uuid.uuid4().hex[:6]}"
    s3 = boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1",
                      aws_access_key_id="test", aws_secret_access_key="test")
    s3.create_bucket(Bucket=bucket)
    for partition in (0, 3):
        for start in (0, 2, 10):
            lines = b"".join(b'{"p":%d,"o":%d}\n' % (partition, o) for o in range(start, start + 2))
            s3.put_object(Bucket=bucket, Key=f"uploads/{topic}-{partition}-{start}", Body=lines)
    s3.put_object(Bucket=bucket, Key="uploads/README", Body=b"not a restore object")
    config = {
        "name": f"aiven-{topic}",
        "connector.class": "io.aiven.kafka.connect.s3.source.S3SourceConnector",
        "aws.access.key.id": "test", "aws.secret.access.key": "test",
        "aws.s3.bucket.name": bucket, "aws.s3.region": "us-east-1",
        "aws.s3.endpoint": proxy.url if proxy else moto_endpoint,
        "aws.s3.prefix": "uploads/",
        "file.name.template": "{{topic}}-{{partition}}-{{start_offset}}",
        "input.format": "jsonl", "tasks.max": "2", "bootstrap.servers": kafka.bootstrap_servers,
    }
    try:
        summary = restore(load_plan(config), spark, once=True)
    finally:
        if proxy:
            proxy.stop()
    assert (summary.objects, summary.records) == (6, 12)
    assert proxy is None or [r.split()[0] for r in proxy.refused] == ["GET"]
    messages = read_topic(kafka.bootstrap_servers, topic, expected=12)
    for partition in (0, 3):
        assert [m[2] for m in messages if m[0] == partition] == [
            b'{"p":%d,"o":%d}' % (partition, o) for s in (0, 2, 10) for o in range(s, s + 2)
        ]
    assert messages[0][1] == f"uploads/{topic}-0-0".encode(), "Aiven: the key is the object key"
