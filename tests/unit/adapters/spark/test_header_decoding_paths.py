"""Where the header converter runs in a sink task: only where converted headers are used.

A header the converter refuses must not make a record poison on one write path and not on the
other (the columnar paths never read headers), and the ``list`` layout keeps Kafka's bytes even
when a transform chain runs.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pyarrow as pa

from tests.support.sink_batches import (
    SELECT,
    Spy,
    assert_same_outcomes,
    both_outcomes,
    kafka_batch,
    run_batches,
    task_spec,
)

JSON_HEADERS = {"header.converter": "org.apache.kafka.connect.json.JsonConverter"}


def _with_header(batch: pa.RecordBatch, value: bytes) -> pa.RecordBatch:
    headers = pa.array([[{"key": "h", "value": value}]] * batch.num_rows, batch.schema.field("headers").type)
    return batch.set_column(batch.schema.get_field_index("headers"), "headers", headers)


def _orders(rows: int) -> list[bytes | None]:
    return [json.dumps({"id": i, "country": ("DE", "FR")[i % 2]}).encode() for i in range(rows)]


def test_a_header_the_converter_refuses_is_no_poison_where_headers_are_not_written(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    batch = _with_header(kafka_batch(_orders(40)), b"not json")  # JsonConverter refuses it
    make = lambda root: task_spec(f"{SELECT} PARTITIONBY country STOREAS PARQUET", root, **JSON_HEADERS)  # noqa: E731
    fast, slow = both_outcomes(make, [batch], tmp_path, columnar_calls)
    assert isinstance(slow, tuple)
    assert_same_outcomes(fast, slow)
    assert columnar_calls == [True]


def test_the_list_layout_keeps_the_header_bytes_under_a_transform_chain(tmp_path: Path) -> None:
    batch = _with_header(kafka_batch(_orders(3)), b"007")
    chain = {
        "transforms": "tag",
        "transforms.tag.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.tag.static.field": "source",
        "transforms.tag.static.value": "test",
    }
    kcql = f"{SELECT} STOREAS JSON PROPERTIES('store.envelope'=true, 'store.envelope.headers.layout'='list')"
    objects, _ = run_batches(task_spec(kcql, tmp_path, floor=None, **chain), [batch])
    documents = [json.loads(line) for data in objects.values() for line in data.splitlines()]
    assert [document["value"]["source"] for document in documents] == ["test"] * 3
    assert {base64.b64decode(h["value"]) for document in documents for h in document["headers"]} == {b"007"}
