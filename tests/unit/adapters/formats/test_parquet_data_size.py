"""PARQUET's flush size and row-group cuts depend on the rows, not on how they reached the writer."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.json as pa_json
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakesink.adapters.formats.arrow_schema import arrow_schema
from lakesink.adapters.formats.data_size import row_sizes, value_size
from lakesink.adapters.formats.parquet import BATCH_ROWS, ParquetWriter
from lakesink.domain.errors import FormatError, SchemaChangedError
from lakesink.domain.records import Record
from lakesink.domain.schema import infer

FIRST = {"id": 0, "name": "x", "ok": True, "score": 1.5, "tags": ["a"], "inner": {"n": 1, "s": "y"}}
SCHEMA = infer(FIRST)


def _row(i: int) -> dict[str, Any]:
    """Row ``i``: the first has every field, later ones leave some out or null them."""
    if i == 0:
        return FIRST
    score = i if i % 4 == 0 else i / 7  # an int fits a double column
    row: dict[str, Any] = {"id": i, "name": "n" * (i % 17) + "é😀"[: i % 3], "ok": i % 2 == 0, "score": score}
    if i % 5:
        row["tags"] = [f"t{j}" for j in range(i % 4)]
    if i % 3:
        row["inner"] = {"n": i} if i % 2 else {"n": None, "s": "s" * (i % 9)}
    elif i % 7 == 0:
        row["inner"] = None
    return row


def _parsed(rows: list[dict[str, Any]], schema: Any = SCHEMA) -> pa.RecordBatch:
    data = b"".join(json.dumps(row).encode() + b"\n" for row in rows)
    options = pa_json.ParseOptions(explicit_schema=arrow_schema(schema), unexpected_field_behavior="error")
    return pa_json.read_json(io.BytesIO(data), parse_options=options).combine_chunks().to_batches()[0]


def test_data_size_counts_scalars_strings_and_nesting() -> None:
    value = {"a": 1, "b": 2.5, "c": True, "d": None, "e": "héllo", "f": [1, None, "xy"], "g": {"h": b"abc"}}
    assert value_size(value) == 8 + 8 + 1 + 0 + (4 + 5) + (8 + 0 + 6) + (4 + 3)


def test_arrow_row_sizes_equal_the_python_sizes_of_the_same_rows() -> None:
    rows = [_row(i) for i in range(300)]
    assert row_sizes(_parsed(rows)).tolist() == [value_size(row) for row in rows]


json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=8))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fixed_dictionaries({}, optional={"a": json_scalars.filter(lambda v: not isinstance(v, bool | str)),
                                                   "b": st.text(max_size=8), "c": st.lists(st.text(max_size=3), max_size=3)}),
                min_size=1, max_size=20))
def test_row_sizes_match_value_sizes_for_generated_rows(rows: list[dict[str, Any]]) -> None:
    schema = {"type": "record", "fields": [
        {"name": "a", "type": ["null", "long"], "default": None},
        {"name": "b", "type": ["null", "string"], "default": None},
        {"name": "c", "type": ["null", {"type": "array", "items": ["null", "string"]}], "default": None},
    ]}
    batch = pa.RecordBatch.from_pylist(rows, schema=arrow_schema(schema))
    assert row_sizes(batch).tolist() == [value_size(row) for row in rows]


def test_row_sizes_refuse_types_the_columnar_path_never_produces() -> None:
    batch = pa.RecordBatch.from_pylist([{"m": [("k", 1)]}], schema=pa.schema([("m", pa.map_(pa.string(), pa.int64()))]))
    with pytest.raises(FormatError):
        row_sizes(batch)


def test_parquet_bytes_written_is_the_data_size_of_the_rows(tmp_path: Path) -> None:
    writer = ParquetWriter(tmp_path / "p.parquet")
    rows = [_row(i) for i in range(50)]
    for offset, row in enumerate(rows):
        writer.write(Record("t", 0, offset, value=row))
    assert writer.bytes_written == sum(value_size(row) for row in rows)
    writer.close()


def _per_record(path: Path, rows: list[dict[str, Any]], **options: Any) -> bytes:
    writer = ParquetWriter(path, **options)
    for offset, row in enumerate(rows):
        writer.write(Record("t", 0, offset, value=row))
    writer.close()
    return path.read_bytes()


def _alternating(path: Path, rows: list[dict[str, Any]], cuts: list[int], **options: Any) -> bytes:
    """The rows written by turns as Arrow slices and one by one, cut at ``cuts``."""
    schema = infer(rows[0])
    writer = ParquetWriter(path, **options)
    for number, (start, end) in enumerate(zip(cuts, cuts[1:], strict=False)):
        part = rows[start:end]
        if number % 2:
            for offset, row in enumerate(part, start):
                writer.write(Record("t", 0, offset, value=row))
        else:
            parsed = _parsed(part, schema)
            writer.write_batch(schema, parsed, row_sizes(parsed))
    assert writer.record_count == len(rows)
    assert writer.bytes_written == sum(value_size(row) for row in rows)
    writer.close()
    return path.read_bytes()


@pytest.mark.parametrize(("options", "row_groups"), [({}, 1), ({"row_group_bytes": 60_000}, 4), ({"row_group_bytes": 1_000}, 4)])
def test_rows_written_as_arrow_slices_give_the_same_file_as_rows_written_one_by_one(
    tmp_path: Path, options: dict[str, Any], row_groups: int
) -> None:
    rows = [_row(i) for i in range(3 * BATCH_ROWS + 123)]
    expected = _per_record(tmp_path / "a.parquet", rows, **options)

    assert _alternating(tmp_path / "b.parquet", rows, [0, 7, 5000, 5001, 9000, len(rows)], **options) == expected
    # A row group is cut only at a multiple of BATCH_ROWS rows, once it holds row_group_bytes.
    assert pq.ParquetFile(tmp_path / "a.parquet").metadata.num_row_groups == row_groups


def test_columns_larger_than_a_page_do_not_depend_on_how_the_rows_were_buffered(tmp_path: Path) -> None:
    rows = [{"id": i, "text": f"{i * 7919:0300d}"} for i in range(6000)]  # 1.8 MB: several pages
    expected = _per_record(tmp_path / "a.parquet", rows)
    assert _alternating(tmp_path / "b.parquet", rows, [0, 7, 2000, 2500, len(rows)]) == expected


def test_a_batch_with_another_schema_is_refused(tmp_path: Path) -> None:
    writer = ParquetWriter(tmp_path / "p.parquet")
    writer.write(Record("t", 0, 0, value={"id": 1}))
    parsed = _parsed([_row(1)])
    with pytest.raises(SchemaChangedError):
        writer.write_batch(SCHEMA, parsed, np.asarray(row_sizes(parsed)))
    writer.abort()


def test_a_batch_whose_columns_differ_from_the_schema_is_refused(tmp_path: Path) -> None:
    writer = ParquetWriter(tmp_path / "p.parquet")
    batch = pa.RecordBatch.from_pylist([{"id": 1}])
    with pytest.raises(FormatError):
        writer.write_batch(SCHEMA, batch, np.array([8]))
    writer.abort()
