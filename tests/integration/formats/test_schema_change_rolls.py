"""schema.change.detector and latest.schema.optimization.enabled decide which files roll.

Records declaring Connect schemas v1, v2 (v1 plus an optional field) and v1 again go through
the per-record sink path (:class:`~lakesink.adapters.formats.range_writer.RangeWriter`) with real
AVRO, PARQUET and CSV writers, under every detector with and without the optimisation; the
object keys tell where files rolled, and the files are read back with fastavro, pyarrow and csv.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import fastavro
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.formats.range_writer import RangeWriter, RolledFile
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.records import Record
from lakesink.domain.statement_plan import StatementPlan, plan_sink

TOPIC = "orders"


def _connect_schema(version: int | None, *, note: bool) -> dict[str, Any]:
    fields: list[dict[str, Any]] = [{"field": "id", "type": "int64", "optional": False}]
    if note:
        fields.append({"field": "note", "type": "string", "optional": True})
    schema: dict[str, Any] = {"type": "struct", "name": "com.acme.Order", "optional": False, "fields": fields}
    if version is not None:
        schema["version"] = version
    return schema


def _record(offset: int, schema: dict[str, Any]) -> Record:
    value: dict[str, Any] = {"id": offset}
    if any(field["field"] == "note" for field in schema["fields"]):
        value["note"] = f"n{offset}"
    return Record(TOPIC, 0, offset, timestamp=1000 + offset, value=value, value_schema=schema)


def _plan(tmp_path: Path, fmt: str, **settings: str) -> StatementPlan:
    props = {
        "name": "schemas",
        "connect.local.root": str(tmp_path / "store"),
        "connect.local.kcql": f"INSERT INTO bkt:out SELECT * FROM {TOPIC} STOREAS `{fmt}` PROPERTIES('flush.count'=100)",
        "topics": TOPIC,
        **{f"connect.local.{key}": value for key, value in settings.items()},
    }
    return plan_sink(ConnectorSettings.from_properties(props)).statements[0]


def _write(plan: StatementPlan, root: Path, records: list[Record]) -> list[RolledFile]:
    writer = RangeWriter(plan, TOPIC, records[0].partition, root)
    for record in records:
        writer.write(record, plan.layout.partition_values(record))
    return writer.finish()


def _rows(fmt: str, path: Path) -> tuple[Any, list[dict[str, Any]]]:
    if fmt == "AVRO":
        with open(path, "rb") as data:
            reader = fastavro.reader(data)
            return [f["name"] for f in reader.writer_schema["fields"]], list(reader)
    if fmt == "PARQUET":
        table = pq.read_table(path)
        return table.column_names, table.to_pylist()
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    return list(rows[0]), [{k: (int(v) if k == "id" else v or None) for k, v in row.items()} for row in rows]


V1, V2 = _connect_schema(1, note=False), _connect_schema(2, note=True)
V1_V2_V1 = [_record(0, V1), _record(1, V2), _record(2, V1)]

# (detector, optimisation) → the last offset of each file, and the columns of each file
EXPECTED = {
    ("default", "false"): ([0, 1, 2], [["id"], ["id", "note"], ["id"]]),
    ("default", "true"): ([0, 2], [["id"], ["id", "note"]]),
    ("version", "false"): ([0, 2], [["id"], ["id", "note"]]),
    ("version", "true"): ([0, 2], [["id"], ["id", "note"]]),
    ("compatibility", "false"): ([2], [["id"]]),
    ("compatibility", "true"): ([2], [["id"]]),
}


@pytest.mark.parametrize("fmt", ["AVRO", "PARQUET", "CSV_WITHHEADERS"])
@pytest.mark.parametrize(("detector", "latest"), list(EXPECTED))
def test_v1_v2_v1_rolls_files_as_the_detector_and_the_optimisation_decide(
    tmp_path: Path, fmt: str, detector: str, latest: str
) -> None:
    plan = _plan(tmp_path, fmt, **{"schema.change.detector": detector, "latest.schema.optimization.enabled": latest})
    rolled = _write(plan, tmp_path / "staging", V1_V2_V1)

    last_offsets, columns = EXPECTED[(detector, latest)]
    extension = "csv" if fmt.startswith("CSV") else fmt.lower()
    assert [file.key for file in rolled] == [
        f"out/{TOPIC}/0/{offset:012d}_{1000 + first}_{1000 + offset}.{extension}"
        for first, offset in zip([0, *[o + 1 for o in last_offsets[:-1]]], last_offsets, strict=True)
    ]
    read = [_rows(fmt.split("_")[0], file.path) for file in rolled]
    assert [names for names, _ in read] == columns
    rows = [row for _, file_rows in read for row in file_rows]
    assert [row["id"] for row in rows] == [0, 1, 2]
    notes = {row["id"]: row.get("note") for row in rows}
    # v1 records adapted to v2 get a null note; v2's note survives unless v1 files hold it
    assert notes[0] is None and notes[2] is None
    assert notes[1] == (None if detector == "compatibility" else "n1")


@pytest.mark.parametrize("fmt", ["AVRO", "PARQUET"])
def test_the_optimisation_adapts_v1_records_to_v2_in_the_written_file(tmp_path: Path, fmt: str) -> None:
    plan = _plan(tmp_path, fmt, **{"latest.schema.optimization.enabled": "true"})
    rolled = _write(plan, tmp_path / "staging", V1_V2_V1)
    path = rolled[1].path
    if fmt == "AVRO":
        with open(path, "rb") as data:
            schema = fastavro.reader(data).writer_schema
    else:
        schema = json.loads(pq.read_schema(path).metadata[b"parquet.avro.schema"])
    assert schema["connect.version"] == 2 and [f["name"] for f in schema["fields"]] == ["id", "note"]


def test_without_versions_the_version_detector_rolls_only_for_a_schema_adding_fields(tmp_path: Path) -> None:
    v1, v2 = _connect_schema(None, note=False), _connect_schema(None, note=True)
    plan = _plan(tmp_path, "AVRO", **{"schema.change.detector": "version"})
    rolled = _write(plan, tmp_path / "staging", [_record(0, v1), _record(1, v2), _record(2, v1), _record(3, v2)])
    assert [(file.first_offset, file.last_offset) for file in rolled] == [(0, 0), (1, 2), (3, 3)]


def test_v3_then_v2_stays_in_one_parquet_file_with_the_optimisation(tmp_path: Path) -> None:
    """Lenses' S3SinkTaskParquetV3ThenV2SchemaOptimizationTest: five v3 records, then five v2."""
    v2, v3 = _connect_schema(2, note=False), _connect_schema(3, note=True)
    records = [_record(offset, v3) for offset in range(1, 6)] + [_record(offset, v2) for offset in range(6, 11)]
    records = [Record(TOPIC, 1, r.offset, 10000 + r.offset, value=r.value, value_schema=r.value_schema) for r in records]
    props = {
        "name": "v3v2",
        "connect.local.root": str(tmp_path / "store"),
        "connect.local.kcql": f"insert into bkt:streamReactorBackups select * from {TOPIC} STOREAS PARQUET "
        "PROPERTIES('padding.length.partition'='12','padding.length.offset'='12','flush.count'=10)",
        "topics": TOPIC,
        "connect.local.latest.schema.optimization.enabled": "true",
    }
    plan = plan_sink(ConnectorSettings.from_properties(props)).statements[0]
    rolled = _write(plan, tmp_path / "staging", records)
    assert [file.key for file in rolled] == [f"streamReactorBackups/{TOPIC}/000000000001/000000000010_10001_10010.parquet"]
    rows = pq.read_table(rolled[0].path).to_pylist()
    assert [row["id"] for row in rows] == list(range(1, 11))
    assert [row["note"] for row in rows] == [f"n{i}" for i in range(1, 6)] + [None] * 5

    props["connect.local.latest.schema.optimization.enabled"] = "false"
    plan = plan_sink(ConnectorSettings.from_properties(props)).statements[0]
    rolled = _write(plan, tmp_path / "staging-off", records)
    assert [(file.first_offset, file.last_offset) for file in rolled] == [(1, 5), (6, 10)]
