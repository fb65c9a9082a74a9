"""Kafka batches through :func:`run_task` on both write paths, for the columnar-path tests.

Each comparison runs the same batches twice — once as they are, once with the columnar paths
switched off — into two in-memory stores; the caller compares every object. A spy records what
the columnar dispatch answered for each batch, so a path that silently never runs fails a test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakesink.adapters.kafka.partition_reader import arrow_schema
from lakesink.adapters.spark import sink_task
from lakesink.adapters.spark.sink_task import run_task
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.spark.task_results import result_of
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.domain.commit.range_results import first_failure
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import LakesinkError
from lakesink.domain.statement_plan import plan_sink

BUCKET = "lake"
TOPIC = "orders"
TS0 = 1_700_000_000_000
TIMESTAMP = pa.timestamp("us", tz="UTC")
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
SELECT = f"INSERT INTO {BUCKET}:out SELECT * FROM {TOPIC}"
Objects = dict[str, bytes]
Rows = list[dict[str, Any]]
Spy = list[bool]


def kafka_batch(values: Sequence[bytes | None], *, partition: int = 0, first_offset: int = 0) -> pa.RecordBatch:
    """One batch of the Kafka source; timestamps out of order on purpose (file names carry the span)."""
    rows = len(values)
    return pa.RecordBatch.from_arrays(
        [
            pa.array([f"k{i % 3}".encode() for i in range(rows)], pa.binary()),
            pa.array(values, pa.binary()),
            pa.array([TOPIC] * rows, pa.string()),
            pa.array([partition] * rows, pa.int32()),
            pa.array(range(first_offset, first_offset + rows), pa.int64()),
            pa.array([(TS0 + (i * 7919) % 1000 * 1000) * 1000 for i in range(rows)], TIMESTAMP),
            pa.array([0] * rows, pa.int32()),
            pa.array([[{"key": "h", "value": b"v"}]] * rows, arrow_schema().field("headers").type),
        ],
        schema=arrow_schema(),
    )


def task_spec(
    kcql: str, root: Path, converter: str = JSON_CONVERTER, *, floor: int | None = 4, **extra: str
) -> SinkTaskSpec:
    """A task spec over a fresh in-memory store; records at or below ``floor`` are already durable."""
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
        settings, plan=plan_sink(settings), store=store, run_id="run-1", staging_root=str(root),
        floors={} if floor is None else {(TOPIC, 0): floor},
    )


def stored_objects(store: InMemoryObjectStore) -> Objects:
    keys = [info.key for page in store.list_pages(BUCKET) for info in page.objects]
    return {key: store.get(BUCKET, key).data for key in keys if not key.startswith(".indexes/")}


def run_batches(spec: SinkTaskSpec, batches: Sequence[pa.RecordBatch]) -> tuple[Objects, Rows]:
    """The objects and result rows of one task; a failed range's error raised, as the driver raises it."""
    rows = [row for out in run_task(spec, iter(batches)) for row in out.to_pylist()]
    failure = first_failure(result_of(row) for row in rows)
    if failure is not None:
        raise failure
    return stored_objects(spec.store), rows  # type: ignore[arg-type]




Outcome = tuple[Objects, Rows] | type[LakesinkError]
"""What a run gave: the objects and result rows, or the kind of error that stopped it."""


def both_outcomes(
    make_spec: Callable[[Path], SinkTaskSpec], batches: Sequence[pa.RecordBatch], tmp_path: Path, calls: Spy
) -> tuple[Outcome, Outcome]:
    """What the batches give with the columnar paths on, then with them off."""
    fast = _outcome(make_spec(tmp_path / "fast"), batches)
    taken = list(calls)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sink_task, "write_lines", lambda *args: False)
        slow = _outcome(make_spec(tmp_path / "slow"), batches)
    calls[:] = taken
    return fast, slow


def _outcome(spec: SinkTaskSpec, batches: Sequence[pa.RecordBatch]) -> Outcome:
    try:
        return run_batches(spec, batches)
    except LakesinkError as error:
        return type(error)


def both_paths(
    make_spec: Callable[[Path], SinkTaskSpec], batches: Sequence[pa.RecordBatch], tmp_path: Path, calls: Spy
) -> tuple[Objects, Rows, Objects, Rows]:
    """(objects, result rows) with the columnar paths on, then with them off; neither may fail."""
    fast, slow = both_outcomes(make_spec, batches, tmp_path, calls)
    assert isinstance(fast, tuple) and isinstance(slow, tuple), (fast, slow)
    return (*fast, *slow)


def assert_same_outcomes(fast: Outcome, slow: Outcome) -> None:
    """The same error, or the same objects and result rows."""
    if not (isinstance(fast, tuple) and isinstance(slow, tuple)):
        assert fast == slow
        return
    assert_same_objects(fast[0], slow[0])
    assert fast[1] == slow[1]


def assert_same_objects(fast: Objects, slow: Objects) -> None:
    assert sorted(fast) == sorted(slow)
    for key in slow:
        assert fast[key] == slow[key], key
