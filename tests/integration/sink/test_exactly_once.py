"""Exactly-once across re-runs, task failures, lost checkpoints, a second sink and a Lenses index.

Restarts and replays run on both paths: ``once`` (batches planned on the driver) and ``stream``
(the continuous streaming query, stopped once it drained the topic).
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.kafka.group_offsets import GroupOffsets, connect_group_id, read_group
from lakesink.adapters.storage import open_store
from lakesink.application.bootstrap.sink import sink_run
from lakesink.domain.commit.locks import CopyOp, DeleteOp, IndexLock, PendingState, decode_lock, encode_lock
from lakesink.domain.commit.range_plans import plans_prefix
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import CommitConflictError, ConfigError, RecordError
from lakesink.domain.ports import ObjectStore, iter_objects
from tests.integration.sink.conftest import assert_exactly_once, data_keys, local_props, produce_ids, run_sink
from tests.support.faulty_store import ConditionsIgnored, CrashBeforeCommit, FailingUploads

pytestmark = [pytest.mark.integration, pytest.mark.slow]

BOTH_PATHS = pytest.mark.parametrize("once", [True, False], ids=["once", "stream"])


def _setup(tmp_path: Path, kafka: EmbeddedKafka, topic: str, clause: str = "", **extra: str) -> tuple[dict[str, str], ObjectStore]:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    # flush.interval lets a continuous run admit the partitions left with fewer than 4 records
    kcql = (
        f"INSERT INTO bkt:out SELECT * FROM {topic} {clause} STOREAS `JSON` "
        "PROPERTIES('flush.count'=4, 'flush.interval'=1)"
    )
    props = local_props(tmp_path / "store", kcql, topic, kafka, **extra)
    settings = ConnectorSettings.from_properties(props)
    return props, open_store(settings.backend, settings.storage)


def _stored_ids(store: ObjectStore) -> list[int]:
    return [json.loads(line)["id"] for key in data_keys(store, "bkt") for line in store.get("bkt", key).data.splitlines()]


def _master(store: ObjectStore, props: dict[str, str], topic: str, partition: int) -> IndexLock:
    key = f".indexes/{props['name']}/.locks/Topic({topic})/{partition}.lock"
    return decode_lock(store.get("bkt", key).data)


def test_running_once_twice_writes_nothing_new_the_second_time(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic)
    produce_ids(kafka, topic, range(20))

    first_job = run_sink(spark, props, tmp_path / "ck")
    first = data_keys(store, "bkt")
    assert [r.ranges for r in first_job.reports] == [4]  # one batch, one range per partition
    assert sum(r.records for r in first_job.reports) == 20
    second_job = run_sink(spark, props, tmp_path / "ck")

    assert data_keys(store, "bkt") == first
    assert sum(r.records for r in second_job.reports) == 0
    assert_exactly_once(_stored_ids(store), range(20))
    assert _master(store, props, topic, 0).committed_offset == 4
    assert list(iter_objects(store, "bkt", f".indexes/{props['name']}/.plans/")) == []


@BOTH_PATHS
def test_new_records_after_a_restart_without_checkpoint_continue_from_the_index(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, once: bool
) -> None:
    props, store = _setup(tmp_path, kafka, topic)
    client, group_id = {"bootstrap.servers": kafka.bootstrap_servers}, connect_group_id(props["name"])
    partitions = [(topic, p) for p in range(4)]
    produce_ids(kafka, topic, range(20))
    run_sink(spark, props, tmp_path / "ck", once=once)
    # the group follows the index, for lag tools: the next offset to read, as Kafka Connect commits it
    assert read_group(client, group_id, partitions, timeout_s=10) == dict.fromkeys(partitions, 5)
    shutil.rmtree(tmp_path / "ck", ignore_errors=True)
    produce_ids(kafka, topic, range(20, 32))
    wrong = GroupOffsets(client, group_id)  # advisory only: a group ahead or behind changes nothing
    wrong.commit({partitions[0]: 100, partitions[1]: 0, partitions[2]: 2})
    wrong.close()

    job = run_sink(spark, props, tmp_path / "ck", once=once)

    assert sum(r.skipped for r in job.reports) == 0  # nothing read again
    assert_exactly_once(_stored_ids(store), range(32))
    assert read_group(client, group_id, partitions, timeout_s=10) == dict.fromkeys(partitions, 8)


def _faults(tmp_path: Path, store: ObjectStore, times: int) -> FailingUploads:
    directory = tmp_path / "faults"
    directory.mkdir()
    return FailingUploads(store, str(directory), times=times)


def test_a_task_that_fails_after_its_uploads_is_retried_by_spark_and_lands_exactly_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic)
    produce_ids(kafka, topic, range(20))
    fault = _faults(tmp_path, store, times=1)

    job = run_sink(spark, props, tmp_path / "ck", store=fault)

    assert fault.failed_attempts() and set(fault.failed_attempts().values()) == {1}
    assert_exactly_once(_stored_ids(store), range(20))
    assert sum(r.records for r in job.reports) == 20


def test_failures_that_outlast_sparks_task_retries_are_retried_by_the_retry_policy(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(
        tmp_path, kafka, topic, **{"connect.local.error.policy": "RETRY", "connect.local.retry.interval": "10"}
    )
    produce_ids(kafka, topic, range(20))
    # Spark tries a task twice (local[2,2]): a range whose first three attempts fail fails the batch
    # once, and only the RETRY policy's re-run of the batch can finish it.
    fault = _faults(tmp_path, store, times=3)

    job = run_sink(spark, props, tmp_path / "ck", store=fault)

    assert 3 in fault.failed_attempts().values(), "the policy's re-run must have been needed"
    assert_exactly_once(_stored_ids(store), range(20))
    assert sum(r.records for r in job.reports) == 20


@BOTH_PATHS
def test_a_batch_failing_under_throw_stops_the_sink_and_a_restart_finishes_it_exactly_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, once: bool
) -> None:
    props, store = _setup(tmp_path, kafka, topic)
    produce_ids(kafka, topic, range(20))

    with pytest.raises(Exception, match="fault injection"):
        run_sink(spark, props, tmp_path / "ck", store=_faults(tmp_path, store, times=2), once=once)
    run_sink(spark, props, tmp_path / "ck", once=once)  # a stream replays the batch from its checkpoint

    assert_exactly_once(_stored_ids(store), range(20))


@pytest.mark.parametrize("crash_once", [True, False], ids=["crashed-once", "crashed-stream"])
@pytest.mark.parametrize("once", [True, False], ids=["replay-once", "replay-stream"])
def test_a_pending_plan_forces_the_same_batch_after_the_checkpoint_is_lost(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, crash_once: bool, once: bool
) -> None:
    props, store = _setup(tmp_path, kafka, topic)
    produce_ids(kafka, topic, range(18))
    with pytest.raises(Exception, match="simulated crash"):
        run_sink(spark, props, tmp_path / "ck", once=crash_once, store=CrashBeforeCommit(store))
    uploaded = data_keys(store, "bkt")
    assert uploaded and list(iter_objects(store, "bkt", plans_prefix(".indexes", props["name"], topic, 0)))
    shutil.rmtree(tmp_path / "ck", ignore_errors=True)
    produce_ids(kafka, topic, range(18, 30))  # more data: a fresh plan would cut files differently

    job = run_sink(spark, props, tmp_path / "ck", once=once)

    assert set(uploaded) <= set(data_keys(store, "bkt"))
    assert_exactly_once(_stored_ids(store), range(30))
    assert len(job.reports) >= 2  # the replayed batch, then the rest


def test_a_second_sink_with_the_same_name_fences_the_first(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic)
    produce_ids(kafka, topic, range(8))
    run_sink(spark, props, tmp_path / "ck-a")
    settings = ConnectorSettings.from_properties(props)
    old = sink_run(settings, spark, checkpoint_dir=str(tmp_path / "ck-a"), once=True)
    old.prepare()
    new = sink_run(settings, spark, checkpoint_dir=str(tmp_path / "ck-b"), once=True)
    new.prepare()  # claims every lock
    produce_ids(kafka, topic, range(8, 16))

    with pytest.raises(CommitConflictError, match="another writer"):
        old.run(timeout_s=120)
    new.run(timeout_s=120)

    assert_exactly_once(_stored_ids(store), range(16))


def test_a_store_that_ignores_conditional_writes_is_refused_before_anything_is_written(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic)
    produce_ids(kafka, topic, range(4))

    with pytest.raises(ConfigError, match="ignores conditional writes on bucket bkt .*If-None-Match.*If-Match"):
        run_sink(spark, props, tmp_path / "ck", store=ConditionsIgnored(store))
    assert list(iter_objects(store, "bkt")) == []  # no data, no lock, no probe left behind


def test_single_writer_mode_runs_exactly_once_on_a_store_that_ignores_conditional_writes(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    props, store = _setup(tmp_path, kafka, topic, **{"connect.local.exactly.once.single.writer": "true"})
    lying = ConditionsIgnored(store)
    produce_ids(kafka, topic, range(12))

    with caplog.at_level(logging.WARNING, logger="lakesink.application.sink_run"):
        run_sink(spark, props, tmp_path / "ck", store=lying)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len([w for w in warnings if "no fencing of a second writer" in w]) == 1
    shutil.rmtree(tmp_path / "ck", ignore_errors=True)  # a restart from the index alone, on the same lying store
    produce_ids(kafka, topic, range(12, 20))
    run_sink(spark, props, tmp_path / "ck", store=lying, once=False)

    assert_exactly_once(_stored_ids(store), range(20))
    assert list(iter_objects(store, "bkt", f".indexes/{props['name']}/.probes/")) == []


def test_resume_from_a_lenses_index_with_granular_locks_and_a_pending_copy(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic, "PARTITIONBY region")
    produce_ids(kafka, topic, range(16))  # partition 0 holds ids 0,4,8,12 (region r0), offsets 0..3
    root = f".indexes/{props['name']}/.locks/Topic({topic})"
    lenses_file = f"out/region=r0/{topic}(0_000000000001).json"
    temp = f".temp-upload/Topic({topic})/0/uuid{lenses_file}"
    etag = store.put("bkt", temp, b'{"id":0,"region":"r0","n":0}\n{"id":4,"region":"r0","n":4}\n')
    # Lenses crashed mid-commit on partition 0: the copy of offsets 0..1 to its final key is pending;
    # its granular lock says the writer region=r0 stored up to offset 1, the master is still at null.
    pending = PendingState(1, (CopyOp("bkt", temp, lenses_file, etag), DeleteOp("bkt", temp, etag)))
    store.put("bkt", f"{root}/0.lock", encode_lock(IndexLock("lenses", None, pending)))
    store.put("bkt", f"{root}/0/region=r0.lock", encode_lock(IndexLock("lenses", 1, None)))
    # partition 1 was fully committed by Lenses up to offset 1 (ids 1 and 5) at its master lock.
    store.put("bkt", f"out/region=r1/{topic}(1_000000000001).json", b'{"id":1}\n{"id":5}\n')
    store.put("bkt", f"{root}/1.lock", encode_lock(IndexLock("lenses", 1, None)))

    run_sink(spark, props, tmp_path / "ck")

    assert store.head("bkt", lenses_file).size > 0
    assert list(iter_objects(store, "bkt", ".temp-upload/")) == []
    assert_exactly_once(_stored_ids(store), range(16))
    assert _master(store, props, topic, 0).committed_offset == 3


def test_lenses_9_0_0_master_lock_is_migrated(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic)
    produce_ids(kafka, topic, range(8))
    store.put("bkt", f"out/{topic}/0/000000000000_1_1.json", b'{"id":0}\n')
    store.put("bkt", f".indexes/.locks/Topic({topic})/0.lock", encode_lock(IndexLock("lenses", 0, None)))

    run_sink(spark, props, tmp_path / "ck")

    assert list(iter_objects(store, "bkt", ".indexes/.locks/")) == []
    assert_exactly_once(_stored_ids(store), range(8))


@BOTH_PATHS
def test_at_least_once_mode_uses_no_index_and_resumes_from_the_consumer_group(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, once: bool
) -> None:
    props, store = _setup(tmp_path, kafka, topic, **{"connect.local.exactly.once.enable": "false"})
    produce_ids(kafka, topic, range(12))
    run_sink(spark, props, tmp_path / "ck", once=once)
    shutil.rmtree(tmp_path / "ck", ignore_errors=True)
    produce_ids(kafka, topic, range(12, 20))

    run_sink(spark, props, tmp_path / "ck", once=once)

    assert list(iter_objects(store, "bkt", ".indexes/")) == []
    assert_exactly_once(_stored_ids(store), range(20))


def test_skip_null_values_drops_tombstones(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic, **{"connect.local.skip.null.values": "true"})
    produce_ids(kafka, topic, range(8))
    kafka.produce(topic, [ProducedRecord(None, key=b"gone", partition=p) for p in range(4)])

    job = run_sink(spark, props, tmp_path / "ck")

    assert_exactly_once(_stored_ids(store), range(8))
    assert sum(r.skipped for r in job.reports) == 4


def _produce_with_poison(kafka: EmbeddedKafka, topic: str) -> None:
    """A record that is not JSON; PARTITIONBY region makes the sink decode every value."""
    produce_ids(kafka, topic, range(8))
    kafka.produce(topic, [ProducedRecord(b"{not json", partition=2)])  # offset 2 of partition 2
    produce_ids(kafka, topic, range(8, 12))


def test_a_poison_record_under_throw_fails_naming_the_record_and_the_setting(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic, "PARTITIONBY region")
    _produce_with_poison(kafka, topic)

    with pytest.raises(RecordError, match=rf"{topic}-2@2.*JsonConverter cannot decode.*errors\.tolerance=all"):
        run_sink(spark, props, tmp_path / "ck")


def test_a_poison_record_under_noop_is_skipped_and_the_rest_is_written_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic, "PARTITIONBY region", **{"connect.local.error.policy": "NOOP"})
    _produce_with_poison(kafka, topic)

    job = run_sink(spark, props, tmp_path / "ck")

    assert_exactly_once(_stored_ids(store), range(12))
    assert sum(r.poison for r in job.reports) == 1
    assert _master(store, props, topic, 2).committed_offset == 3
