"""The per-record sink path's shortcuts change no byte of the objects a task writes.

Every shortcut (routing and decode flags resolved once per range, partition values computed
once per range for topic/partition layouts, files asked for their room once instead of the
flush policy after every record, path-safe values returned as they are, JSON documents decoded
without encoding detection) is switched off by :func:`_general_path`, which puts back the
general computation; the same batches must give the same objects and result rows both ways.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakesink.adapters.formats import range_writer
from lakesink.adapters.kafka import converters
from lakesink.adapters.kafka.partition_reader import arrow_schema
from lakesink.adapters.spark import sink_task, task_ranges, task_results
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.domain.commit.lock_keys import granular_partition_key
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import RecordError
from lakesink.domain.flush.policy import FileStats
from lakesink.domain.layout import naming
from lakesink.domain.layout.key_segments import split_safe_value
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.statement_plan import plan_sink
from tests.support.sink_batches import (
    BUCKET,
    JSON_CONVERTER,
    TIMESTAMP,
    Objects,
    Rows,
    assert_same_objects,
    stored_objects,
)

STRING_KEYS = "org.apache.kafka.connect.storage.StringConverter"
Row = tuple[str, int, int, bytes | None]
"""topic, partition, offset, value."""


def _batch(rows: Sequence[Row]) -> pa.RecordBatch:
    """A Kafka batch whose rows may mix topics and partitions (run_task accepts any)."""
    count = len(rows)
    return pa.RecordBatch.from_arrays(
        [
            pa.array([f"k{offset % 5}".encode() for _, _, offset, _ in rows], pa.binary()),
            pa.array([value for *_, value in rows], pa.binary()),
            pa.array([topic for topic, *_ in rows], pa.string()),
            pa.array([partition for _, partition, *_ in rows], pa.int32()),
            pa.array([offset for _, _, offset, _ in rows], pa.int64()),
            pa.array(
                [(1_700_000_000_000 + (offset * 7919) % 1000) * 1000 for _, _, offset, _ in rows], TIMESTAMP
            ),
            pa.array([0] * count, pa.int32()),
            pa.array(
                [[{"key": "h", "value": f"v{offset % 3}".encode()}] for _, _, offset, _ in rows],
                arrow_schema().field("headers").type,
            ),
        ],
        schema=arrow_schema(),
    )


def _value(offset: int) -> bytes | None:
    """Orders, with tombstones, poison (not JSON), another shape (schema change) and odd countries."""
    if offset % 41 == 0:
        return None
    if offset % 53 == 0:
        return b"not json"
    if 120 <= offset < 130:
        return json.dumps({"other": offset}).encode()
    countries = ["DE", "FR", "a/b", "..", "x\\y", "tab\there", "", " ", "é"]
    order = {
        "id": offset,
        "country": countries[offset % len(countries)],
        "amount": offset * 0.5,
        "note": "n" * (offset % 30),
        "customer": {"tier": ["gold", None][offset % 2]},
    }
    if offset % 17 == 0:
        del order["country"]
    return json.dumps(order).encode()


def _rows(topic: str, partition: int, start: int, count: int) -> list[Row]:
    return [(topic, partition, offset, _value(offset)) for offset in range(start, start + count)]


def _interleaved(*parts: list[Row]) -> list[Row]:
    """Rows of several topic-partitions taken in turns, each in offset order."""
    mixed: list[Row] = []
    for group in zip(*parts, strict=False):
        mixed.extend(group)
    return mixed


def _spec(kcql: str, root: Path, topics: str, **extra: Any) -> SinkTaskSpec:
    settings = ConnectorSettings.from_properties(
        {
            "name": "shortcuts",
            "connect.memory.kcql": kcql,
            "topics": topics,
            "key.converter": STRING_KEYS,
            "value.converter": JSON_CONVERTER,
            "value.converter.schemas.enable": "false",
            "connect.memory.error.policy": "NOOP",
            "connect.memory.compression.codec": "UNCOMPRESSED",
        },
        role="sink",
    )
    store = InMemoryObjectStore()
    store.create_bucket(BUCKET)
    return SinkTaskSpec.for_settings(
        settings, plan=plan_sink(settings), store=store, run_id="run-1", staging_root=str(root), **extra
    )


def _run(spec: SinkTaskSpec, batches: Sequence[pa.RecordBatch]) -> tuple[Objects, Rows]:
    rows = [row for out in sink_task.run_task(spec, iter(batches)) for row in out.to_pylist()]
    return stored_objects(spec.store), sorted(rows, key=lambda row: (row["topic"], row["partition"]))


def _full_by_policy(self: Any) -> bool:
    """The flush policy asked after every record, as before files knew their room."""
    stats = FileStats(self.writer.record_count, self.writer.bytes_written, created_ms=0)
    return self.policy.reason(stats, now_ms=0) is not None


@contextmanager
def _general_path() -> Iterator[None]:
    """Every shortcut off: the general computation each shortcut replaces, for every record."""
    real_resolve, real_start = task_ranges.RangeState.resolve, range_writer.RangeWriter._start

    def resolve_every_time(self: task_ranges.RangeState, spec: SinkTaskSpec, root: Path) -> Any:
        route = real_resolve(self, spec, root)
        self.route = None  # asked again for the next record
        return route

    def start_with_policy(self: range_writer.RangeWriter, values: PartitionValues, first_offset: int) -> Any:
        opened = real_start(self, values, first_offset)
        opened.policy = self.plan.flush  # type: ignore[attr-defined]
        return opened

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sink_task, "write_lines", lambda *args: False)
        patch.setattr(task_ranges.RangeState, "resolve", resolve_every_time)
        patch.setattr(naming.KeyLayout, "coordinate_values", lambda self, topic, partition: None)
        patch.setattr(naming, "safe_value", split_safe_value)
        patch.setattr(range_writer.RangeWriter, "_start", start_with_policy)
        patch.setattr(range_writer._OpenFile, "full", _full_by_policy)
        patch.setattr(converters, "_json_document", json.loads)
        yield


def _both(
    make: Any, batches: Sequence[pa.RecordBatch], tmp_path: Path
) -> tuple[Objects, Rows, Objects, Rows]:
    """(objects, result rows) as shipped, then with every shortcut off."""
    fast = _run(make(tmp_path / "fast"), batches)
    with _general_path():
        slow = _run(make(tmp_path / "slow"), batches)
    return (*fast, *slow)


LAYOUTS = [
    pytest.param("STOREAS `AVRO` PROPERTIES('store.envelope'=true, 'flush.count'=70)", id="default-envelope"),
    pytest.param("STOREAS `AVRO` PROPERTIES('flush.size'=3000)", id="default-size"),
    pytest.param("NOPARTITION STOREAS `AVRO` PROPERTIES('flush.count'=50)", id="nopartition"),
    pytest.param(
        "PARTITIONBY _partition, _topic STOREAS `JSON` PROPERTIES('padding.length.partition'=4, 'flush.count'=60)",
        id="topic-partition-json",
    ),
    pytest.param("PARTITIONBY _value.country STOREAS `AVRO` PROPERTIES('flush.count'=25)", id="country"),
    pytest.param(
        "PARTITIONBY _value.customer.tier, _key, _header.h STOREAS `AVRO` PROPERTIES('flush.size'=2000)",
        id="nested-key-header",
    ),
    pytest.param("STOREAS `CSV_WITHHEADERS` PROPERTIES('flush.count'=80)", id="csv"),
]


@pytest.mark.parametrize("clause", LAYOUTS)
def test_mixed_topics_and_partitions_give_the_same_objects_as_the_general_path(
    tmp_path: Path, clause: str
) -> None:
    kcql = (
        f"INSERT INTO {BUCKET}:a SELECT * FROM orders {clause}; "
        f"INSERT INTO {BUCKET}:b SELECT * FROM refunds STOREAS `AVRO` PROPERTIES('flush.count'=40)"
    )
    first = _interleaved(
        _rows("orders", 0, 0, 200), _rows("orders", 1, 1000, 150), _rows("refunds", 0, 0, 120)
    )
    second = _rows("orders", 0, 200, 90) + _rows("stray", 0, 0, 3) + _rows("orders", 1, 1150, 40)
    batches = [_batch(first), _batch(second)]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(kcql, root, "orders,refunds", floors={("orders", 0): 9, ("refunds", 0): 30})

    fast, fast_rows, slow, slow_rows = _both(make, batches, tmp_path)

    assert_same_objects(fast, slow)
    assert fast_rows == slow_rows
    assert len(slow) > 6  # several rolls in several ranges
    by_range = {(row["topic"], row["partition"]): row for row in slow_rows}
    assert by_range[("stray", 0)]["poison"] == 3  # no statement takes it: each record is poison
    assert by_range[("orders", 0)]["skipped"] == 10 and by_range[("refunds", 0)]["poison"] > 0


def test_granular_locks_skip_the_same_records_with_per_range_partition_values(tmp_path: Path) -> None:
    kcql = f"INSERT INTO {BUCKET}:a SELECT * FROM orders STOREAS `AVRO` PROPERTIES('flush.count'=30)"
    name = granular_partition_key({"topic": "orders", "partition": "1"})
    assert name is not None
    batches = [_batch(_interleaved(_rows("orders", 0, 0, 100), _rows("orders", 1, 0, 100)))]

    def make(root: Path) -> SinkTaskSpec:
        return _spec(kcql, root, "orders", granular={("orders", 1): {name: 57}})

    fast, fast_rows, slow, slow_rows = _both(make, batches, tmp_path)

    assert_same_objects(fast, slow)
    assert fast_rows == slow_rows
    by_partition = {row["partition"]: row for row in slow_rows}
    assert by_partition[1]["skipped"] == 57 > by_partition[0]["skipped"]  # 0..57 but poison 53


def test_a_range_resolves_its_route_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kcql = f"INSERT INTO {BUCKET}:a SELECT * FROM orders STOREAS `AVRO`"
    resolved: list[tuple[str, int]] = []
    real = task_ranges.RangeState.resolve

    def counted(self: task_ranges.RangeState, spec: SinkTaskSpec, root: Path) -> Any:
        resolved.append((self.topic, self.partition))
        return real(self, spec, root)

    monkeypatch.setattr(task_ranges.RangeState, "resolve", counted)
    mixed = _interleaved(_rows("orders", 0, 1, 50), _rows("orders", 1, 1, 50))
    batches = [_batch(mixed), _batch(_rows("orders", 0, 51, 20))]

    _run(_spec(kcql, tmp_path, "orders"), batches)

    assert resolved == [("orders", 0), ("orders", 1)]


def test_an_unroutable_topic_stops_the_task_without_error_policy_noop_with_the_error_as_data(
    tmp_path: Path,
) -> None:
    kcql = f"INSERT INTO {BUCKET}:a SELECT * FROM orders STOREAS `AVRO`"
    spec = _spec(kcql, tmp_path, "orders")
    strict = SinkTaskSpec(**{**spec.__dict__, "skip_poison": False})

    objects, rows = _run(strict, [_batch(_rows("stray", 0, 0, 2))])

    assert objects == {}
    [result] = [task_results.result_of(row) for row in rows]
    assert (result.topic, result.partition, result.last, result.records) == ("stray", 0, 0, 0)
    assert result.failure is not None and result.failure.kind == "RecordError"
    error = result.failure.error()
    assert isinstance(error, RecordError)
    assert re.search(r"stray-0@0 cannot be written: Can't find the KCQL", str(error))
