"""Every STOREAS format and every PARTITIONBY form, read back with independent readers."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import fastavro
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.storage import open_store
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore
from tests.integration.sink.conftest import (
    MotoS3,
    assert_exactly_once,
    data_keys,
    local_props,
    produce_ids,
    run_sink,
    s3_props,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]

RECORDS = range(24)


def _store(props: dict[str, str]) -> ObjectStore:
    settings = ConnectorSettings.from_properties(props)
    return open_store(settings.backend, settings.storage)


def _ids(fmt: str, data: bytes) -> list[int]:
    if fmt == "JSON":
        return [json.loads(line)["id"] for line in data.splitlines()]
    if fmt in ("TEXT", "BYTES"):
        return [json.loads(line)["id"] for line in data.splitlines()]
    if fmt == "AVRO":
        return [row["id"] for row in fastavro.reader(io.BytesIO(data))]
    if fmt == "PARQUET":
        return pq.read_table(io.BytesIO(data)).column("id").to_pylist()
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    return [int(row["id"]) for row in rows]


@pytest.mark.parametrize("fmt", ["JSON", "AVRO", "PARQUET", "CSV_WITHHEADERS", "TEXT", "BYTES"])
def test_every_format_is_read_back_with_each_offset_exactly_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, fmt: str
) -> None:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    produce_ids(kafka, topic, RECORDS)
    flush = f" PROPERTIES('flush.count'={1 if fmt == 'BYTES' else 5})"
    kcql = f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `{fmt}`{flush}"
    extra = {"value.converter": "org.apache.kafka.connect.storage.StringConverter"} if fmt == "TEXT" else {}
    if fmt == "BYTES":
        extra = {"value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter"}
    props = local_props(tmp_path / "store", kcql, topic, kafka, **extra)

    run_sink(spark, props, tmp_path / "ck")

    store = _store(props)
    keys = data_keys(store, "bkt")
    ids = [i for key in keys for i in _ids(fmt.split("_")[0], store.get("bkt", key).data)]
    assert_exactly_once(ids, RECORDS)
    extension = {"CSV_WITHHEADERS": "csv"}.get(fmt, fmt.lower())
    assert all(key.endswith("." + extension) for key in keys)
    expected_files = len(RECORDS) if fmt == "BYTES" else 4 * 2  # 6 records per partition, flush.count 5
    assert len(keys) == expected_files


def test_parquet_to_s3_is_readable_by_duckdb(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, moto_s3: MotoS3
) -> None:
    produce_ids(kafka, topic, RECORDS)
    props = s3_props(moto_s3, f"INSERT INTO s3bkt:lake SELECT * FROM {topic} STOREAS `PARQUET`", topic, kafka)
    store = _store(props)
    import boto3

    boto3.client(
        "s3", endpoint_url=moto_s3.url, aws_access_key_id="testing", aws_secret_access_key="testing",
        region_name="us-east-1",
    ).create_bucket(Bucket="s3bkt")

    run_sink(spark, props, tmp_path / "ck")

    import duckdb

    ids: list[int] = []
    for key in data_keys(store, "s3bkt", "lake/"):
        local = tmp_path / key.replace("/", "_")
        local.write_bytes(store.get("s3bkt", key).data)
        ids += [row[0] for row in duckdb.sql(f"SELECT id FROM read_parquet('{local}')").fetchall()]
    assert_exactly_once(ids, RECORDS)


LAYOUTS = [
    # (PARTITIONBY clause, expected key of the file holding id 0 — offset 0 of partition 0)
    ("", "out/{t}/0/000000000005_1700000000000_1700000020000.json"),
    ("PARTITIONBY _key", "out/key=k0/{t}(0_000000000003).json"),
    ("PARTITIONBY region", "out/region=r0/{t}(0_000000000005).json"),
    ("PARTITIONBY _value.region", "out/region=r0/{t}(0_000000000005).json"),
    ("PARTITIONBY _header.h", "out/h=v0/{t}(0_000000000005).json"),
    ("PARTITIONBY _topic, _partition", "out/topic={t}/partition=0/{t}(0_000000000005).json"),
    ("PARTITIONBY _date.uuuu", "out/date=2023/{t}(0_000000000005).json"),
    ("NOPARTITION", "out/{t}(0_000000000005).json"),
]


@pytest.mark.parametrize(("clause", "expected"), LAYOUTS, ids=[c or "default" for c, _ in LAYOUTS])
def test_every_partitionby_form_gives_the_lenses_layout(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, clause: str, expected: str
) -> None:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    produce_ids(kafka, topic, RECORDS)
    kcql = f"INSERT INTO bkt:out SELECT * FROM {topic} {clause} STOREAS `JSON`"
    props = local_props(tmp_path / "store", kcql, topic, kafka)

    run_sink(spark, props, tmp_path / "ck")

    store = _store(props)
    keys = data_keys(store, "bkt")
    assert expected.format(t=topic) in keys
    ids = [json.loads(line)["id"] for key in keys for line in store.get("bkt", key).data.splitlines()]
    assert_exactly_once(ids, RECORDS)


def test_envelope_stores_key_value_headers_and_metadata(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    produce_ids(kafka, topic, RECORDS)
    kcql = f"INSERT INTO bkt:env SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('store.envelope'=true)"
    props = local_props(tmp_path / "store", kcql, topic, kafka)

    run_sink(spark, props, tmp_path / "ck")

    store = _store(props)
    docs = [json.loads(line) for key in data_keys(store, "bkt") for line in store.get("bkt", key).data.splitlines()]
    assert_exactly_once([doc["value"]["id"] for doc in docs], RECORDS)
    first = next(doc for doc in docs if doc["value"]["id"] == 5)
    assert first["key"] == "k2"
    assert first["headers"]["h"] == "v1"  # SimpleHeaderConverter by default, as Kafka Connect
    assert "headersIsArray" not in first
    assert first["metadata"]["partition"] == 1 and first["metadata"]["offset"] == 1
