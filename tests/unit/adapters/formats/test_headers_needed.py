"""The sink reads Kafka headers only when some statement stores or partitions by them."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakesink.adapters.formats.record_decoding import headers_needed
from tests.support.sink_batches import task_spec


@pytest.mark.parametrize(
    ("kcql", "needed"),
    [
        ("INSERT INTO b:p SELECT * FROM orders STOREAS `JSON`", False),
        ("INSERT INTO b:p SELECT * FROM orders PARTITIONBY _value.country STOREAS `PARQUET`", False),
        ("INSERT INTO b:p SELECT * FROM orders PARTITIONBY _key STOREAS `JSON`", False),
        ("INSERT INTO b:p SELECT * FROM orders PARTITIONBY _header.region STOREAS `JSON`", True),
        ("INSERT INTO b:p SELECT * FROM orders STOREAS `AVRO` PROPERTIES('store.envelope'=true)", True),
    ],
)
def test_headers_are_needed_only_by_an_envelope_or_a_header_partition(
    tmp_path: Path, kcql: str, needed: bool
) -> None:
    plan = task_spec(kcql, tmp_path).plan.statements[0]

    assert headers_needed(plan) is needed
