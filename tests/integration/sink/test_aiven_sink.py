"""Aiven S3 sink configs end to end: ``lakesink sink --once`` on local Spark, the embedded broker and
moto's S3 server, the objects read back with boto3 and independent readers.

The expected keys and contents are derived here from Aiven's documented rules (reference §A),
sharing no code with lakesink: one ``--once`` run is one Aiven flush, so each topic-partition's
records form one file (cut by ``file.max.records``), named by its first offset; csv is
``b64(value),b64(key),timestamp`` per record joined by ``\\n`` with no trailing newline; jsonl is
one compact object per line in Java ``HashMap`` member order; grouped by ``{{key}}``, an object
holds its key's latest record and is overwritten by a later run.

Credentials: moto's (any) static keys, as the seed's config names static keys.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from tests.conftest import unique_name
from tests.integration.sink.conftest import MotoS3
from tests.support.aiven_configs import CONSOLE_WITH_AWS, CURL, STRINGS, s3_sink_config
from tests.support.aiven_configs import run_sink_once as _run_once
from tests.support.boto_bucket import BotoBucket

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3]

PARTITIONS = 4
T0 = 1_700_000_000_000


@pytest.fixture
def bucket(moto_s3: MotoS3) -> BotoBucket:
    return BotoBucket(moto_s3.url, unique_name("aiven"))


def _config(
    base: dict[str, str], kafka: EmbeddedKafka, moto: MotoS3, bucket: BotoBucket, topics: list[str], **extra: str
) -> dict[str, str]:
    return s3_sink_config(
        base, bootstrap=kafka.bootstrap_servers, endpoint=moto.url, bucket=bucket.name, topics=topics, **extra
    )


def _produce(
    kafka: EmbeddedKafka, topic: str, records: list[tuple[int, bytes | None, bytes | None, int]]
) -> dict[int, list[tuple[int, bytes | None, bytes | None, int]]]:
    """Produce (partition, key, value, timestamp) records; returns them by partition with their offsets."""
    before = {partition: high for partition, (_low, high) in kafka.watermarks(topic).items()}
    kafka.produce(
        topic, [ProducedRecord(value, key=key, timestamp_ms=ts, partition=p) for p, key, value, ts in records]
    )
    placed: dict[int, list[tuple[int, bytes | None, bytes | None, int]]] = defaultdict(list)
    for partition, key, value, ts in records:
        placed[partition].append((before.get(partition, 0) + len(placed[partition]), key, value, ts))
    return placed


def test_the_seeds_curl_example_writes_gzip_csv_of_value_key_and_timestamp_under_the_prefix(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, tmp_path: Path
) -> None:
    topics = [unique_name("source_topic"), unique_name("another_topic")]
    sent = {}
    for number, topic in enumerate(topics):
        records = [
            (i % PARTITIONS, f"k{i}".encode(), f"value {number}-{i}".encode(), T0 + i) for i in range(10)
        ]
        sent[topic] = _produce(kafka, topic, records)
    config = _config(CURL, kafka, moto_s3, bucket, topics)

    _run_once(spark, tmp_path, config)

    expected = {
        f"example-s3-sink/{topic}-{partition}-{rows[0][0]:020d}.gz": rows
        for topic, by_partition in sent.items()
        for partition, rows in by_partition.items()
    }
    assert bucket.keys() == sorted(expected)
    for key, rows in expected.items():
        csv = b"\n".join(
            base64.b64encode(value) + b"," + base64.b64encode(k) + b"," + str(ts).encode()
            for _offset, k, value, ts in rows
        )
        assert gzip.decompress(bucket.read(key)) == csv, key  # no trailing newline, as Aiven


def test_the_seeds_console_example_writes_gzip_base64_values_under_the_default_names(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, tmp_path: Path
) -> None:
    """Aiven's defaults: csv of the Base64 value, gzip contents (no file.compression.type is set)
    under ``<topic>-<partition>-<start offset>`` with no extension."""
    topic = unique_name("YOUR-TOPIC")
    sent = _produce(
        kafka, topic, [(i % PARTITIONS, None, bytes([i, 0, 255]) + b"\n,", T0 + i) for i in range(9)]
    )
    _run_once(spark, tmp_path, _config(CONSOLE_WITH_AWS, kafka, moto_s3, bucket, [topic]))

    expected = {f"{topic}-{partition}-{rows[0][0]}": rows for partition, rows in sent.items()}
    assert bucket.keys() == sorted(expected)
    for key, rows in expected.items():
        assert gzip.decompress(bucket.read(key)) == b"\n".join(
            base64.b64encode(v) for _o, _k, v, _t in rows
        ), key


def test_a_template_with_timestamp_units_and_padding_files_records_by_their_hour(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, tmp_path: Path
) -> None:
    """Without file.max.records a new hour keeps the file's start offset (Aiven's ``rotateKeysHourly``)."""
    topic = unique_name("clicks")
    hour = 3_600_000
    base = 1_704_103_200_000  # 2024-01-01T10:00:00Z
    times = [base, base + 60_000, base + hour, base + 2 * 60_000, base + hour + 1]
    sent = _produce(kafka, topic, [(1, b"k", b"v%d" % i, ts) for i, ts in enumerate(times)])
    config = _config(
        CURL,
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{
            "file.name.template": "{{topic}}/{{timestamp:unit=yyyy}}/{{timestamp:unit=MM}}/{{timestamp:unit=dd}}/"
            "{{timestamp:unit=HH}}/{{partition:padding=true}}-{{start_offset:padding=true}}.csv.gz",
            "file.name.timestamp.source": "event",
            "format.output.fields": "value,offset",
            "format.output.fields.value.encoding": "none",
        },
    )
    del config["aws.s3.prefix"]  # the prefix would replace the template's names (Aiven's legacy mode)
    _run_once(spark, tmp_path, config)

    rows = sent[1]
    start = f"{1:010d}-{rows[0][0]:020d}.csv.gz"
    expected = {
        f"{topic}/2024/01/01/10/{start}": [rows[0], rows[1], rows[3]],
        f"{topic}/2024/01/01/11/{start}": [rows[2], rows[4]],
    }
    assert bucket.keys() == sorted(expected)
    for key, chunk in expected.items():
        assert gzip.decompress(bucket.read(key)) == b"\n".join(v + b",%d" % o for o, _k, v, _t in chunk), key


def test_jsonl_files_are_cut_by_file_max_records_and_a_second_run_starts_new_files(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, tmp_path: Path
) -> None:
    topic = unique_name("events")
    template = "{{topic}}/{{partition:padding=true}}/{{start_offset:padding=true}}.jsonl"
    config = _config(
        STRINGS,
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{
            "connector.class": CURL["connector.class"],
            "format.output.type": "jsonl",
            "format.output.fields": "key,value,offset,timestamp",
            "file.compression.type": "none",
            "file.name.template": template,
            "file.max.records": "3",
        },
    )
    first = _produce(
        kafka, topic, [(0, f"k{i}".encode(), json.dumps({"id": i}).encode(), T0 + i) for i in range(7)]
    )
    _run_once(spark, tmp_path, config)
    second = _produce(kafka, topic, [(0, b"late", json.dumps({"id": 99}).encode(), T0 + 99)])
    _run_once(spark, tmp_path, config)

    rows = first[0] + second[0]
    files = [rows[0:3], rows[3:6], rows[6:7], rows[7:8]]  # 3 per file, the second run a new file
    expected = {f"{topic}/{0:010d}/{chunk[0][0]:020d}.jsonl": chunk for chunk in files}
    assert bucket.keys() == sorted(expected)
    for key, chunk in expected.items():
        lines = [
            f'{{"offset":{offset},"value":{_compact(value)},"key":"{k.decode()}","timestamp":"{_iso(ts)}"}}'
            for offset, k, value, ts in chunk
        ]
        assert bucket.read(key) == "\n".join(lines).encode(), key


def test_grouping_by_key_keeps_each_keys_latest_record_and_a_later_run_overwrites_it(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, tmp_path: Path
) -> None:
    topic = unique_name("profiles")
    config = _config(
        STRINGS,
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{
            "connector.class": CURL["connector.class"],
            "format.output.type": "json",
            "format.output.fields": "value",
            "format.output.fields.value.encoding": "none",
            "file.compression.type": "none",
            "file.name.template": "profiles/{{key}}.json",
        },
    )
    _produce(
        kafka,
        topic,
        [(0, b"alice", b'{"v":1}', T0), (0, b"bob", b'{"v":2}', T0), (0, b"alice", b'{"v":3}', T0)],
    )
    _run_once(spark, tmp_path, config)
    assert {key: bucket.read(key) for key in bucket.keys()} == {
        "profiles/alice.json": b'[\n{"value":{"v":3}}\n]',
        "profiles/bob.json": b'[\n{"value":{"v":2}}\n]',
    }

    _produce(kafka, topic, [(0, b"alice", b'{"v":4}', T0)])
    _run_once(spark, tmp_path, config)
    assert bucket.read("profiles/alice.json") == b'[\n{"value":{"v":4}}\n]'
    assert bucket.keys() == ["profiles/alice.json", "profiles/bob.json"]


def test_parquet_files_hold_aivens_connector_records_read_by_pyarrow(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, tmp_path: Path
) -> None:
    topic = unique_name("orders")
    config = _config(
        {**STRINGS, "value.converter.schemas.enable": "true"},
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{
            "connector.class": CURL["connector.class"],
            "format.output.type": "parquet",
            "format.output.fields": "key,value,offset,timestamp",
            "file.compression.type": "zstd",
        },
    )
    schema = {
        "type": "struct",
        "fields": [{"field": "id", "type": "int64"}, {"field": "item", "type": "string"}],
        "optional": False,
    }
    records = [
        (
            i % 2,
            f"o{i}".encode(),
            json.dumps({"schema": schema, "payload": {"id": i, "item": f"thing {i}"}}).encode(),
            T0 + i,
        )
        for i in range(6)
    ]
    sent = _produce(kafka, topic, records)
    _run_once(spark, tmp_path, config)

    # the default template, no extension for parquet, the compression's (.zst) since the key is set
    expected = {f"{topic}-{p}-{rows[0][0]}.zst": rows for p, rows in sent.items()}
    assert bucket.keys() == sorted(expected)
    for key, rows in expected.items():
        table = pq.read_table(io.BytesIO(bucket.read(key)))
        assert table.column_names == ["key", "value", "offset", "timestamp"]
        assert table.to_pylist() == [
            {"key": k.decode(), "value": json.loads(v)["payload"], "offset": offset, "timestamp": ts}
            for offset, k, v, ts in rows
        ]


def _compact(value: bytes) -> str:
    """The JSON value as Jackson writes it (no spaces)."""
    return json.dumps(json.loads(value), separators=(",", ":"))


def _iso(millis: int) -> str:
    """Java's ``Instant.toString`` of epoch millis (``.SSS`` only when not zero)."""
    moment = datetime.fromtimestamp(millis / 1000, tz=UTC)
    fraction = f".{millis % 1000:03d}" if millis % 1000 else ""
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"
