"""Aiven S3 sink → restore with the same config: the records come back to their topics and partitions.

The sink writes to moto's S3 (``lakesink sink --once`` of an Aiven config), then ``lakesink
restore`` of that same config (nothing added: it already names the brokers) produces what it
reads back into the topic the records came from. So each partition then holds its original
records followed by the restored copies, which must be equal in order: the second half of every
partition equals the first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
import pytest

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.application.bootstrap.restore import restore
from lakesink.application.restore import load_plan
from tests.conftest import unique_name
from tests.integration.restore.conftest import Message, read_topic
from tests.support.aiven_configs import CONSOLE_WITH_AWS, run_sink_once, s3_sink_config

pytestmark = [pytest.mark.integration, pytest.mark.s3]

PARTITIONS = 4
T0 = 1_700_000_000_000


def _bucket(endpoint: str) -> str:
    name = unique_name("aiven-restore")
    boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    ).create_bucket(Bucket=name)
    return name


def _sink_then_restore(
    spark: Any,
    kafka: EmbeddedKafka,
    endpoint: str,
    tmp_path: Path,
    records: list[ProducedRecord],
    **extra: str,
) -> dict[int, list[Message]]:
    """Produce, sink once, restore once; every partition's messages (originals, then restored copies)."""
    topic = unique_name("aiven-topic")
    kafka.produce(topic, records)
    config = s3_sink_config(
        CONSOLE_WITH_AWS,
        bootstrap=kafka.bootstrap_servers,
        endpoint=endpoint,
        bucket=_bucket(endpoint),
        topics=[topic],
        **extra,
    )
    run_sink_once(spark, tmp_path, config)
    summary = restore(load_plan(config), spark, once=True)
    assert summary.records == len(records)
    found: dict[int, list[Message]] = {}
    for message in read_topic(kafka.bootstrap_servers, topic, expected=2 * len(records)):
        found.setdefault(message[0], []).append(message)
    return found


def _halves(messages: list[Message]) -> tuple[list[Message], list[Message]]:
    middle = len(messages) // 2
    assert len(messages) == 2 * middle, "each record restored once"
    return messages[:middle], messages[middle:]


def test_the_seed_defaults_gzip_csv_of_base64_values_come_back_per_partition_in_order(
    spark: Any, kafka: EmbeddedKafka, moto_endpoint: str, tmp_path: Path
) -> None:
    """csv of the value alone: keys, headers and timestamps are not written, so they do not come back."""
    records = [
        ProducedRecord(
            b"value,%d\n\x00\xff" % i, key=b"k%d" % i, timestamp_ms=T0 + i, partition=i % PARTITIONS
        )
        for i in range(22)
    ]
    restored = _sink_then_restore(spark, kafka, moto_endpoint, tmp_path, records)
    assert sorted(restored) == list(range(PARTITIONS))
    for partition, messages in restored.items():
        original, copies = _halves(messages)
        assert [m[2] for m in copies] == [m[2] for m in original]
        assert [m[2] for m in original] == [r.value for r in records if r.partition == partition]
        assert all(key is None and headers == () for _, key, _, headers, _ in copies)


def test_jsonl_with_every_field_and_a_padded_template_restores_keys_values_timestamps_and_headers(
    spark: Any, kafka: EmbeddedKafka, moto_endpoint: str, tmp_path: Path
) -> None:
    records = [
        ProducedRecord(
            b'{"id":%d}' % i,
            key=None if i == 5 else b"key-%d" % i,
            headers=(("trace", b"t%d" % i), ("source", b"seed")) if i % 2 else (),
            timestamp_ms=T0 + i * 1001,
            partition=i % PARTITIONS,
        )
        for i in range(18)
    ]
    restored = _sink_then_restore(
        spark,
        kafka,
        moto_endpoint,
        tmp_path,
        records,
        **{
            "format.output.type": "jsonl",
            "format.output.fields": "key,value,offset,timestamp,headers",
            "file.compression.type": "zstd",
            "file.max.records": "2",
            "file.name.template": "backup/{{topic}}/{{partition:padding=true}}-{{start_offset:padding=true}}.jsonl.zst",
        },
    )
    assert sorted(restored) == list(range(PARTITIONS))
    for messages in restored.values():
        original, copies = _halves(messages)
        assert [m[1:] for m in copies] == [m[1:] for m in original]
