"""Counting what landed in S3, with readers that share nothing with the writers under test.

A benchmark number is only printed after the objects hold every record: Parquet row counts
come from the footer (pyarrow), Avro records from fastavro, JSON lines from newline counts.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import fastavro
import pyarrow.parquet as pq

from lakesink.adapters.demo.s3 import S3Endpoint
from lakesink.adapters.demo.tables import DeltaReadback, IcebergReadback

INDEX_MARKER = ".indexes/"


@dataclass(frozen=True, slots=True)
class Output:
    """Data objects under a prefix and the records they hold."""

    objects: int
    records: int
    bytes: int


def _keys(client: Any, bucket: str, prefix: str) -> Iterator[tuple[str, int]]:
    paginator = client.get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=bucket, Prefix=prefix):
        for item in page.get("Contents", []):
            if INDEX_MARKER not in item["Key"]:
                yield item["Key"], item["Size"]


def count_table(table_format: str, endpoint: S3Endpoint, bucket: str, catalog_uri: str) -> Output:
    """The data objects a table's current version references (pyiceberg's or delta-rs's reading of
    its metadata, as the demo reads its tables), their records counted from their footers by pyarrow."""
    if table_format == "ICEBERG":
        keys = IcebergReadback(catalog_uri, "bench.orders", endpoint).data_keys()
    else:
        keys = DeltaReadback(f"s3://{bucket}/out", endpoint).data_keys()
    client = endpoint.client()
    records = size = 0
    for key in keys:
        body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
        records += count_records(body, key)
        size += len(body)
    return Output(len(keys), records, size)


def count_records(data: bytes, key: str) -> int:
    """Records in one object, by its extension; ValueError for a format this check does not know."""
    if key.endswith(".gz"):
        data, key = gzip.decompress(data), key[:-3]
    if key.endswith(".parquet"):
        return pq.ParquetFile(io.BytesIO(data)).metadata.num_rows
    if key.endswith(".avro"):
        return sum(1 for _ in fastavro.reader(io.BytesIO(data)))
    if key.endswith((".json", ".jsonl")):
        return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    raise ValueError(f"cannot count records in {key}: unknown extension")


def count_output(endpoint: S3Endpoint, bucket: str, prefix: str = "") -> Output:
    """Every data object under ``bucket/prefix`` (index and lock objects excluded), counted."""
    client = endpoint.client()
    objects = records = size = 0
    for key, length in _keys(client, bucket, prefix):
        body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
        records += count_records(body, key)
        objects += 1
        size += length
    return Output(objects, records, size)


@dataclass(frozen=True, slots=True)
class TableCommits:
    """What an Iceberg table's snapshots say about its sink's commits: how many, how far apart, how big,
    and what its current snapshot holds (rows and distinct ``order_id`` values, so a duplicate shows)."""

    snapshots: int
    mean_gap_s: float | None
    records_per_commit: float
    rows: int
    distinct: int
    data_files: int
    data_bytes: int

    def describe(self) -> str:
        gap = "-" if self.mean_gap_s is None else f"{self.mean_gap_s:.1f} s"
        return (f"{self.snapshots} snapshots {gap} apart, {self.records_per_commit:,.0f} records each, "
                f"{self.data_files} data files")


def table_commits(table: Any) -> TableCommits:
    """``table``'s (a pyiceberg Table) snapshots and current rows, read through its catalog by pyiceberg."""
    snapshots = sorted(table.snapshots(), key=lambda s: s.timestamp_ms)
    times = [s.timestamp_ms for s in snapshots]
    gaps = [(b - a) / 1000 for a, b in zip(times, times[1:], strict=False)]
    files = list(table.scan().plan_files())
    ids = table.scan(selected_fields=("order_id",)).to_arrow().column("order_id")
    return TableCommits(len(snapshots), sum(gaps) / len(gaps) if gaps else None,
                        len(ids) / max(1, len(snapshots)), len(ids), len(ids.unique()), len(files),
                        sum(task.file.file_size_in_bytes for task in files))
