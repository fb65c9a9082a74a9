"""The columnar PARQUET path gives the same objects, keys and bytes as the per-record path.

Every test runs the same Kafka batches through both paths (:mod:`tests.support.sink_batches`)
and compares every object byte for byte; the spy says which batches the columnar path took.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from tests.support.sink_batches import (
    SELECT,
    Spy,
    assert_same_objects,
    assert_same_outcomes,
    both_outcomes,
    both_paths,
    kafka_batch,
    task_spec,
)

COUNTRIES = ("DE", "FR", "GB", "US")


def _orders(rows: int, start: int = 0) -> list[bytes | None]:
    """Uniform order events: nested customer, a list, a few optional fields, four countries."""
    values: list[bytes | None] = []
    for i in range(start, start + rows):
        order: dict[str, Any] = {
            "id": i,
            "country": COUNTRIES[i * 7 % 4],
            "customer": {"id": f"c{i % 11}", "vip": i % 5 == 0},
            "amount": round(i * 1.37, 2),
            "lines": [i % 3, i % 7],
            "note": "é😀" * (i % 3) + "x" * (i % 13),
        }
        values.append(json.dumps(order, ensure_ascii=i % 2 == 0).encode())
    return values


def _parquet(kcql_tail: str, **extra: str) -> Any:
    def make(root: Path) -> SinkTaskSpec:
        return task_spec(f"{SELECT} {kcql_tail}", root, **extra)

    return make


def _compare(tmp_path: Path, calls: Spy, kcql_tail: str, batches: list[Any], **extra: str) -> dict[str, bytes]:
    fast, fast_rows, slow, slow_rows = both_paths(_parquet(kcql_tail, **extra), batches, tmp_path, calls)
    assert_same_objects(fast, slow)
    assert fast_rows == slow_rows
    return slow


def _records(objects: dict[str, bytes], tmp_path: Path) -> int:
    total = 0
    for number, data in enumerate(objects.values()):
        path = tmp_path / f"check-{number}.parquet"
        path.write_bytes(data)
        total += pq.ParquetFile(path).metadata.num_rows
    return total


def test_files_partitioned_by_a_value_field_roll_at_the_same_records_by_count(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    batches = [kafka_batch(_orders(700)), kafka_batch(_orders(650, 700), first_offset=700)]
    objects = _compare(
        tmp_path, columnar_calls, "PARTITIONBY _value.country STOREAS PARQUET PROPERTIES('flush.count'=90)", batches
    )

    assert columnar_calls == [True, True]
    assert {key.split("/")[1] for key in objects} == {f"country={c}" for c in COUNTRIES}
    assert len(objects) > 12 and _records(objects, tmp_path) == 1345  # offsets 0..4 are below the floor


def test_files_roll_at_the_same_records_by_size(tmp_path: Path, columnar_calls: Spy) -> None:
    batches = [kafka_batch(_orders(400)), kafka_batch(_orders(333, 400), first_offset=400)]
    objects = _compare(
        tmp_path,
        columnar_calls,
        "PARTITIONBY country, _partition STOREAS PARQUET PROPERTIES('flush.size'=3000, 'flush.count'=1000)",
        batches,
        **{"connect.memory.compression.codec": "ZSTD"},
    )

    assert columnar_calls == [True, True]
    assert len(objects) > 12 and _records(objects, tmp_path) == 728


@pytest.mark.parametrize("layout", ["", "NOPARTITION", "PARTITIONBY _topic, _partition", "PARTITIONBY customer.vip"])
def test_topic_partition_and_boolean_layouts_match_the_record_path(
    layout: str, tmp_path: Path, columnar_calls: Spy
) -> None:
    batches = [kafka_batch(_orders(120)), kafka_batch(_orders(80), partition=1)]
    _compare(tmp_path, columnar_calls, f"{layout} STOREAS PARQUET PROPERTIES('flush.count'=50)", batches)
    assert columnar_calls == [True, True]


def test_a_file_opened_record_by_record_is_continued_on_the_columnar_path(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    first = _orders(60)
    first[30] = b'{"id": 30,\n"country": "DE"}'  # a line break: this batch goes record by record
    batches = [kafka_batch(first), kafka_batch(_orders(100, 60), first_offset=60)]
    objects = _compare(
        tmp_path, columnar_calls, "PARTITIONBY country STOREAS PARQUET PROPERTIES('flush.count'=70)", batches
    )

    assert columnar_calls == [False, True]
    assert _records(objects, tmp_path) == 155


def test_a_type_change_inside_a_batch_sends_it_record_by_record(tmp_path: Path, columnar_calls: Spy) -> None:
    changed = _orders(40, 40)
    changed[10] = json.dumps({"id": "fifty", "country": "DE"}).encode()
    batches = [kafka_batch(_orders(40)), kafka_batch(changed, first_offset=40), kafka_batch(_orders(40, 80), first_offset=80)]
    objects = _compare(tmp_path, columnar_calls, "PARTITIONBY country STOREAS PARQUET", batches)

    # The next DE record rolled the string id's file again: the third batch continues order files.
    assert columnar_calls == [True, False, True]
    assert _records(objects, tmp_path) == 115


def test_a_file_started_inside_a_batch_by_a_sparser_record_sends_it_record_by_record(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    values = _orders(30)
    values[20] = json.dumps({"id": 20, "country": "US"}).encode()  # fits, but would start a US file
    batches = [kafka_batch(values, first_offset=10)]
    objects = _compare(tmp_path, columnar_calls, "PARTITIONBY country STOREAS PARQUET PROPERTIES('flush.count'=5)", batches)

    assert columnar_calls == [False]
    assert _records(objects, tmp_path) == 30


def test_the_schema_of_an_open_file_parses_a_batch_whose_first_record_is_sparser(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    second = _orders(50, 50)
    second[0] = json.dumps({"id": 50, "country": COUNTRIES[50 * 7 % 4]}).encode()
    batches = [kafka_batch(_orders(50)), kafka_batch(second, first_offset=50)]
    _compare(tmp_path, columnar_calls, "PARTITIONBY country STOREAS PARQUET", batches)
    assert columnar_calls == [True, True]


def test_rendered_partition_values_that_collide_share_one_file(tmp_path: Path, columnar_calls: Spy) -> None:
    values = [json.dumps({"id": i, "path": ["a/b", "a\\b", "a b"][i % 3]}).encode() for i in range(30)]
    objects = _compare(tmp_path, columnar_calls, "PARTITIONBY path STOREAS PARQUET", [kafka_batch(values)])
    assert columnar_calls == [True]
    assert _records(objects, tmp_path) == 25


# What pyarrow's JSON reader accepts and ``fits`` refuses (or the reverse): each batch starts with
# a record fixing the schema, then the odd value. ``taken`` says whether the columnar path may run.
FIRST = b'{"s": "x", "n": 1, "d": 1.5, "b": true, "o": {"k": 1}, "a": [1]}'
COERCIONS = [
    ("number into a string column", b'{"s": 1}', False),
    ("string into a long column", b'{"n": "1"}', False),
    ("string into a boolean column", b'{"b": "true"}', False),
    ("number into a boolean column", b'{"b": 1}', False),
    ("boolean into a long column", b'{"n": true}', False),
    ("fraction into a long column", b'{"n": 1.5}', False),
    ("integral double into a long column", b'{"n": 1.0}', False),
    ("exponent into a long column", b'{"n": 1e2}', False),
    ("fraction into a long array", b'{"a": [1, 2.5]}', False),
    ("int beyond int64", b'{"n": 9223372036854775808}', False),
    ("int below int64", b'{"n": -9223372036854775809}', False),
    ("int at the int64 limits", b'{"n": 9223372036854775807}', True),
    ("small int into a double column", b'{"d": 3}', True),
    ("int beyond 2**53 into a double column", b'{"d": 9007199254740993}', False),
    ("huge int into a double column", b'{"d": 123456789012345678901234567890}', False),
    ("NaN", b'{"d": NaN}', True),
    ("Infinity", b'{"d": Infinity}', False),
    ("double beyond the double range", b'{"d": 1e400}', False),
    ("negative zero", b'{"d": -0.0, "n": -0}', True),
    ("duplicate keys", b'{"n": 1, "n": 2}', False),
    ("duplicate keys of two types", b'{"n": 1, "n": "x"}', False),
    ("unknown top-level field", b'{"z": 1}', False),
    ("unknown nested field", b'{"o": {"k": 1, "z": 2}}', False),
    ("missing nested field", b'{"o": {}}', True),
    ("null nested object", b'{"o": null, "a": null}', True),
    ("object into an array column", b'{"a": {"k": 1}}', False),
    ("unicode escapes and a surrogate pair", b'{"s": "\\u00e9\\ud83d\\ude00\\u0000"}', True),
    ("lone surrogate escape", b'{"s": "\\ud800"}', False),
    ("lone low surrogate escape", b'{"s": "\\udc00"}', False),
    ("invalid UTF-8", b'{"s": "\xff"}', False),
    ("UTF-8 encoded surrogate", b'{"s": "\xed\xa0\x80"}', False),
    ("byte order mark", b'\xef\xbb\xbf{"n": 2}', False),
    ("two objects in one value", b'{"n": 2}{"n": 3}', False),
    ("not an object", b'"text"', False),
    ("blanks around the object", b' \t{"n": 2}\t ', True),
]


@pytest.mark.parametrize(("odd", "taken"), [case[1:] for case in COERCIONS], ids=[case[0] for case in COERCIONS])
def test_a_value_pyarrow_and_fits_may_disagree_on_gives_the_record_path_files(
    odd: bytes, taken: bool, tmp_path: Path, columnar_calls: Spy
) -> None:
    values: list[bytes | None] = [FIRST, b'{"n": 2}', odd, b'{"s": "y", "n": 3}']
    batches = [kafka_batch(values, first_offset=10)]
    make = _parquet("NOPARTITION STOREAS PARQUET", **{"connect.memory.error.policy": "NOOP"})
    assert_same_outcomes(*both_outcomes(make, batches, tmp_path, columnar_calls))
    assert columnar_calls == [taken]


@pytest.mark.parametrize("first", [b'{"n": 1, "z": null}', b'{"n": 1, "e": {}}', b'{"n": 1, "l": []}'])
def test_a_null_typed_field_in_the_first_record_sends_the_batch_record_by_record(
    first: bytes, tmp_path: Path, columnar_calls: Spy
) -> None:
    values = [first, b'{"n": 2}', b'{"n": 3}']
    _compare(tmp_path, columnar_calls, "NOPARTITION STOREAS PARQUET", [kafka_batch(values, first_offset=10)])
    assert columnar_calls == [False]


@pytest.mark.parametrize(
    "kcql_tail",
    [
        "PARTITIONBY amount STOREAS PARQUET",  # a double renders differently for 1 and 1.0
        "PARTITIONBY customer STOREAS PARQUET",  # a struct: poison on the per-record path
        "PARTITIONBY missing STOREAS PARQUET",
        "PARTITIONBY lines.0 STOREAS PARQUET",
        "PARTITIONBY _key STOREAS PARQUET",
        "PARTITIONBY _header.h STOREAS PARQUET",
        "PARTITIONBY _date.uuuu STOREAS PARQUET",
        "STOREAS PARQUET PROPERTIES('store.envelope'=true)",
    ],
)
def test_layouts_the_columnar_path_cannot_prove_stay_on_the_record_path(
    kcql_tail: str, tmp_path: Path, columnar_calls: Spy
) -> None:
    _compare(
        tmp_path, columnar_calls, kcql_tail, [kafka_batch(_orders(40))], **{"connect.memory.error.policy": "NOOP"}
    )
    assert columnar_calls == [False]


def test_a_partition_field_null_in_some_record_sends_the_batch_record_by_record(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    values = _orders(30)
    values[12] = json.dumps({"id": 12, "country": None}).encode()
    _compare(tmp_path, columnar_calls, "PARTITIONBY country STOREAS PARQUET", [kafka_batch(values)])
    assert columnar_calls == [False]


_NORMAL = {
    "id": st.integers(-(2**40), 2**40),
    "country": st.sampled_from(COUNTRIES),
    "amount": st.floats(allow_nan=False, allow_infinity=False, width=32),
    "ok": st.booleans(),
    "tags": st.lists(st.text(max_size=4), max_size=3),
    "inner": st.fixed_dictionaries({"a": st.integers(0, 9), "b": st.text(max_size=5)}),
}
_ODD = st.one_of(
    st.none(), st.integers(-5, 2**65), st.text(max_size=3), st.booleans(), st.floats(width=32),
    st.just({"a": 1, "zz": 2}), st.just({}), st.just([1.5]),
)


@st.composite
def _documents(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly an order of the uniform shape; sometimes a field missing, null, retyped or extra."""
    document: dict[str, Any] = {}
    for name, normal in _NORMAL.items():
        roll = draw(st.integers(0, 99))
        if roll < 90:
            document[name] = draw(normal)
        elif roll < 95:
            document[name] = draw(_ODD)
        # else the field is missing
    if draw(st.integers(0, 99)) < 3:
        document["extra"] = draw(_ODD)
    return document


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    documents=st.lists(_documents(), min_size=1, max_size=60),
    cuts=st.lists(st.integers(1, 59), max_size=2),
    count=st.integers(2, 40),
    size=st.integers(40, 3000),
    layout=st.sampled_from(["PARTITIONBY country", "NOPARTITION", "PARTITIONBY inner.a, ok"]),
)
def test_generated_batches_give_the_same_files_on_both_paths(
    documents: list[dict[str, Any]], cuts: list[int], count: int, size: int, layout: str,
    tmp_path_factory: pytest.TempPathFactory, columnar_calls: Spy,
) -> None:
    values: list[bytes | None] = [json.dumps(document).encode() for document in documents]
    bounds = sorted({0, len(values), *(cut for cut in cuts if cut < len(values))})
    batches = [kafka_batch(values[a:b], first_offset=a) for a, b in zip(bounds, bounds[1:], strict=False)]
    kcql = f"{layout} STOREAS PARQUET PROPERTIES('flush.count'={count}, 'flush.size'={size})"
    make = _parquet(kcql, **{"connect.memory.error.policy": "NOOP"})
    assert_same_outcomes(*both_outcomes(make, batches, tmp_path_factory.mktemp("generated"), columnar_calls))
    columnar_calls.clear()
