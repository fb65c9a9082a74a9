"""Confluent configs through the sink's executor task: keys, file boundaries and contents.

Each case runs the real task (:func:`run_task`) over Kafka batches into an in-memory store and
compares the objects with keys worked out by hand from Confluent's rules (reference §C), read
back with independent readers (json, gzip, fastavro).
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from lakesink.adapters.kafka.partition_reader import arrow_schema
from lakesink.adapters.spark.sink_task import run_task
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.spark.task_results import result_of
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.dialects.confluent.connector import connector_settings
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.errors import ConfigError
from lakesink.domain.ports import iter_objects
from lakesink.domain.statement_plan import plan_sink
from tests.support.confluent_configs import COMPLETE, FMT, PKG

BUCKET = "lake"
TOPIC = "orders"
BASE = {
    "name": "confluent-unit",
    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
    "format.class": f"{FMT}json.JsonFormat",
    "s3.bucket.name": BUCKET,
    "topics": TOPIC,
    "flush.size": "3",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
}
Row = tuple[int, Any, int]
"""(offset, value (JSON-able, None: tombstone), timestamp ms)."""


def _batch(
    rows: Sequence[Row], partition: int = 0, headers: bool = False, json_null: bool = False
) -> pa.RecordBatch:
    header_type = arrow_schema().field("headers").type
    return pa.RecordBatch.from_arrays(
        [
            pa.array([f"key-{o}".encode() for o, _, _ in rows], pa.binary()),
            pa.array(
                [
                    (b"null" if json_null else None) if v is None else json.dumps(v).encode()
                    for _, v, _ in rows
                ],
                pa.binary(),
            ),
            pa.array([TOPIC] * len(rows), pa.string()),
            pa.array([partition] * len(rows), pa.int32()),
            pa.array([o for o, _, _ in rows], pa.int64()),
            pa.array([ts * 1000 for _, _, ts in rows], pa.timestamp("us", tz="UTC")),
            pa.array([0] * len(rows), pa.int32()),
            pa.array(
                [[{"key": "trace", "value": f"t{o}".encode()}] if headers else [] for o, _, _ in rows],
                header_type,
            ),
        ],
        schema=arrow_schema(),
    )


def _run(
    tmp_path: Path,
    props: Mapping[str, str],
    rows: Sequence[Row],
    *,
    headers: bool = False,
    clock_ms: int = 0,
    batch: pa.RecordBatch | None = None,
    keep_plans: bool = False,
    json_null: bool = False,
) -> tuple[dict[str, bytes], RangeResult]:
    settings = connector_settings(ConfluentSinkConfig.from_properties({**BASE, **props}))
    store = InMemoryObjectStore()
    store.create_bucket(BUCKET)
    spec = SinkTaskSpec.for_settings(
        settings,
        plan=plan_sink(settings),
        store=store,
        run_id="run",
        staging_root=str(tmp_path),
        clock_ms=clock_ms,
    )
    batch = batch if batch is not None else _batch(rows, headers=headers, json_null=json_null)
    results = [result_of(row) for out in run_task(spec, iter([batch])) for row in out.to_pylist()]
    objects = {
        info.key: store.get(BUCKET, info.key).data
        for info in iter_objects(store, BUCKET, "")
        if keep_plans or not info.key.startswith(".indexes/")
    }
    assert len(results) == 1
    assert not list((tmp_path / "lakesink-staging").rglob("*.*")), "staging files left behind"
    return objects, results[0]


def _lines(data: bytes) -> list[Any]:
    assert data.endswith(b"\n"), "Confluent's JsonFormat ends every record with a line separator"
    return [json.loads(line) for line in data.splitlines()]


def test_default_partitioner_cuts_flush_size_cycles_and_holds_the_rest(tmp_path: Path) -> None:
    rows = [(o, {"o": o}, 0) for o in range(10, 18)]
    objects, result = _run(tmp_path, {}, rows)
    assert {key: _lines(data) for key, data in objects.items()} == {
        f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000010.json": [{"o": 10}, {"o": 11}, {"o": 12}],
        f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000013.json": [{"o": 13}, {"o": 14}, {"o": 15}],
    }
    assert (result.first, result.last, result.records) == (10, 15, 6), "16 and 17 wait for their cycle"


def test_time_based_buckets_in_a_non_utc_zone_with_a_quarter_hour_duration(tmp_path: Path) -> None:
    props = {
        "partitioner.class": f"{PKG}TimeBasedPartitioner",
        "path.format": "'dt'=YYYY-MM-dd/'t'=HH-mm",
        "partition.duration.ms": "900000",
        "locale": "en",
        "timezone": "Asia/Kolkata",
        "timestamp.extractor": "Record",
        "flush.size": "4",
    }
    t0 = 1_700_000_000_000  # 2023-11-14T22:13:20Z = 2023-11-15 03:43:20 +05:30
    minute = 60_000
    rows = [
        (0, {"o": 0}, t0),
        (1, {"o": 1}, t0 + minute),
        (2, {"o": 2}, t0 + 20 * minute),
        (3, {"o": 3}, t0),
    ]
    objects, _ = _run(tmp_path, props, rows)
    assert {key: _lines(data) for key, data in objects.items()} == {
        f"topics/{TOPIC}/dt=2023-11-15/t=03-30/{TOPIC}+0+0000000000.json": [{"o": 0}, {"o": 1}, {"o": 3}],
        f"topics/{TOPIC}/dt=2023-11-15/t=04-00/{TOPIC}+0+0000000002.json": [{"o": 2}],
    }


def test_record_time_rotation_and_partition_changes_rotate_every_file(tmp_path: Path) -> None:
    props = {
        "partitioner.class": f"{PKG}HourlyPartitioner",
        "locale": "en",
        "timezone": "UTC",
        "timestamp.extractor": "Record",
        "rotate.interval.ms": "600000",
        "flush.size": "100",
    }
    hour, minute = 3_600_000, 60_000
    t0 = 1_700_000_000_000 - 1_700_000_000_000 % hour  # 2023-11-14T22:00Z
    rows = [
        (0, {"o": 0}, t0),
        (1, {"o": 1}, t0 + 5 * minute),
        (2, {"o": 2}, t0 + 11 * minute),  # 11 minutes past the base: rotates
        (3, {"o": 3}, t0 + hour),  # another hour: partition change rotates
        (4, {"o": 4}, t0 + hour),
        (5, {"o": 5}, t0 + hour + minute),  # held: no rule closed the last cycle yet
    ]
    objects, result = _run(tmp_path, props, rows)
    day = "year=2023/month=11/day=14"
    assert {key: _lines(data) for key, data in objects.items()} == {
        f"topics/{TOPIC}/{day}/hour=22/{TOPIC}+0+0000000000.json": [{"o": 0}, {"o": 1}],
        f"topics/{TOPIC}/{day}/hour=22/{TOPIC}+0+0000000002.json": [{"o": 2}],
    }
    assert result.last == 2


def test_field_partitioner_with_two_fields_keeps_files_of_one_cycle_open_together(tmp_path: Path) -> None:
    schema = {
        "type": "struct",
        "fields": [
            {"field": "region", "type": "string"},
            {"field": "tier", "type": "int32"},
            {"field": "o", "type": "int64"},
        ],
    }
    props = {
        "partitioner.class": f"{PKG}FieldPartitioner",
        "partition.field.name": "region,tier",
        "value.converter.schemas.enable": "true",
        "flush.size": "3",
    }
    values = [("eu", 1), ("us", 2), ("eu", 1), ("us", 2)]
    rows = [
        (o, {"schema": schema, "payload": {"region": r, "tier": t, "o": o}}, 0)
        for o, (r, t) in enumerate(values)
    ]
    objects, _ = _run(tmp_path, props, rows)
    assert {key: [v["o"] for v in _lines(data)] for key, data in objects.items()} == {
        f"topics/{TOPIC}/region=eu/tier=1/{TOPIC}+0+0000000000.json": [0, 2],
        f"topics/{TOPIC}/region=us/tier=2/{TOPIC}+0+0000000001.json": [1],
    }


def test_keys_and_headers_files_sit_next_to_each_value_file(tmp_path: Path) -> None:
    props = {
        "store.kafka.keys": "true",
        "store.kafka.headers": "true",
        "keys.format.class": f"{FMT}json.JsonFormat",
    }
    objects, _ = _run(tmp_path, props, [(o, {"o": o}, 0) for o in range(3)], headers=True)
    stem = f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000"
    assert sorted(objects) == [f"{stem}.headers.avro", f"{stem}.json", f"{stem}.keys.json"]
    assert _lines(objects[f"{stem}.keys.json"]) == ["key-0", "key-1", "key-2"]
    headers = list(fastavro.reader(io.BytesIO(objects[f"{stem}.headers.avro"])))
    assert headers == [[{"key": "trace", "value": f"t{o}"}] for o in range(3)]


def test_gzip_json_and_byte_array_with_a_separator(tmp_path: Path) -> None:
    objects, _ = _run(tmp_path, {"s3.compression.type": "gzip"}, [(o, {"o": o}, 0) for o in range(3)])
    ((key, data),) = objects.items()
    assert key.endswith("+0000000000.json.gz") and _lines(gzip.decompress(data)) == [
        {"o": 0},
        {"o": 1},
        {"o": 2},
    ]
    props = {
        "format.class": f"{FMT}bytearray.ByteArrayFormat",
        "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
        "format.bytearray.separator": "|",
    }
    objects, _ = _run(tmp_path, props, [(o, {"o": o}, 0) for o in range(3)])
    assert objects == {f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000.bin": b'{"o": 0}|{"o": 1}|{"o": 2}|'}


def test_tombstones_written_go_to_the_tombstone_partition_as_keys_only(tmp_path: Path) -> None:
    props = {
        "behavior.on.null.values": "write",
        "store.kafka.keys": "true",
        "keys.format.class": f"{FMT}json.JsonFormat",
    }
    objects, _ = _run(tmp_path, props, [(0, {"o": 0}, 0), (1, None, 0), (2, {"o": 2}, 0)])
    assert {key: _lines(data) for key, data in objects.items()} == {
        f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000.json": [{"o": 0}, {"o": 2}],
        f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000.keys.json": ["key-0", "key-2"],
        f"topics/{TOPIC}/tombstone/{TOPIC}+0+0000000001.keys.json": ["key-1"],
    }


def test_tombstones_fail_by_default_and_are_skipped_with_ignore(tmp_path: Path) -> None:
    _, failed = _run(tmp_path, {}, [(0, {"o": 0}, 0), (1, None, 0)])
    assert failed.failure is not None and "behavior.on.null.values" in failed.failure.message
    objects, result = _run(
        tmp_path,
        {"behavior.on.null.values": "ignore", "flush.size": "2"},
        [(0, {"o": 0}, 0), (1, None, 0), (2, {"o": 2}, 0)],
    )
    assert list(objects) == [f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000.json"]
    assert result.skipped == 1


def test_a_scheduled_rotation_seals_the_open_cycle_at_the_end_of_the_batch(tmp_path: Path) -> None:
    props = {"rotate.schedule.interval.ms": "60000", "timezone": "UTC"}
    objects, result = _run(tmp_path, props, [(o, {"o": o}, 0) for o in range(4)])
    assert sorted(objects) == [
        f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000.json",
        f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000003.json",
    ]
    assert result.last == 3


@pytest.mark.parametrize(("codec", "extension"), [("snappy", ".snappy.parquet"), ("none", ".parquet")])
def test_parquet_values_are_read_back_by_pyarrow(tmp_path: Path, codec: str, extension: str) -> None:
    import pyarrow.parquet as pq

    props = {"format.class": f"{FMT}parquet.ParquetFormat", "parquet.codec": codec}
    objects, _ = _run(tmp_path, props, [(o, {"o": o, "name": f"n{o}"}, 0) for o in range(3)])
    ((key, data),) = objects.items()
    assert key == f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000{extension}"
    assert pq.read_table(io.BytesIO(data)).to_pylist() == [{"o": o, "name": f"n{o}"} for o in range(3)]


def test_a_parquet_codec_pyarrow_cannot_write_is_refused_before_the_sink_starts() -> None:
    config = ConfluentSinkConfig.from_properties(
        {**BASE, "format.class": f"{FMT}parquet.ParquetFormat", "parquet.codec": "lzo"}
    )
    with pytest.raises(ConfigError, match="parquet.codec=lzo cannot be written"):
        connector_settings(config)


def test_wall_clock_rules_are_named_in_one_warning_and_record_time_rules_in_none() -> None:
    seed = ConfluentSinkConfig.from_properties(COMPLETE).writing  # Wallclock + rotate.interval.ms
    note = seed.wall_clock_note()
    assert note is not None and "Wallclock" in note and "exactly once" in note and "\n" not in note
    assert ConfluentSinkConfig.from_properties(BASE).writing.wall_clock_note() is None


def test_a_poison_record_leaves_no_trace_in_any_file(tmp_path: Path) -> None:
    props = {
        "store.kafka.keys": "true",
        "keys.format.class": f"{FMT}json.JsonFormat",
        "errors.tolerance": "all",
    }
    rows = [(o, {"o": o}, 0) for o in range(4)]
    batch = _batch(rows)
    keys = batch.column(0).to_pylist()
    keys[0] = None  # a null key cannot be stored: the whole record is skipped, its value too
    objects, result = _run(
        tmp_path, props, rows, batch=batch.set_column(0, "key", pa.array(keys, pa.binary()))
    )
    stem = f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000001"
    assert {key: _lines(data) for key, data in objects.items()} == {
        f"{stem}.json": [{"o": 1}, {"o": 2}, {"o": 3}],
        f"{stem}.keys.json": ["key-1", "key-2", "key-3"],
    }
    assert (result.poison, result.records) == (1, 3)


def test_a_sealed_range_plans_from_its_first_record_even_a_poison_one(tmp_path: Path) -> None:
    """A replay must place the same records from the same first record (the poison one set the cycle's base time)."""
    props = {
        "partitioner.class": f"{PKG}TimeBasedPartitioner",
        "path.format": "'d'=YYYY",
        "partition.duration.ms": "86400000",
        "locale": "en",
        "timezone": "UTC",
        "timestamp.extractor": "Record",
        "rotate.interval.ms": "1000",
        "rotate.schedule.interval.ms": "60000",
        "errors.tolerance": "all",
    }
    t0 = 1_700_000_000_000
    rows = [
        (10, {"o": 10}, 3 * 10**14),
        (11, {"o": 11}, t0),
        (12, {"o": 12}, t0 + 1),
        (13, {"o": 13}, t0 + 5000),
    ]
    objects, result = _run(tmp_path, props, rows, keep_plans=True)
    plans = [key for key in objects if "/.plans/" in key]
    assert [json.loads(objects[key])["start"] for key in plans] == [10]
    assert result.poison == 1


def test_schemaless_values_that_do_not_fit_an_avro_file_are_poison_records(tmp_path: Path) -> None:
    props = {"format.class": f"{FMT}avro.AvroFormat", "errors.tolerance": "all"}
    objects, result = _run(tmp_path, props, [(0, {"a": 1}, 0), (1, {"b": "x"}, 0), (2, {"a": 2}, 0)])
    assert result.poison == 1
    assert objects == {}  # 2 records wait for the third of their cycle


def test_parquet_keys_are_enveloped_as_record_key(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    props = {
        "format.class": f"{FMT}parquet.ParquetFormat",
        "store.kafka.keys": "true",
        "keys.format.class": f"{FMT}parquet.ParquetFormat",
    }
    objects, _ = _run(tmp_path, props, [(o, {"o": o}, 0) for o in range(3)])
    keys = objects[f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000.keys.snappy.parquet"]
    assert pq.read_table(io.BytesIO(keys)).to_pylist() == [{"key": f"key-{o}"} for o in range(3)]


def test_ignore_skips_values_that_are_null_after_conversion(tmp_path: Path) -> None:
    objects, result = _run(
        tmp_path,
        {"behavior.on.null.values": "ignore", "flush.size": "2"},
        [(0, {"o": 0}, 0), (1, None, 0), (2, {"o": 2}, 0)],
        json_null=True,
    )
    assert list(objects) == [f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000.json"]
    assert result.skipped == 1


def test_a_value_routed_into_the_tombstone_partition_stops_the_sink(tmp_path: Path) -> None:
    props = {
        "behavior.on.null.values": "write",
        "store.kafka.keys": "true",
        "partitioner.class": f"{PKG}TimeBasedPartitioner",
        "path.format": "'tombstone_v'=YYYY",
        "partition.duration.ms": "3600000",
        "locale": "en",
        "timezone": "UTC",
        "timestamp.extractor": "Record",
    }
    _, result = _run(tmp_path, props, [(0, {"o": 0}, 1_700_000_000_000)])
    assert result.failure is not None and result.failure.kind == "ConfigError"
    assert "tombstone.encoded.partition" in result.failure.message


def test_json_format_writes_struct_decimals_as_json_decimal_format_says(tmp_path: Path) -> None:
    """JsonConverter's own bytes (Kafka 4.4.0, decimal.format BASE64 / NUMERIC) for Decimal(2) 0.25 and -1.28."""
    schema = {"type": "struct", "fields": [
        {"type": "int32", "optional": False, "field": "id"},
        {"type": "bytes", "optional": False, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
         "parameters": {"scale": "2"}, "field": "price"},
    ]}
    rows = [(o, {"schema": schema, "payload": {"id": o, "price": price}}, 0) for o, price in enumerate(["GQ==", "gA==", "AA=="])]
    envelope = {"value.converter.schemas.enable": "true"}
    key = f"topics/{TOPIC}/partition=0/{TOPIC}+0+0000000000.json"
    objects, _ = _run(tmp_path, envelope, rows)
    assert objects == {key: b'{"id":0,"price":"GQ=="}\n{"id":1,"price":"gA=="}\n{"id":2,"price":"AA=="}\n'}
    objects, _ = _run(tmp_path, {**envelope, "json.decimal.format": "NUMERIC"}, rows)
    assert objects == {key: b'{"id":0,"price":0.25}\n{"id":1,"price":-1.28}\n{"id":2,"price":0.00}\n'}
