"""Transforms on the columnar PARQUET path give the same objects, keys and bytes as record by record.

Each test runs the same Kafka batches through the columnar path and through the per-record path
(where the chain runs on each record) and compares every object byte for byte; the spy says
which batches the columnar path took, so a chain that silently falls back fails its test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from tests.support.sink_batches import (
    BUCKET,
    SELECT,
    TOPIC,
    Spy,
    assert_same_objects,
    assert_same_outcomes,
    both_outcomes,
    both_paths,
    kafka_batch,
    task_spec,
)

KAFKA = "org.apache.kafka.connect.transforms."
PARTITIONED = "PARTITIONBY country STOREAS PARQUET PROPERTIES('flush.count'=60)"
BENCH_CHAIN = {
    "transforms": "source,trim,offset",
    "transforms.source.type": KAFKA + "InsertField$Value",
    "transforms.source.static.field": "source",
    "transforms.source.static.value": "bench",
    "transforms.trim.type": KAFKA + "ReplaceField$Value",
    "transforms.trim.exclude": "note",
    "transforms.trim.renames": "amount:total",
    "transforms.offset.type": KAFKA + "InsertField$Value",
    "transforms.offset.offset.field": "kafka_offset",
}


def _orders(rows: int, start: int = 0) -> list[bytes | None]:
    values: list[bytes | None] = []
    for i in range(start, start + rows):
        order = {
            "id": i,
            "country": ("DE", "FR", "GB")[i % 3],
            "customer": {"id": f"c{i % 11}", "vip": i % 5 == 0},
            "amount": round(i * 1.37, 2),
            "code": str(i % 4),
            "paid": i % 2 == 0,
            "note": "x" * (i % 13),
        }
        values.append(json.dumps(order).encode())
    return values


def _spec(kcql_tail: str, chain: dict[str, str], select: str = SELECT) -> Any:
    def make(root: Path) -> SinkTaskSpec:
        return task_spec(f"{select} {kcql_tail}", root, **chain)

    return make


def _same(
    tmp_path: Path, calls: Spy, chain: dict[str, str], batches: list[pa.RecordBatch], **kw: str
) -> dict[str, bytes]:
    fast, fast_rows, slow, slow_rows = both_paths(_spec(PARTITIONED, chain, **kw), batches, tmp_path, calls)
    assert_same_objects(fast, slow)
    assert fast_rows == slow_rows
    return slow


def _batches() -> list[pa.RecordBatch]:
    return [kafka_batch(_orders(150)), kafka_batch(_orders(130, 150), first_offset=150)]


def test_the_benchmark_chain_runs_as_columns(tmp_path: Path, columnar_calls: Spy) -> None:
    objects = _same(tmp_path, columnar_calls, BENCH_CHAIN, _batches())
    assert columnar_calls == [True, True]
    assert len(objects) > 4


def test_coordinates_masks_casts_and_predicates_run_as_columns(tmp_path: Path, columnar_calls: Spy) -> None:
    chain = {
        "transforms": "coords,mask,maskto,cast,skipped",
        "transforms.coords.type": KAFKA + "InsertField$Value",
        "transforms.coords.topic.field": "t",
        "transforms.coords.partition.field": "p!",
        "transforms.coords.timestamp.field": "ts",
        "transforms.mask.type": KAFKA + "MaskField$Value",
        "transforms.mask.fields": "note,paid,amount",
        "transforms.maskto.type": KAFKA + "MaskField$Value",
        "transforms.maskto.fields": "id",
        "transforms.maskto.replacement": "-7",
        "transforms.cast.type": KAFKA + "Cast$Value",
        "transforms.cast.spec": "code:int8,paid:string",
        "transforms.skipped.type": KAFKA + "InsertField$Value",
        "transforms.skipped.static.field": "never",
        "transforms.skipped.static.value": "x",
        "transforms.skipped.predicate": "other",
        "predicates": "other",
        "predicates.other.type": KAFKA + "predicates.TopicNameMatches",
        "predicates.other.pattern": "other.*",
    }
    _same(tmp_path, columnar_calls, chain, _batches())
    assert columnar_calls == [True, True]


def test_a_router_sends_the_batch_to_the_statement_of_its_new_topic(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    chain = {
        "transforms": "route",
        "transforms.route.type": KAFKA + "RegexRouter",
        "transforms.route.regex": "ord(.*)",
        "transforms.route.replacement": "archived-ord$1",
    }
    # The topic read keeps a statement: its index lives in that statement's bucket.
    select = f"INSERT INTO {BUCKET}:out SELECT * FROM {TOPIC} STOREAS PARQUET; INSERT INTO {BUCKET}:arch SELECT * FROM `archived-{TOPIC}`"
    fast, _, slow, _ = both_paths(_spec(PARTITIONED, chain, select), _batches(), tmp_path, columnar_calls)
    assert fast == slow and all(key.startswith("arch/country=") and "archived-orders" in key for key in slow)
    assert columnar_calls == [True, True]


@pytest.mark.parametrize(
    "chain",
    [
        {"transforms.t.type": KAFKA + "MaskField$Value", "transforms.t.fields": "missing"},
        {"transforms.t.type": KAFKA + "MaskField$Value", "transforms.t.fields": "customer"},
        {"transforms.t.type": KAFKA + "Cast$Value", "transforms.t.spec": "note:int32"},
        {"transforms.t.type": KAFKA + "ReplaceField$Value", "transforms.t.renames": "country:c"},
    ],
    ids=["null field", "struct mask", "poison cast", "partition field renamed away"],
)
def test_a_batch_a_step_cannot_take_as_columns_goes_record_by_record(
    chain: dict[str, str], tmp_path: Path, columnar_calls: Spy
) -> None:
    fast, slow = both_outcomes(
        _spec(PARTITIONED, {"transforms": "t", **chain}), _batches(), tmp_path, columnar_calls
    )
    assert_same_outcomes(fast, slow)
    assert columnar_calls[:1] == [False]


@pytest.mark.parametrize(
    ("values", "chain"),
    [
        (
            [{"country": "DE", "x": 1.5}, {"country": "DE", "x": 3}],
            {"transforms.t.type": KAFKA + "Cast$Value", "transforms.t.spec": "x:string"},
        ),
        (
            [{"country": "DE", "x": 0.5}, {"country": "FR", "x": 2**40}],
            {"transforms.t.type": KAFKA + "Cast$Value", "transforms.t.spec": "x:int8"},
        ),
        (
            [{"country": "DE", "x": 0.5}, {"country": "DE", "x": 3}],
            {
                "transforms.t.type": KAFKA + "MaskField$Value",
                "transforms.t.fields": "x",
                "transforms.t.replacement": "1.5",
            },
        ),
        (
            [{"country": "DE", "a": 1, "b": 2}, {"country": "DE", "b": 20, "a": 10}],
            {"transforms.t.type": KAFKA + "ReplaceField$Value", "transforms.t.renames": "a:b"},
        ),
        (
            [{"country": "DE", "a": 1, "b": 2}, {"country": "DE", "a": 5}],
            {"transforms.t.type": KAFKA + "ReplaceField$Value", "transforms.t.renames": "b:a"},
        ),
    ],
    ids=[
        "integer in a double column cast to text",
        "to int8",
        "custom mask",
        "rename onto a field",
        "two onto one",
    ],
)
def test_what_the_parse_or_the_column_order_hides_goes_record_by_record(
    values: list[dict[str, object]], chain: dict[str, str], tmp_path: Path, columnar_calls: Spy
) -> None:
    batch = kafka_batch([json.dumps(value).encode() for value in values * 20], first_offset=10)
    fast, slow = both_outcomes(
        _spec(PARTITIONED, {"transforms": "t", **chain}), [batch], tmp_path, columnar_calls
    )
    assert_same_outcomes(fast, slow)
    assert columnar_calls == [False]


def test_a_swap_of_two_names_stays_columnar(tmp_path: Path, columnar_calls: Spy) -> None:
    chain = {
        "transforms": "t",
        "transforms.t.type": KAFKA + "ReplaceField$Value",
        "transforms.t.renames": "id:code,code:id",
    }
    _same(tmp_path, columnar_calls, chain, _batches())
    assert columnar_calls == [True, True]


def test_records_without_a_timestamp_keep_the_per_record_shape(tmp_path: Path, columnar_calls: Spy) -> None:
    batch = kafka_batch(_orders(90))
    stamps = batch.column("timestamp").to_pylist()
    stamps[40] = None
    batch = batch.set_column(5, "timestamp", pa.array(stamps, batch.schema.field("timestamp").type))
    chain = {
        "transforms": "ts",
        "transforms.ts.type": KAFKA + "InsertField$Value",
        "transforms.ts.timestamp.field": "ts",
    }
    _same(tmp_path, columnar_calls, chain, [batch, kafka_batch(_orders(60, 90), first_offset=90)])
    assert columnar_calls == [False, True]


def test_a_chain_with_a_record_level_step_stays_record_by_record(tmp_path: Path, columnar_calls: Spy) -> None:
    chain = {
        "transforms": "hoist",
        "transforms.hoist.type": KAFKA + "HoistField$Value",
        "transforms.hoist.field": "order",
    }
    fast, slow = both_outcomes(_spec("STOREAS PARQUET", chain), _batches(), tmp_path, columnar_calls)
    assert_same_outcomes(fast, slow)
    assert columnar_calls == [False, False]


_STEPS = {
    "static": {"type": "InsertField$Value", "static.field": "src", "static.value": "s"},
    "offset": {"type": "InsertField$Value", "offset.field": "id"},
    "coords": {"type": "InsertField$Value", "topic.field": "code", "partition.field": "p"},
    "drop": {"type": "ReplaceField$Value", "exclude": "note,customer"},
    "keep": {"type": "ReplaceField$Value", "include": "country,amount,paid,code,id"},
    "rename": {"type": "ReplaceField$Value", "renames": "amount:paid,paid:amount"},
    "mask": {"type": "MaskField$Value", "fields": "paid,amount"},
    "mask7": {"type": "MaskField$Value", "fields": "code,id", "replacement": "7"},
    "cast": {"type": "Cast$Value", "spec": "amount:int16,code:float32,paid:int8"},
    "castback": {"type": "Cast$Value", "spec": "id:string"},
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(st.sampled_from(sorted(_STEPS)), min_size=1, max_size=4),
    rows=st.integers(1, 120),
    flush=st.integers(1, 80),
)
def test_any_chain_of_columnar_steps_writes_what_the_record_path_writes(
    names: list[str], rows: int, flush: int, tmp_path_factory: pytest.TempPathFactory, columnar_calls: Spy
) -> None:
    chain = {"transforms": ",".join(f"s{i}" for i in range(len(names)))}
    for i, name in enumerate(names):
        chain |= {f"transforms.s{i}.{key}": value for key, value in _STEPS[name].items()}
        chain[f"transforms.s{i}.type"] = KAFKA + _STEPS[name]["type"]
    tail = f"PARTITIONBY country STOREAS PARQUET PROPERTIES('flush.count'={flush})"
    batches = [kafka_batch(_orders(rows)), kafka_batch(_orders(50, rows), first_offset=rows)]
    fast, slow = both_outcomes(_spec(tail, chain), batches, tmp_path_factory.mktemp("chain"), columnar_calls)
    assert_same_outcomes(fast, slow)
