"""Confluent S3 sink configs end to end: ``lakesink sink --once`` on local Spark, the embedded
broker and moto's S3 server, checked against an independent model of Confluent's rules.

Each test takes one of the seed's examples (Default, Field and TimeBased partitioning, and the
Complete Example; Avro converters replaced by JSON ones, bucket, endpoint and brokers pointed at
the test services), produces records whose value carries its own partition and offset, runs the
sink, and checks:

* the object keys equal the golden list of :func:`tests.support.confluent_golden.golden`, a
  re-derivation of Confluent's key layout and rotation that shares no code with lakesink;
* every value file, read back with an independent reader (gzip + json, fastavro, pyarrow, a raw
  split), holds exactly the golden file's records in offset order, so every offset is stored
  once; the records of a cycle left open are not written until a later run completes it;
* with ``store.kafka.keys`` / ``store.kafka.headers``, a ``.keys`` and a ``.headers`` file next to
  every value file, with the same records' keys and ``{key, value}`` headers.

Where Confluent rotates on the wall clock (``rotate.schedule.interval.ms``, or the Complete
Example's Wallclock extractor with ``rotate.interval.ms``) its files are not a function of the
records; lakesink seals the open cycle at the end of each micro-batch instead (the documented
``CycleEnd.SEAL``), and those tests expect that.

Credentials: the seed's configs use the default AWS chain, which the Spark workers of the
session cannot be given afterwards; the configs name moto's (any) static keys instead.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import fastavro
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.application.bootstrap.config_file import load_settings
from lakesink.application.bootstrap.sink import sink_run
from tests.conftest import unique_name
from tests.integration.sink.conftest import MotoS3
from tests.support.boto_bucket import BotoBucket
from tests.support.confluent_configs import COMPLETE, FMT, PKG
from tests.support.confluent_golden import Golden, Producer, Sent, golden, local_bucket, utc_ms

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3]

#: The seed's "Basic Configuration" (the Default, Field and TimeBased examples are set over it).
BASIC = {
    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
    "tasks.max": "3",
    "s3.region": "us-east-1",
    "format.class": f"{FMT}parquet.ParquetFormat",
    "flush.size": "10000",
    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
    "partitioner.class": f"{PKG}TimeBasedPartitioner",
}
#: The seed's "Without Schema" converters; the Field example needs Structs, so schemas there.
SCHEMALESS = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
}
WITH_SCHEMAS = {**SCHEMALESS, "value.converter.schemas.enable": "true"}
PARTITIONS = 4


@pytest.fixture
def bucket(moto_s3: MotoS3) -> BotoBucket:
    return BotoBucket(moto_s3.url, unique_name("confluent"))


def _config(
    base: dict[str, str], kafka: EmbeddedKafka, moto: MotoS3, bucket: BotoBucket, topics: list[str], **extra: str
) -> dict[str, str]:
    """``base`` pointed at the test services (bucket, endpoint, brokers, moto's keys), then ``extra``."""
    return {
        **base,
        "name": unique_name("confluent-sink"),
        "topics": ",".join(topics),
        "s3.bucket.name": bucket.name,
        "store.url": moto.url,
        "aws.access.key.id": "testing",
        "aws.secret.access.key": "testing",
        "bootstrap.servers": kafka.bootstrap_servers,
        **extra,
    }


def _run_once(spark: SparkSession, tmp_path: Path, config: dict[str, str]) -> float:
    """``lakesink sink --once`` of ``config`` written as a Kafka Connect JSON file; returns seconds."""
    path = tmp_path / "connector.json"
    path.write_text(json.dumps({"name": config["name"], "config": config}, indent=2))
    started = time.monotonic()
    job = sink_run(load_settings(path), spark, checkpoint_dir=str(tmp_path / "checkpoint"), once=True)
    job.run(timeout_s=120)
    return time.monotonic() - started


# --- reading files back -------------------------------------------------------------------------


def _json_lines(data: bytes) -> list[Any]:
    return [json.loads(line) for line in gzip.decompress(data).decode().splitlines()]


def _avro(data: bytes) -> list[Any]:
    return list(fastavro.reader(io.BytesIO(data)))


def _parquet(data: bytes) -> list[Any]:
    return pq.read_table(io.BytesIO(data)).to_pylist()


def _separated(data: bytes) -> list[bytes]:
    """ByteArrayFormat with separator ``|``: each record's bytes followed by the separator."""
    assert data.endswith(b"|"), data
    return data[:-1].split(b"|")


def _check_files(
    bucket: BotoBucket,
    expected: Golden,
    extension: str,
    read: Callable[[bytes], list[Any]],
    as_stored: Callable[[Sent], Any],
    views: dict[str, tuple[str, Callable[[bytes], list[Any]]]] | None = None,
) -> None:
    """The bucket holds exactly the golden files (value files and their views), each with its records.

    ``views`` maps ``.keys`` / ``.headers`` to (the view's extension, its reader).
    """
    views = views or {}
    sibling = {
        marker: [f.key(extension)[: -len(extension)] + marker + ext for f in expected.files]
        for marker, (ext, _read) in views.items()
    }
    assert bucket.keys() == sorted(expected.keys(extension) + [k for keys in sibling.values() for k in keys])
    for file in expected.files:
        key = file.key(extension)
        assert read(bucket.read(key)) == [as_stored(r) for r in file.records], key
        for marker, (ext, view_read) in views.items():
            view_key = key[: -len(extension)] + marker + ext
            stored = view_read(bucket.read(view_key))
            assert stored == [_view(marker, r, ext) for r in file.records], view_key


def _view(marker: str, record: Sent, extension: str) -> Any:
    """What Confluent stores for ``record`` in a keys or headers file of ``extension``."""
    if marker == ".keys":
        return record.key
    headers = [{"key": name, "value": value} for name, value in record.headers]
    return headers if extension == ".avro" else {"headers": headers}


def _stored_offsets(
    bucket: BotoBucket, extension: str, read: Callable[[bytes], list[Any]]
) -> list[tuple[str, int, int]]:
    """(topic, partition, offset) of every record in the bucket's value files, as the values say."""
    stored = []
    for key in bucket.keys():
        if key.endswith(extension) and not key.endswith((".keys" + extension, ".headers" + extension)):
            topic = key.split("/")[1]
            for value in read(bucket.read(key)):
                if isinstance(value, bytes):
                    _rec, partition, offset, _id = value.decode().split("-")
                    stored.append((topic, int(partition), int(offset)))
                else:
                    stored.append((topic, value["partition"], value["offset"]))
    return stored


def _assert_every_offset_once(
    bucket: BotoBucket, extension: str, read: Callable[[bytes], list[Any]], expected: Golden, sent: list[Sent]
) -> None:
    """Every produced offset is in the value files once, except those of the cycles left open."""
    stored = _stored_offsets(bucket, extension, read)
    duplicates = sorted({where for where in stored if stored.count(where) > 1})
    assert not duplicates, f"stored more than once: {duplicates[:10]}"
    held = {(r.topic, r.partition, r.offset) for r in expected.held}
    produced = [(r.topic, r.partition, r.offset) for r in sent]
    assert sorted(stored) == sorted(where for where in produced if where not in held)
    assert held <= set(produced)


# --- the seed's Default example: DefaultPartitioner, JSON + gzip, keys and headers ---------------


def test_default_partitioner_json_gzip_holds_the_remainder_until_a_later_run_completes_its_cycle(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, topic: str, tmp_path: Path
) -> None:
    config = _config(
        {**BASIC, **SCHEMALESS, "partitioner.class": f"{PKG}DefaultPartitioner"},
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{
            "format.class": f"{FMT}json.JsonFormat",
            "s3.compression.type": "gzip",
            "flush.size": "4",
            "store.kafka.keys": "true",
            "store.kafka.headers": "true",
            "keys.format.class": f"{FMT}json.JsonFormat",
            "headers.format.class": f"{FMT}json.JsonFormat",
        },
    )
    producer = Producer(kafka)
    ts0 = utc_ms("2024-03-05T10:00:00")
    rows = [(i % 3 if i < 30 else 3, ts0 + i * 1000, {"id": i, "region": f"r{i % 2}"}) for i in range(32)]
    producer.send(topic, rows)  # 10, 10, 10 and 2 records: 2 left in partitions 0-2, partition 3 all held
    views = {".keys": (".json.gz", _json_lines), ".headers": (".json.gz", _json_lines)}

    def partition_of(record: Sent) -> str:
        return f"partition={record.partition}"

    first_s = _run_once(spark, tmp_path, config)

    first = golden(producer.sent, partition_of, 4)
    assert [(r.partition, r.offset) for r in first.held] == [
        (0, 8),
        (0, 9),
        (1, 8),
        (1, 9),
        (2, 8),
        (2, 9),
        (3, 0),
        (3, 1),
    ]
    assert first.keys(".json.gz") == sorted(
        f"topics/{topic}/partition={p}/{topic}+{p}+{start:010d}.json.gz"
        for p in (0, 1, 2)
        for start in (0, 4)
    )
    _check_files(bucket, first, ".json.gz", _json_lines, lambda r: r.value, views)
    _assert_every_offset_once(bucket, ".json.gz", _json_lines, first, producer.sent)

    rows = [(i % PARTITIONS, ts0 + i * 1000, {"id": i, "region": f"r{i % 2}"}) for i in range(32, 46)]
    producer.send(
        topic, rows
    )  # 4, 4, 3, 3 more: each held cycle completes (from offset 8, or 0 in partition 3)
    second_s = _run_once(spark, tmp_path, config)

    final = golden(producer.sent, partition_of, 4)
    new_keys = sorted(set(final.keys(".json.gz")) - set(first.keys(".json.gz")))
    assert new_keys == sorted(
        f"topics/{topic}/partition={p}/{topic}+{p}+{start:010d}.json.gz"
        for p, start in ((0, 8), (1, 8), (2, 8), (3, 0))
    )
    assert [f.records for f in final.files if f.partition == 0 and f.start == 8][0] == tuple(
        r for r in producer.sent if r.partition == 0 and 8 <= r.offset <= 11
    )
    _check_files(bucket, final, ".json.gz", _json_lines, lambda r: r.value, views)
    _assert_every_offset_once(bucket, ".json.gz", _json_lines, final, producer.sent)
    print(f"default: first run {first_s:.1f} s, second {second_s:.1f} s")


def test_rotate_schedule_interval_seals_the_remainder_at_the_end_of_each_run(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, topic: str, tmp_path: Path
) -> None:
    seed_by_time = {"rotate.schedule.interval.ms": "3600000", "timezone": "UTC"}  # the seed's "By Time"
    config = _config(
        {**BASIC, **SCHEMALESS, "partitioner.class": f"{PKG}DefaultPartitioner", **seed_by_time},
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{"format.class": f"{FMT}json.JsonFormat", "s3.compression.type": "gzip", "flush.size": "4"},
    )
    producer = Producer(kafka)
    ts0 = utc_ms("2024-03-05T10:00:00")
    first_batch = producer.send(topic, [(i % PARTITIONS, ts0 + i, {"id": i}) for i in range(22)])

    def partition_of(record: Sent) -> str:
        return f"partition={record.partition}"

    _run_once(spark, tmp_path, config)

    first = golden(first_batch, partition_of, 4, seal_end=True)
    assert not first.held and first.reasons == {"flush.size", "batch end"}
    _check_files(bucket, first, ".json.gz", _json_lines, lambda r: r.value)

    second_batch = producer.send(topic, [(i % PARTITIONS, ts0 + i, {"id": i}) for i in range(22, 31)])
    _run_once(spark, tmp_path, config)

    second = golden(
        second_batch, partition_of, 4, seal_end=True
    )  # each run's files start where the last ended
    assert f"topics/{topic}/partition=0/{topic}+0+0000000006.json.gz" in second.keys(".json.gz")
    both = Golden(files=first.files + second.files)
    _check_files(bucket, both, ".json.gz", _json_lines, lambda r: r.value)
    _assert_every_offset_once(bucket, ".json.gz", _json_lines, both, producer.sent)


# --- the seed's Field example: two fields, Avro, keys and headers as Avro (the default) ----------

FIELD_SCHEMA = {
    "type": "struct",
    "name": "events.Event",
    "optional": False,
    "fields": [
        {"field": "partition", "type": "int32", "optional": False},
        {"field": "offset", "type": "int64", "optional": False},
        {"field": "id", "type": "int32", "optional": False},
        {"field": "region", "type": "string", "optional": False},
        {"field": "event_type", "type": "string", "optional": False},
    ],
}


def test_field_partitioner_on_two_fields_writes_avro_files_rotated_together_by_flush_size(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, topic: str, tmp_path: Path
) -> None:
    seed_field_example = {
        "partitioner.class": f"{PKG}FieldPartitioner",
        "partition.field.name": "region,event_type",
    }
    config = _config(
        {**BASIC, **WITH_SCHEMAS, **seed_field_example},
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{
            "format.class": f"{FMT}avro.AvroFormat",
            "avro.codec": "snappy",
            "flush.size": "5",
            "store.kafka.keys": "true",
            "store.kafka.headers": "true",
        },
    )
    producer = Producer(kafka)
    ts0 = utc_ms("2024-03-05T10:00:00")
    regions, types = ("us-east", "eu-west"), ("click", "view", "buy")
    rows = [
        (i % PARTITIONS, ts0 + i, {"id": i, "region": regions[i // 4 % 2], "event_type": types[i // 8 % 3]})
        for i in range(58)
    ]
    producer.send(topic, rows, encode=lambda v: json.dumps({"schema": FIELD_SCHEMA, "payload": v}).encode())

    elapsed = _run_once(spark, tmp_path, config)

    def fields_of(record: Sent) -> str:
        return f"region={record.value['region']}/event_type={record.value['event_type']}"

    expected = golden(producer.sent, fields_of, 5)
    # cycles of 5 records span several encoded partitions: several files rotate together
    assert any(len(f.records) < 5 for f in expected.files) and expected.held
    assert f"topics/{topic}/region=us-east/event_type=click/{topic}+0+0000000000.avro" in expected.keys(
        ".avro"
    )
    views = {".keys": (".avro", _avro), ".headers": (".avro", _avro)}
    _check_files(bucket, expected, ".avro", _avro, lambda r: r.value, views)
    _assert_every_offset_once(bucket, ".avro", _avro, expected, producer.sent)
    print(f"field: {elapsed:.1f} s")


# --- the seed's TimeBased example: Record time, Asia/Kolkata, 15-minute buckets, Parquet --------


def test_time_based_record_time_in_kolkata_rotates_on_interval_and_partition_change_into_parquet(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, topic: str, tmp_path: Path
) -> None:
    seed_time_example = {
        "partitioner.class": f"{PKG}TimeBasedPartitioner",
        "path.format": "'dt'=YYYY-MM-dd/'t'=HH-mm",
        "locale": "en-US",
        "timezone": "Asia/Kolkata",
        "partition.duration.ms": "900000",
    }
    config = _config(
        {**BASIC, **SCHEMALESS, **seed_time_example},
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{
            "timestamp.extractor": "Record",
            "rotate.interval.ms": "300000",
            "flush.size": "6",
            "parquet.codec": "snappy",
            "store.kafka.keys": "true",
            "store.kafka.headers": "true",
        },
    )
    producer = Producer(kafka)
    # per partition: bursts of 10 s steps (flush.size cuts them), then 100 s steps (the 5-minute
    # interval cuts those), crossing local quarter hours (partition changes), and one record 25
    # minutes late (a change back to an earlier quarter and forward again)
    ts0 = utc_ms("2024-03-05T09:52:00")  # 15:22 in Kolkata (UTC+05:30)
    gaps = [10_000] * 7 + [100_000] * 5

    def rows(first: int, count: int) -> list[tuple[int, int, dict[str, object]]]:
        out = []
        for p in range(PARTITIONS):
            at = ts0 + p * 30_000 + sum(gaps[j % len(gaps)] for j in range(first))
            for j in range(first, first + count):
                at += gaps[j % len(gaps)]
                out.append((p, at - 1_500_000 if j == 13 else at, {"id": p * 1000 + j, "n": j}))
        return out

    def quarter_of(record: Sent) -> str:
        start = local_bucket(record.timestamp_ms, "Asia/Kolkata", 900_000)
        return f"dt={start:%Y-%m-%d}/t={start:%H-%M}"

    producer.send(topic, rows(0, 22))
    first_s = _run_once(spark, tmp_path, config)

    first = golden(producer.sent, quarter_of, 6, rotate_interval_ms=300_000)
    assert first.reasons == {"flush.size", "time", "partition change"}, first.reasons
    assert first.held, "the last cycle of each partition stays open"
    assert f"topics/{topic}/dt=2024-03-05/t=15-15/{topic}+0+0000000000.snappy.parquet" in first.keys(
        ".snappy.parquet"
    )
    views = {".keys": (".avro", _avro), ".headers": (".avro", _avro)}
    _check_files(bucket, first, ".snappy.parquet", _parquet, lambda r: r.value, views)
    _assert_every_offset_once(bucket, ".snappy.parquet", _parquet, first, producer.sent)

    producer.send(topic, rows(22, 9))
    second_s = _run_once(spark, tmp_path, config)

    final = golden(producer.sent, quarter_of, 6, rotate_interval_ms=300_000)
    assert {(r.partition, r.offset) for r in first.held} <= {
        (r.partition, r.offset) for f in final.files for r in f.records
    }
    _check_files(bucket, final, ".snappy.parquet", _parquet, lambda r: r.value, views)
    _assert_every_offset_once(bucket, ".snappy.parquet", _parquet, final, producer.sent)
    print(f"time-based: first run {first_s:.1f} s, second {second_s:.1f} s")


# --- ByteArrayFormat with a separator, America/New_York 2-hour buckets ---------------------------


def test_bytearray_with_a_separator_in_new_york_two_hour_buckets(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, topic: str, tmp_path: Path
) -> None:
    config = _config(
        BASIC,
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
            "format.class": f"{FMT}bytearray.ByteArrayFormat",
            "format.bytearray.separator": "|",
            "path.format": "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
            "locale": "en-US",
            "timezone": "America/New_York",
            "partition.duration.ms": "7200000",
            "timestamp.extractor": "Record",
            "flush.size": "5",
        },
    )
    producer = Producer(kafka)
    ts0 = utc_ms("2024-01-15T14:30:00")  # 09:30 EST: local 2-hour buckets start at 08:00, 10:00...
    rows = [(i % PARTITIONS, ts0 + i * 240_000, {"id": i}) for i in range(47)]

    def raw(value: dict[str, object]) -> bytes:
        return f"rec-{value['partition']}-{value['offset']}-{value['id']}".encode()

    producer.send(topic, rows, encode=raw)

    elapsed = _run_once(spark, tmp_path, config)

    def two_hours_of(record: Sent) -> str:
        start = local_bucket(record.timestamp_ms, "America/New_York", 7_200_000)
        return f"year={start:%Y}/month={start:%m}/day={start:%d}/hour={start:%H}"

    expected = golden(producer.sent, two_hours_of, 5)
    hours = {f.encoded.rsplit("=", 1)[1] for f in expected.files}
    assert hours == {"08", "10", "12"}, hours  # UTC-aligned buckets would give 09, 11, 13 in EST
    _check_files(bucket, expected, ".bin", _separated, lambda r: raw(r.value))
    _assert_every_offset_once(bucket, ".bin", _separated, expected, producer.sent)
    print(f"bytearray: {elapsed:.1f} s")


# --- the seed's Complete Example: two topics, Parquet, Wallclock hours, rotate.interval.ms ------


def test_complete_example_seals_each_run_into_wallclock_hour_files_per_partition(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, tmp_path: Path
) -> None:
    topics = [unique_name("events"), unique_name("transactions")]  # the broker is shared by the session
    config = _config(COMPLETE, kafka, moto_s3, bucket, topics, name=COMPLETE["name"])
    producer = Producer(kafka)
    ts0 = utc_ms("2024-03-05T10:00:00")
    for t, name in enumerate(topics):
        producer.send(name, [(i % PARTITIONS, ts0 + i, {"id": i, "topic_no": t}) for i in range(21 + 6 * t)])

    def run() -> tuple[list[str], float]:
        before = datetime.now(UTC)
        elapsed = _run_once(spark, tmp_path, config)
        after = datetime.now(UTC)
        hours = {f"year={at:%Y}/month={at:%m}/day={at:%d}/hour={at:%H}" for at in (before, after)}
        return sorted(hours), elapsed

    def check(runs: list[tuple[list[str], list[Sent]]]) -> None:
        """Each run's records sealed at its end (Wallclock + rotate.interval.ms) in the hour of its
        clock: one file per topic-partition and run (flush.size 50000 is never reached)."""
        candidates = []
        for hours in itertools.product(*(hours for hours, _batch in runs)):  # a run may straddle an hour
            files = [
                f
                for hour, (_hours, batch) in zip(hours, runs, strict=True)
                for f in golden(batch, lambda _r, h=hour: h, 50_000, seal_end=True).files
            ]
            candidates.append(Golden(files=files))
        keys = bucket.keys()
        matching = [g for g in candidates if g.keys(".snappy.parquet") == keys]
        assert matching, f"{keys} is none of {[g.keys('.snappy.parquet') for g in candidates]}"
        _check_files(bucket, matching[0], ".snappy.parquet", _parquet, lambda r: r.value)
        sent = [r for _hours, batch in runs for r in batch]
        _assert_every_offset_once(bucket, ".snappy.parquet", _parquet, matching[0], sent)
        assert len(matching[0].files) == sum(
            len({(r.topic, r.partition) for r in batch}) for _h, batch in runs
        )

    first_hours, first_s = run()
    first_batch = list(producer.sent)
    check([(first_hours, first_batch)])
    for t, name in enumerate(topics):
        producer.send(name, [(i % PARTITIONS, ts0 + i, {"id": i, "topic_no": t}) for i in range(100, 105)])
    second_hours, second_s = run()
    check([(first_hours, first_batch), (second_hours, producer.sent[len(first_batch) :])])
    print(f"complete example: first run {first_s:.1f} s, second {second_s:.1f} s")


# --- round trip: the bucket the sink wrote, restored by the same config ------------------------


def test_a_bucket_written_from_a_confluent_config_is_restored_by_that_config_with_keys_and_headers(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, bucket: BotoBucket, topic: str, tmp_path: Path
) -> None:
    """Sink, then restore with the very same config: the topic gets every record again, value, key,
    headers and partition equal, in each partition's order (the restore appends after the originals)."""
    from lakesink.application.bootstrap.restore import restore
    from lakesink.application.restore import load_plan
    from tests.integration.restore.conftest import read_topic

    config = _config(
        {**BASIC, **SCHEMALESS, "partitioner.class": f"{PKG}DefaultPartitioner"},
        kafka,
        moto_s3,
        bucket,
        [topic],
        **{
            "format.class": f"{FMT}json.JsonFormat",
            "flush.size": "3",
            "store.kafka.keys": "true",
            "store.kafka.headers": "true",
        },
    )
    producer = Producer(kafka)
    ts0 = utc_ms("2024-03-05T10:00:00")
    producer.send(topic, [(i % 2, ts0 + i, {"id": i}) for i in range(12)])  # 6 per partition: 2 cycles each
    _run_once(spark, tmp_path, config)
    assert len(bucket.keys()) == 4 * 3  # 4 value files, each with its .keys.avro and .headers.avro

    summary = restore(load_plan(config), spark, once=True)
    assert summary.records == 12
    messages = read_topic(kafka.bootstrap_servers, topic, expected=24)
    by_partition: dict[int, list[tuple[bytes, Any, tuple[tuple[str, bytes], ...]]]] = {0: [], 1: []}
    for partition, key, value, headers, _ts in messages:
        by_partition[partition].append((key, json.loads(value), tuple(headers)))
    for records in by_partition.values():
        originals, restored = records[:6], records[6:]
        assert restored == originals
