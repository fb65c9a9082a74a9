"""The exactly-once audit and the independent reader the demo and the crash tests rely on.

If these were wrong, a crash test could pass on a sink that loses or duplicates records, so
each kind of defect is planted here and must be reported.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.demo.kafka import KafkaRecord
from lakesink.adapters.demo.readback import LocalBucket, StoredRow, rows_of_object
from lakesink.application.demo.audit import audit
from lakesink.application.demo.output import is_data_key, read_rows


def _truth(count: int) -> dict[tuple[str, int, int], KafkaRecord]:
    return {("orders", 0, offset): KafkaRecord(f"k{offset}", {"n": offset}, {"region": "eu"}, 1000 + offset)
            for offset in range(count)}


def _row(offset: int, *, object_key: str = "a.json", value: object = None) -> StoredRow:
    stored_value = {"n": offset} if value is None else value
    return StoredRow(
        "orders", 0, offset, 1000 + offset, f"k{offset}", stored_value, {"region": "eu"}, object_key
    )


def test_audit_passes_when_every_record_is_stored_once_with_its_content() -> None:
    report = audit(_truth(3), [_row(0), _row(1), _row(2, object_key="b.json")])

    assert report.ok
    assert (report.expected, report.stored) == (3, 3)
    assert report.describe() == ""


def test_audit_reports_a_missing_offset() -> None:
    report = audit(_truth(3), [_row(0), _row(2)])

    assert not report.ok
    assert report.missing == [("orders", 0, 1)]
    assert "1 records missing, e.g. orders-0@1" in report.describe()


def test_audit_reports_a_record_stored_in_two_objects() -> None:
    report = audit(_truth(2), [_row(0, object_key="a.json"), _row(1), _row(0, object_key="b.json")])

    assert report.duplicated == {("orders", 0, 0): ["a.json", "b.json"]}
    assert "orders-0@0 in a.json, b.json" in report.describe()


def test_audit_reports_an_offset_kafka_never_had() -> None:
    report = audit(_truth(1), [_row(0), _row(7)])

    assert report.unexpected == [("orders", 0, 7)]


def test_audit_reports_a_value_that_differs_from_kafka() -> None:
    report = audit(_truth(1), [_row(0, value={"n": 99})])

    assert report.mismatched == [(("orders", 0, 0), "value {'n': 99} != {'n': 0}")]


def test_index_objects_and_temp_files_are_not_data() -> None:
    assert is_data_key("orders/country=FR/orders(0_000000000001).parquet")
    assert not is_data_key(".indexes/sink/.plans/Topic(orders)/0/00000000000000000000.json")
    assert not is_data_key(".indexes/sink/.locks/Topic(orders)/0.lock")
    assert not is_data_key("orders/country=FR/%tmp.1234")
    assert not is_data_key("orders/notes.txt")


def test_parquet_and_json_envelopes_read_back_to_the_same_rows() -> None:
    document = {"key": "k1", "value": {"n": 1, "tags": ["a"]}, "headers": {"region": "eu"},
                "metadata": {"timestamp": 5, "topic": "orders", "partition": 2, "offset": 9}}
    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist([document]), sink)

    from_parquet = list(rows_of_object("x.parquet", sink.getvalue().to_pybytes()))
    from_json = list(rows_of_object("x.json", (json.dumps(document) + "\n").encode()))

    expected = StoredRow("orders", 2, 9, 5, "k1", {"n": 1, "tags": ["a"]}, {"region": "eu"}, "x.parquet")
    assert from_parquet == [expected]
    assert [row.__class__(**{**_fields(row), "object_key": "x.parquet"}) for row in from_json] == [expected]


def _fields(row: StoredRow) -> dict[str, object]:
    return {name: getattr(row, name) for name in row.__slots__}


def test_json_envelope_headers_listed_as_bytes_are_base64_decoded() -> None:
    document = {"value": 1, "headers": {"trace": "aGVsbG8="}, "headersIsArray": ["trace"],
                "metadata": {"topic": "t", "partition": 0, "offset": 0}}

    (row,) = rows_of_object("x.json", json.dumps(document).encode())

    assert row.headers == {"trace": "hello"}


def test_escaped_header_fields_are_read_back_under_their_header_names() -> None:
    headers = {"esc__trace_2d_id": "0123", "esc__a_5f_b_2e_c": "x", "plain": "y"}
    document = {"value": 1, "headers": headers, "metadata": {"topic": "t", "partition": 0, "offset": 0}}

    (row,) = rows_of_object("x.json", json.dumps(document).encode())

    assert row.headers == {"trace-id": "0123", "a_b.c": "x", "plain": "y"}


def test_a_file_without_envelope_metadata_is_refused() -> None:
    with pytest.raises(ValueError, match="store.envelope=true"):
        list(rows_of_object("x.json", b'{"n": 1}\n'))


def test_local_bucket_reads_only_data_files_and_undoes_the_percent_escape(tmp_path: Path) -> None:
    folder = tmp_path / "bucket" / "orders" / "a%25b"
    folder.mkdir(parents=True)
    line = {"value": 1, "metadata": {"topic": "t", "partition": 0, "offset": 3}}
    (folder / "t(0_000000000003).json").write_text(json.dumps(line) + "\n")
    (folder / "%tmp.abc").write_text("partial")
    bucket = LocalBucket(tmp_path, "bucket")

    keys = [item.key for item in bucket.list("orders")]
    rows = list(read_rows(bucket, "orders"))

    assert keys == ["orders/a%b/%tmp.abc", "orders/a%b/t(0_000000000003).json"]
    assert [(row.offset, row.object_key) for row in rows] == [(3, "orders/a%b/t(0_000000000003).json")]
