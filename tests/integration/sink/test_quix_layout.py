"""``store.layout=quix`` end to end: ``lakesink sink --once`` on local Spark, the embedded broker
and moto S3, objects read back with gzip, json and pyarrow as a Quix Streams user would."""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path
from typing import Any

import boto3
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.storage import open_store
from lakesink.domain.config.connector import ConnectorSettings
from tests.conftest import unique_name
from tests.integration.sink.conftest import (
    PARTITIONS,
    MotoS3,
    assert_exactly_once,
    data_keys,
    produce_ids,
    run_sink,
    s3_props,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]

RECORDS = range(24)
TS0 = 1_700_000_000_000


def _rows(extension: str, data: bytes) -> list[dict[str, Any]]:
    if extension == "parquet":
        return pq.read_table(io.BytesIO(data)).to_pylist()
    lines = gzip.decompress(data).splitlines(keepends=True)
    assert all(line.endswith(b"}\n") and b'":' in line and b", " not in line for line in lines), (
        "compact lines"
    )
    return [{"_timestamp": d["_timestamp"], "_key": d["_key"], **d["_value"]} for d in map(json.loads, lines)]


@pytest.mark.parametrize(
    ("fmt", "codec", "extension"), [("JSON", "GZIP", "jsonl.gz"), ("PARQUET", "SNAPPY", "parquet")]
)
def test_a_quix_statement_writes_quix_keys_and_rows_exactly_once(
    spark: SparkSession,
    kafka: EmbeddedKafka,
    topic: str,
    tmp_path: Path,
    moto_s3: MotoS3,
    fmt: str,
    codec: str,
    extension: str,
) -> None:
    bucket = unique_name("quix")
    boto3.client(
        "s3",
        endpoint_url=moto_s3.url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    ).create_bucket(Bucket=bucket)
    produce_ids(kafka, topic, RECORDS, ts0=TS0)
    kcql = (
        f"INSERT INTO {bucket}:data SELECT * FROM {topic} STOREAS `{fmt}` "
        "PROPERTIES('store.layout'='quix', 'flush.count'=4)"
    )
    props = s3_props(moto_s3, kcql, topic, kafka, **{"connect.s3.compression.codec": codec})

    run_sink(spark, props, tmp_path / "ck")

    settings = ConnectorSettings.from_properties(props)
    store = open_store(settings.backend, settings.storage)
    keys = data_keys(store, bucket)
    # The topic's '-' is not in Quix's [a-zA-Z0-9 ._/]: it becomes '_'.
    pattern = re.compile(
        rf"data/{topic.replace('-', '_')}/([0-{PARTITIONS - 1}])/([0-9]{{19}})\.{re.escape(extension)}"
    )
    ids: list[int] = []
    for key in keys:
        match = pattern.fullmatch(key)
        assert match is not None, key
        rows = _rows(extension, store.get(bucket, key).data)
        assert list(rows[0])[:2] == ["_timestamp", "_key"]
        for row in rows:
            assert int(match[1]) == row["id"] % PARTITIONS
            assert (row["_timestamp"], row["_key"]) == (TS0 + row["id"] * 1000, f"k{row['id'] % 3}")
        offsets = [
            row["id"] // PARTITIONS for row in rows
        ]  # produce_ids sends id i to partition i % 4, in order
        assert int(match[2]) == offsets[0] == min(offsets), "Quix names a file by its first offset"
        assert len(rows) <= 4, "flush.count"
        ids += [row["id"] for row in rows]
    assert_exactly_once(ids, RECORDS)
    assert len(keys) == PARTITIONS * 2  # 6 records per partition, flush.count 4
