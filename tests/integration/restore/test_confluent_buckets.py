"""Restoring a bucket the Confluent S3 sink wrote (made by hand on moto S3), from that sink's own config.

Each format's objects are written in Confluent's exact bytes (JSON lines ending in a newline, an
Avro container, Snappy Parquet, ByteArray records each followed by the separator) with
``.keys.avro`` and ``.headers.avro`` siblings, under a FieldPartitioner layout of two segments
(``region=…/tier=1``). Partition 0's records are spread over two encoded partitions, so its files
interleave offsets: the restore replays them file by file in start-offset order.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import boto3
import pytest

from lakesink.application.bootstrap.restore import restore
from lakesink.application.restore import load_plan
from tests.integration.restore.conftest import read_topic
from tests.support.confluent_configs import FMT, PKG
from tests.support.confluent_objects import HEADERS_SCHEMA, avro_bytes, parquet_bytes

pytestmark = pytest.mark.integration

#: Kafka partition → [(offset, region)]; partition 0's regions alternate, so its files interleave.
RECORDS = {0: [(0, "eu"), (1, "eu"), (2, "us"), (3, "eu"), (4, "us"), (5, "eu")], 3: [(0, "eu"), (1, "eu")]}
#: flush.size 3: each region's records of a partition in files of at most 3, named by their first offset.
FLUSH = 3
ORDER_SCHEMA = {
    "type": "record",
    "name": "Order",
    "fields": [{"name": "id", "type": "int"}, {"name": "region", "type": "string"}],
}


def _row(partition: int, offset: int, region: str) -> dict[str, Any]:
    return {"id": partition * 100 + offset, "region": region}


def _json(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(b'{"id":%d,"region":"%s"}\n' % (row["id"], row["region"].encode()) for row in rows)


def _raw(row: dict[str, Any]) -> bytes:
    return b"raw\x00%d" % row["id"]


#: format → (format.class, extension, value file bytes of rows, the value bytes Kafka gets back for a row)
FORMATS: dict[
    str, tuple[str, str, Callable[[list[dict[str, Any]]], bytes], Callable[[dict[str, Any]], bytes]]
] = {
    "json": ("json.JsonFormat", ".json", _json, lambda row: _json([row])[:-1]),
    "avro": (
        "avro.AvroFormat",
        ".avro",
        lambda rows: avro_bytes(ORDER_SCHEMA, rows),
        lambda row: _json([row])[:-1],
    ),
    "parquet": ("parquet.ParquetFormat", ".snappy.parquet", parquet_bytes, lambda row: _json([row])[:-1]),
    "bytearray": (
        "bytearray.ByteArrayFormat",
        ".bin",
        lambda rows: b"".join(_raw(r) + b"\n" for r in rows),
        _raw,
    ),
}


def _write_bucket(
    s3: Any, bucket: str, topic: str, fmt: str
) -> list[tuple[int, bytes, bytes, tuple[tuple[str, bytes], ...]]]:
    """The Confluent objects of ``topic``; returns the (partition, key, value, headers) Kafka must get, in replay order."""
    _, extension, encode, expected_value = FORMATS[fmt]
    files: list[tuple[int, int, str, list[tuple[int, str]]]] = []
    for partition, records in RECORDS.items():
        for region in ("eu", "us"):
            mine = [record for record in records if record[1] == region]
            for chunk in (mine[i : i + FLUSH] for i in range(0, len(mine), FLUSH)):
                files.append((partition, chunk[0][0], region, chunk))
    expected = []
    for partition, start, region, chunk in sorted(files):
        base = f"topics/{topic}/region={region}/tier=1/{topic}+{partition}+{start:010d}"
        rows = [_row(partition, offset, region) for offset, _ in chunk]
        keys = [f"k-{partition}-{offset}" for offset, _ in chunk]
        headers = [
            [{"key": "trace", "value": f"t-{offset}"}, {"key": "region", "value": region}]
            for offset, _ in chunk
        ]
        s3.put_object(Bucket=bucket, Key=base + extension, Body=encode(rows))
        s3.put_object(Bucket=bucket, Key=base + ".keys.avro", Body=avro_bytes("string", keys))
        s3.put_object(Bucket=bucket, Key=base + ".headers.avro", Body=avro_bytes(HEADERS_SCHEMA, headers))
        for row, key, header in zip(rows, keys, headers, strict=True):
            pairs = tuple((h["key"], h["value"].encode()) for h in header)
            expected.append((partition, key.encode(), expected_value(row), pairs))
    # not restored: another topic's folder, a file off the layout
    s3.put_object(
        Bucket=bucket,
        Key=f"topics/other-{topic}/partition=0/other-{topic}+0+0000000000{extension}",
        Body=encode([_row(0, 0, "eu")]),
    )
    s3.put_object(Bucket=bucket, Key=f"topics/{topic}/README", Body=b"notes")
    return expected


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_confluent_bucket_is_restored_with_keys_headers_and_partitions(
    spark, kafka, moto_endpoint: str, fmt: str
) -> None:  # type: ignore[no-untyped-def]
    bucket, topic = f"confluent-{uuid.uuid4().hex[:8]}", f"orders-{fmt}-{uuid.uuid4().hex[:6]}"
    s3 = boto3.client(
        "s3",
        endpoint_url=moto_endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    s3.create_bucket(Bucket=bucket)
    expected = _write_bucket(s3, bucket, topic, fmt)
    config = {
        "name": f"confluent-{topic}",
        "connector.class": "io.confluent.connect.s3.S3SinkConnector",
        "storage.class": "io.confluent.connect.s3.storage.S3Storage",
        "topics": topic,
        "s3.bucket.name": bucket,
        "s3.region": "us-east-1",
        "store.url": moto_endpoint,
        "aws.access.key.id": "test",
        "aws.secret.access.key": "test",
        "format.class": FMT + FORMATS[fmt][0],
        "flush.size": str(FLUSH),
        "partitioner.class": f"{PKG}FieldPartitioner",
        "partition.field.name": "region,tier",
        "store.kafka.keys": "true",
        "store.kafka.headers": "true",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "bootstrap.servers": kafka.bootstrap_servers,
    }
    summary = restore(load_plan(config), spark, once=True)
    assert (summary.objects, summary.records) == (4, 8)
    messages = read_topic(kafka.bootstrap_servers, topic, expected=8)
    assert [(m[0], m[1], m[2], m[3]) for m in messages] == sorted(expected, key=lambda e: e[0])
    assert all(m[4] > 0 for m in messages), "no stored timestamp: the producer's time"
    if fmt == "json":  # a second run finds every object complete in its progress
        assert restore(load_plan(config), spark, once=True).records == 0
