"""The Delta adapter on S3 (moto), with real delta-rs and the storage options lakesink gives it.

delta-rs 1.6 commits to S3 with a create-only PUT (``If-None-Match: *``), which moto honours: no
locking provider and no ``AWS_S3_ALLOW_UNSAFE_RENAME`` are needed. The races are made real by a
rival commit slipped into moto just before the adapter's PUT of the same log version, after
delta-rs checked that no newer version exists.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from moto.s3.responses import S3Response

from lakesink.adapters.demo.s3 import MotoS3
from lakesink.adapters.tables.delta_table import DeltaLakeTable
from lakesink.adapters.tables.locations import TableLocation, table_location
from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import TableMovedError
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.marks import TableMark, first_mark
from lakesink.domain.tables.table_port import DataFile, TableHead
from lakesink.domain.tables.target import TableFormat, TableTarget
from tests.conftest import unique_name

pytestmark = [pytest.mark.integration, pytest.mark.s3]

PREFIX = "shop/orders"
P0: TopicPartition = ("orders", 0)
RIVAL_CREATE = [
    {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
    {
        "metaData": {
            "id": "rival",
            "format": {"provider": "parquet", "options": {}},
            "schemaString": json.dumps(
                {
                    "type": "struct",
                    "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}}],
                }
            ),
            "partitionColumns": [],
            "configuration": {},
            "createdTime": 0,
        }
    },
    {"commitInfo": {"timestamp": 0, "operation": "CREATE TABLE"}},
]
RIVAL_CLAIM = [
    {"txn": {"appId": "lakesink/sink", "version": 2}},
    {
        "commitInfo": {
            "timestamp": 0,
            "operation": "WRITE",
            "lakesink.connector": "sink",
            "lakesink.owner": "run-2",
            "lakesink.epoch": "2",
        }
    },
]


@pytest.fixture(scope="module")
def moto() -> Iterator[MotoS3]:
    server = MotoS3()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def bucket(moto: MotoS3) -> str:
    name = unique_name("delta")
    moto.create_bucket(name)
    return name


@pytest.fixture
def location(moto: MotoS3, bucket: str) -> TableLocation:
    settings = S3Settings(
        region="us-east-1",
        custom_endpoint=moto.url,
        path_style_access=True,
        auth_mode="Credentials",
        access_key=Secret("testing"),
        secret_key=Secret("testing"),
    )
    return table_location("s3", settings, bucket, PREFIX)


@pytest.fixture
def table(location: TableLocation, bucket: str) -> DeltaLakeTable:
    return DeltaLakeTable(TableTarget(TableFormat.DELTA, "shop.orders", bucket, PREFIX), location)


def written(moto: MotoS3, bucket: str, name: str, **columns: list[object]) -> DataFile:
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    key = f"{PREFIX}/data/{name}.parquet"
    moto.endpoint.client().put_object(Bucket=bucket, Key=key, Body=sink.getvalue())
    return DataFile(bucket, key)


def rows(location: TableLocation) -> list[dict[str, object]]:
    return pl.read_delta(location.uri, storage_options=location.delta_storage).sort("id").to_dicts()


@pytest.fixture
def rival_before_put(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[dict[str, Any]]]]:
    """Log versions (key suffix → actions) a rival writes into moto just before the first PUT of that key."""
    rivals: dict[str, list[dict[str, Any]]] = {}
    put_object = S3Response.put_object

    def racing(response: S3Response) -> Any:
        key = response.parse_key_name()
        for suffix in [suffix for suffix in rivals if key.endswith(suffix)]:
            body = "\n".join(json.dumps(action) for action in rivals.pop(suffix)).encode()
            response.backend.put_object(response.bucket_name, key, body)
        return put_object(response)

    monkeypatch.setattr(S3Response, "put_object", racing)
    yield rivals


def test_commits_marks_and_new_columns_on_s3(
    table: DeltaLakeTable, moto: MotoS3, bucket: str, location: TableLocation
) -> None:
    assert table.head("sink", [P0]) == TableHead(None, None)
    assert table.commit(table.head("sink", [P0]), (), first_mark("sink", "run-1")) is False

    first = TableMark("sink", "run-1", 1, {P0: 0})
    assert table.commit(table.head("sink", [P0]), [written(moto, bucket, "a", id=[1])], first)
    second = first.advanced({P0: 1})
    assert table.commit(table.head("sink", [P0]), [written(moto, bucket, "b", id=[2], item=["ink"])], second)

    assert table.head("sink", [P0]) == TableHead(2, second)
    assert rows(location) == [{"id": 1, "item": None}, {"id": 2, "item": "ink"}]
    assert table.name == f"s3://{bucket}/{PREFIX}"


def test_a_commit_that_loses_the_put_of_its_log_version_to_a_claim_adds_nothing(
    table: DeltaLakeTable,
    moto: MotoS3,
    bucket: str,
    location: TableLocation,
    rival_before_put: dict[str, list[dict[str, Any]]],
) -> None:
    table.commit(
        table.head("sink", [P0]), [written(moto, bucket, "a", id=[1])], TableMark("sink", "run-1", 1, {P0: 0})
    )
    head = table.head("sink", [P0])
    rival_before_put["_delta_log/00000000000000000001.json"] = RIVAL_CLAIM

    with pytest.raises(TableMovedError, match="moved since it was read"):
        table.commit(head, [written(moto, bucket, "b", id=[2])], TableMark("sink", "run-1", 1, {P0: 1}))

    assert rows(location) == [{"id": 1}]
    assert table.head("sink", [P0]) == TableHead(1, TableMark("sink", "run-2", 2, {P0: 0}))


def test_a_create_that_loses_the_put_of_version_0_adds_nothing(
    table: DeltaLakeTable,
    moto: MotoS3,
    bucket: str,
    location: TableLocation,
    rival_before_put: dict[str, list[dict[str, Any]]],
) -> None:
    rival_before_put["_delta_log/00000000000000000000.json"] = RIVAL_CREATE

    with pytest.raises(
        TableMovedError, match="since it was read"
    ):  # delta-rs: "Failed to commit transaction: 0"
        table.commit(
            table.head("sink", [P0]), [written(moto, bucket, "a", id=[1])], first_mark("sink", "run-1")
        )

    assert table.head("sink", [P0]) == TableHead(0, None)
    assert rows(location) == []
