"""The columnar write path gives the same objects, keys and bytes as the per-record path.

Each test runs the same Kafka batches through :func:`run_task` twice — once as it is, once with
the columnar path switched off — into two in-memory stores, and compares every object. A spy
checks the columnar path really took (or really declined) the batches, so a path that silently
never runs fails the test.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakesink.adapters.kafka.partition_reader import arrow_schema
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application import sink_task
from lakesink.application.sink_task import SinkTaskSpec, run_task
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.statement_plan import plan_sink

BUCKET = "lake"
TOPIC = "orders"
TS0 = 1_700_000_000_000
TIMESTAMP = pa.timestamp("us", tz="UTC")
Objects = dict[str, bytes]
Rows = list[dict[str, Any]]


def _batch(values: Sequence[bytes | None], *, partition: int = 0, first_offset: int = 0) -> pa.RecordBatch:
    rows = len(values)
    return pa.RecordBatch.from_arrays(
        [
            pa.array([f"k{i % 3}".encode() for i in range(rows)], pa.binary()),
            pa.array(values, pa.binary()),
            pa.array([TOPIC] * rows, pa.string()),
            pa.array([partition] * rows, pa.int32()),
            pa.array(range(first_offset, first_offset + rows), pa.int64()),
            # Out of order on purpose: file names carry the smallest and largest timestamp.
            pa.array([(TS0 + (i * 7919) % 1000 * 1000) * 1000 for i in range(rows)], TIMESTAMP),
            pa.array([0] * rows, pa.int32()),
            pa.array([[{"key": "h", "value": b"v"}]] * rows, arrow_schema().field("headers").type),
        ],
        schema=arrow_schema(),
    )


def _json_values(rows: int, start: int = 0) -> list[bytes | None]:
    documents = ({"id": i, "country": f"c{i % 4}", "pad": "x" * (i % 13)} for i in range(start, start + rows))
    return [json.dumps(document).encode() for document in documents]


JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
SELECT = f"INSERT INTO {BUCKET}:out SELECT * FROM {TOPIC}"


def _spec(kcql: str, tmp_path: Path, converter: str = JSON_CONVERTER, **extra: str) -> SinkTaskSpec:
    settings = ConnectorSettings.from_properties(
        {
            "name": "columnar-test",
            "connect.memory.kcql": kcql,
            "topics": TOPIC,
            "value.converter": converter,
            "value.converter.schemas.enable": "false",
            **extra,
        },
        role="sink",
    )
    store = InMemoryObjectStore()
    store.create_bucket(BUCKET)
    return SinkTaskSpec.for_settings(
        settings, plan=plan_sink(settings), store=store, run_id="run-1", staging_root=str(tmp_path),
        floors={(TOPIC, 0): 4},
    )


def _objects(store: InMemoryObjectStore) -> Objects:
    keys = [info.key for page in store.list_pages(BUCKET) for info in page.objects]
    return {key: store.get(BUCKET, key).data for key in keys if not key.startswith(".indexes/")}


def _run(spec: SinkTaskSpec, batches: Sequence[pa.RecordBatch]) -> tuple[Objects, Rows]:
    rows = [row for out in run_task(spec, iter(batches)) for row in out.to_pylist()]
    return _objects(spec.store), rows  # type: ignore[arg-type]


Spy = list[bool]


@pytest.fixture
def columnar_calls(monkeypatch: pytest.MonkeyPatch) -> Spy:
    """Records what the columnar path answered for each batch."""
    calls: Spy = []
    real = sink_task._write_lines

    def spy(*args: Any) -> bool:
        taken = real(*args)
        calls.append(taken)
        return taken

    monkeypatch.setattr(sink_task, "_write_lines", spy)
    return calls


def _both_paths(
    make_spec: Callable[[Path], SinkTaskSpec], batches: Sequence[pa.RecordBatch], tmp_path: Path, calls: Spy
) -> tuple[Objects, Rows, Objects, Rows]:
    fast, fast_rows = _run(make_spec(tmp_path / "fast"), batches)
    taken = list(calls)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sink_task, "_write_lines", lambda *args: False)
        slow, slow_rows = _run(make_spec(tmp_path / "slow"), batches)
    calls[:] = taken
    return fast, fast_rows, slow, slow_rows


def _assert_same(fast: Objects, slow: Objects) -> None:
    assert list(fast) == list(slow)
    for key in slow:
        assert fast[key] == slow[key], key


def test_json_files_roll_at_the_same_records_by_count(tmp_path: Path, columnar_calls: Spy) -> None:
    batches = [_batch(_json_values(700)), _batch(_json_values(650, 700), first_offset=700)]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(f"{SELECT} STOREAS JSON PROPERTIES('flush.count'=300)", root)

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True, True]
    _assert_same(fast, slow)
    assert len(slow) == 5  # 1346 records after the floor: 300 × 4 + 146
    assert fast_rows == slow_rows
    assert slow_rows[0]["skipped"] == 5 and slow_rows[0]["records"] == 1345


def test_json_files_roll_at_the_same_records_by_size(tmp_path: Path, columnar_calls: Spy) -> None:
    batches = [_batch(_json_values(400)), _batch(_json_values(333, 400), first_offset=400)]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(
            f"{SELECT} STOREAS JSON PROPERTIES('flush.size'=5000)",
            root,
            converter="org.apache.kafka.connect.converters.ByteArrayConverter",
        )

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True, True]
    _assert_same(fast, slow)
    sizes = [len(data) for data in slow.values()]
    last_lines = [len(data.rstrip(b"\n").rsplit(b"\n", 1)[-1]) + 1 for data in slow.values()]
    assert len(sizes) == 7 and all(size - last < 5000 <= size for size, last in zip(sizes[:-1], last_lines[:-1], strict=True))
    assert fast_rows == slow_rows


def test_text_partitioned_by_topic_and_partition_matches_the_record_path(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    values = [f"line {i}\twith\nbreak".encode() if i % 5 == 0 else b"" for i in range(90)]
    batches = [_batch(values[:50]), _batch(values[50:], first_offset=50), _batch(values, partition=1)]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(
            f"{SELECT} PARTITIONBY _topic, _partition STOREAS TEXT "
            "PROPERTIES('flush.count'=20, 'flush.size'=100)",
            root,
            converter="org.apache.kafka.connect.storage.StringConverter",
        )

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True, True, True]
    _assert_same(fast, slow)
    assert any(key.startswith("out/topic=orders/partition=1/") for key in slow)
    assert fast_rows == slow_rows


def test_batches_the_columnar_path_cannot_prove_go_record_by_record(
    tmp_path: Path, columnar_calls: Spy
) -> None:
    multiline = _json_values(30)
    multiline[12] = b'{"id": 12,\n "country": "c0"}'
    with_null = _json_values(30, 30)
    with_null[3] = None
    batches = [_batch(_json_values(30)), _batch(multiline, first_offset=30)]
    batches.append(_batch(with_null, first_offset=60))

    def make(root: Path) -> SinkTaskSpec:
        return _spec(
            f"{SELECT} NOPARTITION STOREAS JSON PROPERTIES('flush.count'=25)",
            root,
        )

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [True, False, False]
    _assert_same(fast, slow)
    assert b'{"id":12,"country":"c0"}\n' in b"".join(slow.values())
    assert b"null\n" in b"".join(slow.values())
    assert fast_rows == slow_rows


@pytest.mark.parametrize(
    ("kcql", "converter"),
    [
        (f"{SELECT} PARTITIONBY country STOREAS JSON", JSON_CONVERTER),
        (f"{SELECT} STOREAS JSON PROPERTIES('store.envelope'=true)", JSON_CONVERTER),
        (f"{SELECT} PARTITIONBY _key STOREAS JSON", JSON_CONVERTER),
        (f"{SELECT} PARTITIONBY _date.uuuu STOREAS JSON", JSON_CONVERTER),
        (f"{SELECT} STOREAS JSON", STRING_CONVERTER),
    ],
)
def test_statements_that_decode_or_read_fields_stay_on_the_record_path(
    kcql: str, converter: str, tmp_path: Path, columnar_calls: Spy
) -> None:
    batches = [_batch(_json_values(40))]
    fast, fast_rows, slow, slow_rows = _both_paths(
        lambda root: _spec(kcql, root, converter=converter), batches, tmp_path, columnar_calls
    )

    assert columnar_calls == [False]
    _assert_same(fast, slow)
    assert fast_rows == slow_rows


def test_gzipped_json_stays_on_the_record_path(tmp_path: Path, columnar_calls: Spy) -> None:
    batches = [_batch(_json_values(40))]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(f"{SELECT} STOREAS JSON", root, **{"connect.memory.compression.codec": "GZIP"})

    fast, fast_rows, slow, slow_rows = _both_paths(make, batches, tmp_path, columnar_calls)

    assert columnar_calls == [False]
    _assert_same(fast, slow)
    assert fast_rows == slow_rows

