"""One partition's backlog split into chunks: several tasks, files cut at chunk ends, exactly once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.storage import open_store
from lakesink.domain.commit.range_plans import decode_plan, plans_prefix
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore, iter_objects
from tests.integration.sink.conftest import assert_exactly_once, data_keys, local_props, run_sink
from tests.support.faulty_store import CrashBeforeCommit, FailingUploads

pytestmark = [pytest.mark.integration, pytest.mark.slow]

RECORDS = 3000
SPLIT = 500


def _setup(
    tmp_path: Path, kafka: EmbeddedKafka, topic: str, split: int
) -> tuple[dict[str, str], ObjectStore]:
    """A sink of partition 0 (offset i holds id i) into JSON files of at most 200 records.

    flush.interval lets a continuous run admit a tail of fewer than 200 records.
    """
    (tmp_path / "store" / "bkt").mkdir(parents=True, exist_ok=True)
    kcql = (
        f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `JSON` "
        "PROPERTIES('flush.count'=200, 'flush.interval'=1)"
    )
    props = local_props(
        tmp_path / "store", kcql, topic, kafka, **{"connect.local.range.split.offsets": str(split)}
    )
    settings = ConnectorSettings.from_properties(props)
    return props, open_store(settings.backend, settings.storage)


def _produce(kafka: EmbeddedKafka, topic: str, ids: range) -> None:
    kafka.produce(topic, [ProducedRecord(json.dumps({"id": i}).encode(), partition=0) for i in ids])


def _ids_per_file(store: ObjectStore) -> dict[str, list[int]]:
    return {
        key: [json.loads(line)["id"] for line in store.get("bkt", key).data.splitlines()]
        for key in data_keys(store, "bkt")
    }


def _stored_ids(store: ObjectStore) -> list[int]:
    return [i for ids in _ids_per_file(store).values() for i in ids]


def _plans(store: ObjectStore, props: dict[str, str], topic: str) -> list[str]:
    return [info.key for info in iter_objects(store, "bkt", plans_prefix(".indexes", props["name"], topic, 0))]


def test_one_partition_is_written_by_one_task_per_chunk_with_files_cut_at_chunk_ends(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic, SPLIT)
    _produce(kafka, topic, range(RECORDS))

    job = run_sink(spark, props, tmp_path / "ck")

    assert [r.ranges for r in job.reports] == [RECORDS // SPLIT]
    assert sum(r.records for r in job.reports) == RECORDS
    assert_exactly_once(_stored_ids(store), range(RECORDS))
    for key, ids in _ids_per_file(store).items():
        assert min(ids) // SPLIT == max(ids) // SPLIT, f"{key} crosses a chunk boundary"
    lock = store.get("bkt", f".indexes/{props['name']}/.locks/Topic({topic})/0.lock").data
    assert json.loads(lock)["committedOffset"] == RECORDS - 1
    assert _plans(store, props, topic) == []


def test_a_chunk_task_failing_after_its_uploads_is_retried_and_lands_exactly_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic, SPLIT)
    _produce(kafka, topic, range(RECORDS))
    (tmp_path / "faults").mkdir()
    fault = FailingUploads(store, str(tmp_path / "faults"), times=1)

    job = run_sink(spark, props, tmp_path / "ck", store=fault)

    assert list(fault.failed_attempts().values()) == [1]  # one chunk task of the partition failed, once
    assert_exactly_once(_stored_ids(store), range(RECORDS))
    assert sum(r.records for r in job.reports) == RECORDS


def _forget_every_other_chunk(store: ObjectStore, props: dict[str, str], topic: str) -> None:
    """Leave the state of a crash while tasks ran: only some chunks planned and uploaded."""
    for number, key in enumerate(_plans(store, props, topic)):
        if number % 2:
            plan = decode_plan(store.get("bkt", key).data, key=key)
            for data_key, ids in _ids_per_file(store).items():
                if plan.start <= min(ids) <= plan.last:
                    store.delete("bkt", data_key)
            store.delete("bkt", key)


@pytest.mark.parametrize(
    ("crash_once", "once"),
    [(False, False), (False, True), (True, False), (True, True)],
    # either mode replays the crashed batch from its pending plans (no Spark checkpoint is kept)
    ids=["stream-then-stream", "stream-then-once", "once-then-stream", "once-then-once"],
)
def test_a_crashed_split_batch_is_replayed_with_another_split_size_writing_each_record_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, crash_once: bool, once: bool
) -> None:
    props, store = _setup(tmp_path, kafka, topic, SPLIT)
    _produce(kafka, topic, range(RECORDS))
    with pytest.raises(Exception, match="simulated crash"):
        run_sink(spark, props, tmp_path / "ck", once=crash_once, store=CrashBeforeCommit(store))
    assert not (tmp_path / "ck").exists()
    _forget_every_other_chunk(store, props, topic)
    uploaded = {key: store.get("bkt", key).data for key in data_keys(store, "bkt")}
    assert uploaded and len(_plans(store, props, topic)) == RECORDS // SPLIT // 2
    _produce(kafka, topic, range(RECORDS, RECORDS + 100))

    replay_props, _ = _setup(tmp_path, kafka, topic, 700)
    run_sink(spark, {**replay_props, "name": props["name"]}, tmp_path / "ck", once=once)

    assert all(store.get("bkt", key).data == body for key, body in uploaded.items())
    assert_exactly_once(_stored_ids(store), range(RECORDS + 100))
    assert _plans(store, props, topic) == []
