"""The verify use case over an in-memory store: key sorting, the index read back, the report and its JSON."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.adapters.verify.contents import envelope_offsets, record_count
from lakesink.application.bootstrap.verify import load_verify_plan
from lakesink.application.verify import KafkaView, ObjectReaders, run_verify
from lakesink.domain.commit.lock_keys import master_lock_key, old_master_lock_key
from lakesink.domain.commit.locks import DeleteOp, IndexLock, PendingState, encode_lock
from lakesink.domain.commit.range_plans import RangePlan, encode_plan, plan_key
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import plan_sink
from lakesink.domain.verify.claims import Evidence
from lakesink.domain.verify.index_keys import locks_folder, master_lock_of, plan_of, plans_folder
from lakesink.domain.verify.keys import listing_roots
from lakesink.domain.verify.targets import VerifyPlan, lenses_targets, verify_plan
from tests.support.aiven_configs import CONSOLE_WITH_AWS
from tests.support.confluent_configs import COMPLETE

READERS = ObjectReaders(record_count, envelope_offsets)


def _plan(kcql: str, topics: str = "t", **extra: str) -> VerifyPlan:
    props = {
        "name": "s1",
        "connect.local.root": "/unused",
        "connect.local.kcql": kcql,
        "topics": topics,
        **extra,
    }
    settings = ConnectorSettings.from_properties(props, role="sink")
    return verify_plan(settings, lenses_targets(plan_sink(settings)))


def _lines(first: int, last: int, *, envelope: bool = False) -> bytes:
    if envelope:
        rows = (
            json.dumps({"value": {"id": i}, "metadata": {"offset": i, "partition": 0, "topic": "t"}})
            for i in range(first, last + 1)
        )
    else:
        rows = (json.dumps({"id": i}) for i in range(first, last + 1))
    return "".join(row + "\n" for row in rows).encode()


def _store() -> InMemoryObjectStore:
    store = InMemoryObjectStore()
    store.create_bucket("b")
    return store


def _lock(store: InMemoryObjectStore, topic: str, partition: int, committed: int) -> None:
    store.put(
        "b", master_lock_key(".indexes", "s1", topic, partition), encode_lock(IndexLock("u", committed))
    )


class _Offsets:
    def earliest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return dict.fromkeys(keys, 0)

    def latest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return dict.fromkeys(keys, 40)


def test_index_keys_read_back_as_the_commit_model_writes_them() -> None:
    locks, plans = locks_folder(".indexes", "s1"), plans_folder(".indexes", "s1")
    assert master_lock_of(locks, master_lock_key(".indexes", "s1", "my.topic-1", 12)) == ("my.topic-1", 12)
    assert master_lock_of(locks, locks + "Topic(t)/0/partition=0_topic=t.lock") is None
    assert plan_of(plans, plan_key(".indexes", "s1", "t", 3, 42)) == ("t", 3, 42)
    assert plan_of(plans, plans + "Topic(t)/3/notes.txt") is None


def test_a_root_inside_another_roots_prefix_is_listed_once() -> None:
    plan = _plan(
        "INSERT INTO b SELECT * FROM t STOREAS `JSON`; INSERT INTO b:x SELECT * FROM u STOREAS `JSON`", "t,u"
    )
    assert [(bucket, prefix) for bucket, prefix, _ in listing_roots(plan)] == [("b", "")]


def test_a_clean_store_verifies_clean_and_the_topic_end_gives_the_lag() -> None:
    store = _store()
    for last in (9, 19):
        store.put("b", f"p/t/0/{last:012d}_0_0.json", _lines(last - 9, last))
    _lock(store, "t", 0, 19)
    report = run_verify(
        _plan("INSERT INTO b:p SELECT * FROM t STOREAS `JSON`"),
        store,
        READERS,
        KafkaView((("t", 0), ("t", 1)), _Offsets()),
    )
    assert report.clean, report.to_text()
    first, second = report.partitions
    assert (first.facts.committed, first.records, first.lag, first.facts.topic_end) == (19, 20, 20, 40)
    assert (second.objects, second.lag) == (0, 40)  # a partition only Kafka knows
    assert report.listed == 2 and report.opened == 2


def test_damage_is_reported_and_the_json_document_lists_it() -> None:
    store = _store()
    for last in (9, 19, 29):
        store.put("b", f"p/t/0/{last:012d}_0_0.json", _lines(last - 9, last))
    store.delete("b", "p/t/0/000000000019_0_0.json")
    store.put("b", "p/t/0/000000000035_0_0.json", _lines(30, 35))  # beyond the lock, no plan
    store.put("b", "p/t/0/000000000045_0_0.json", _lines(40, 45))  # beyond the lock, pending
    store.put("b", plan_key(".indexes", "s1", "t", 0, 40), encode_plan(RangePlan("run", 40, 45)))
    store.put("b", "p/t/0/000000000050_0_0.avro", b"x")  # another extension
    store.put("b", "p/t/0/000000000051_0_0.json", b"")  # empty
    store.put("b", "p/notes.txt", b"hello")
    _lock(store, "t", 0, 29)
    plan = _plan("INSERT INTO b:p SELECT * FROM t STOREAS `JSON`")
    report = run_verify(plan, store, READERS, KafkaView(error="No Kafka broker answered"))
    assert not report.clean
    document = json.loads(report.to_json())
    assert document["schema"] == "lakesink.verify/1" and document["kafka"] == {
        "reachable": False,
        "error": "No Kafka broker answered",
    }
    (partition,) = document["partitions"]
    assert partition["gaps"] == [{"first": 10, "last": 19}]
    assert [o["key"] for o in partition["orphans"]] == ["p/t/0/000000000035_0_0.json"]
    assert partition["pending"][0]["plan"] == {"start": 40, "last": 45, "owner": "run"}
    assert partition["topic_end"] is None and partition["lag"] is None
    reasons = {m["key"]: m["reason"] for m in document["mismatches"]}
    assert set(reasons) == {"p/t/0/000000000050_0_0.avro", "p/t/0/000000000051_0_0.json", "p/notes.txt"}
    assert "does not end with .json" in reasons["p/t/0/000000000050_0_0.avro"]
    assert "empty" in reasons["p/t/0/000000000051_0_0.json"]
    assert document["totals"]["gaps"] == 1 and document["totals"]["mismatches"] == 3
    text = report.to_text()
    assert (
        "Topic offsets not compared: " in text
        and "gap: offsets 10..19 in no object" in text
        and "will be completed or replaced" in text
    )


def test_a_key_naming_a_topic_of_another_statement_is_that_statements() -> None:
    store = _store()
    store.put("b", "t/0/000000000000_0_0.json", _lines(0, 0))
    store.put("b", "u/0/000000000000_0_0.json", _lines(0, 0))
    store.put("b", "v/0/000000000000_0_0.json", _lines(0, 0))
    _lock(store, "t", 0, 0)
    _lock(store, "u", 0, 0)
    plan = _plan(
        "INSERT INTO b SELECT * FROM t STOREAS `JSON`; INSERT INTO b SELECT * FROM u STOREAS `JSON`", "t,u"
    )
    report = run_verify(plan, store, READERS, KafkaView(error="off"))
    assert [(c.facts.topic, c.problems) for c in report.partitions] == [("t", 0), ("u", 0)]
    assert [(m.key, m.reason) for m in report.mismatches] == [
        ("v/0/000000000000_0_0.json", "names topic v, which this config does not write there")
    ]


def test_partitioned_files_with_an_envelope_are_proven_by_the_offsets_they_hold() -> None:
    store = _store()
    store.put(
        "b", "p/region=east/t(0_000000000004).json", _lines(0, 2, envelope=True) + _lines(4, 4, envelope=True)
    )
    store.put("b", "p/region=west/t(0_000000000005).json", _lines(5, 5, envelope=True))
    _lock(store, "t", 0, 5)
    plan = _plan(
        "INSERT INTO b:p SELECT * FROM t PARTITIONBY region STOREAS `JSON` PROPERTIES('store.envelope'=true)"
    )
    (check,) = run_verify(plan, store, READERS, KafkaView(error="off")).partitions
    assert check.gaps == ((3, 3),) and check.evidence[0].value == "read"


def test_an_unreadable_object_is_a_problem_of_its_partition() -> None:
    store = _store()
    store.put("b", "t/0/000000000009_0_0.parquet", b"not parquet")
    _lock(store, "t", 0, 9)
    report = run_verify(
        _plan("INSERT INTO b SELECT * FROM t STOREAS `PARQUET`"), store, READERS, KafkaView(error="off")
    )
    (check,) = report.partitions
    assert check.unreadable and check.unreadable[0][0] == "t/0/000000000009_0_0.parquet" and not report.clean


def _dialect_plan(tmp_path: Path, config: dict[str, str]) -> VerifyPlan:
    path = tmp_path / "sink.json"
    path.write_text(json.dumps({"name": config["name"], "config": config}))
    return load_verify_plan(str(path))[1]


def test_an_aiven_sink_grouped_by_topic_partition_is_proven_by_its_first_offsets_and_counts(
    tmp_path: Path,
) -> None:
    config = {**CONSOLE_WITH_AWS, "topics": "orders", "bootstrap.servers": "127.0.0.1:9"}
    plan = _dialect_plan(tmp_path, config)
    store = InMemoryObjectStore()
    store.create_bucket("aiven-example")
    store.put("aiven-example", "orders-1-0", gzip.compress(b"YQ==\nYg==\nYw=="))  # offsets 0..2
    store.put("aiven-example", "orders-1-4", gzip.compress(b"ZA=="))  # offset 4: 3 is missing
    store.put(
        "aiven-example", master_lock_key(".indexes", "s3-sink", "orders", 1), encode_lock(IndexLock("u", 4))
    )
    (check,) = run_verify(plan, store, READERS, KafkaView(error="off")).partitions
    assert (check.facts.topic, check.facts.partition, check.records, check.gaps) == (
        "orders",
        1,
        4,
        ((3, 3),),
    )
    assert check.evidence == (Evidence.KEY_AND_COUNT,)


def test_a_confluent_time_based_bucket_has_only_its_orphans_and_keys_checked(tmp_path: Path) -> None:
    plan = _dialect_plan(tmp_path, {**COMPLETE, "topics": "events", "store.kafka.keys": "true"})
    store = InMemoryObjectStore()
    store.create_bucket("analytics-data-lake")
    table = io.BytesIO()
    pq.write_table(pa.table({"id": [1, 2]}), table)
    hour = "topics/events/year=2026/month=11/day=25/hour="
    store.put("analytics-data-lake", f"{hour}00/events+3+0000000040.snappy.parquet", table.getvalue())
    store.put("analytics-data-lake", f"{hour}01/events+3+0000000041.snappy.parquet", table.getvalue())
    store.put("analytics-data-lake", f"{hour}01/events+3+0000000050.snappy.parquet", table.getvalue())
    store.put(
        "analytics-data-lake", f"{hour}01/events+3+0000000041.keys.avro", b"keys"
    )  # a sibling: not stray
    store.put(
        "analytics-data-lake", f"{hour}01/events+3+41.snappy.parquet", table.getvalue()
    )  # not zero-padded
    lock = master_lock_key(".indexes", "events-to-s3", "events", 3)
    store.put("analytics-data-lake", lock, encode_lock(IndexLock("u", 43)))
    report = run_verify(plan, store, READERS, KafkaView(error="off"))
    (check,) = report.partitions
    assert check.evidence == (Evidence.UNPROVEN,) and check.gaps == () and check.records == 6
    assert [b.key for b in check.orphans] == [f"{hour}01/events+3+0000000050.snappy.parquet"]
    assert [(m.key, m.reason) for m in report.mismatches] == [
        (f"{hour}01/events+3+41.snappy.parquet", "matches no key layout of this config"),
        (
            f"{hour}00/events+3+0000000040.snappy.parquet",
            f"its sibling {hour}00/events+3+0000000040.keys.avro is missing: the restore refuses the object",
        ),
        (
            f"{hour}01/events+3+0000000050.snappy.parquet",
            f"its sibling {hour}01/events+3+0000000050.keys.avro is missing: the restore refuses the object",
        ),
    ]


def _quix_rows(first: int, last: int) -> bytes:
    rows = (
        json.dumps({"_timestamp": i, "_key": f"k{i}", "_value": {"id": i}}) for i in range(first, last + 1)
    )
    return "".join(row + "\n" for row in rows).encode()


def test_quix_objects_are_proven_by_first_offsets_under_the_sanitised_topic_folder() -> None:
    store = _store()
    store.put("b", f"q/my_orders/0/{0:019d}.jsonl", _quix_rows(0, 4))
    store.put("b", f"q/my_orders/0/{5:019d}.jsonl", _quix_rows(5, 6))
    store.put("b", f"q/my_orders/0/{9:019d}.jsonl", _quix_rows(9, 9))
    store.put("b", plan_key(".indexes", "s1", "my-orders", 0, 9), encode_plan(RangePlan("run", 9, 9)))
    _lock(store, "my-orders", 0, 6)
    plan = _plan(
        "INSERT INTO b:q SELECT * FROM `my-orders` STOREAS `JSON` PROPERTIES('store.layout'='quix')",
        "my-orders",
    )
    report = run_verify(plan, store, READERS, KafkaView(error="off"))
    assert report.clean, report.to_text()
    (check,) = report.partitions
    assert (check.facts.topic, check.records, check.last_stored, len(check.pending)) == ("my-orders", 8, 6, 1)


def test_a_lenses_lock_counts_from_its_9_0_0_path_and_its_pending_chain_is_pending() -> None:
    store = _store()
    for last in (9, 19):
        store.put("b", f"t/0/{last:012d}_0_0.json", _lines(last - 9, last))
    chain = PendingState(25, (DeleteOp("b", ".temp-upload/x", "E1"),))
    store.put("b", old_master_lock_key(".indexes", "t", 0), encode_lock(IndexLock("lenses", 9, chain)))
    store.put("b", "t/0/000000000025_0_0.json", _lines(20, 25))
    store.put("b", "t/0/000000000029_0_0.json", _lines(26, 29))
    report = run_verify(
        _plan("INSERT INTO b SELECT * FROM t STOREAS `JSON`"), store, READERS, KafkaView(error="off")
    )
    (check,) = report.partitions
    assert check.facts.committed == 9
    assert [(b.key, b.plan and b.plan.owner) for b in check.pending] == [
        ("t/0/000000000019_0_0.json", "a Lenses commit chain"),
        ("t/0/000000000025_0_0.json", "a Lenses commit chain"),
    ]
    assert [b.key for b in check.orphans] == ["t/0/000000000029_0_0.json"]


def test_a_partition_the_cluster_no_longer_has_gets_no_watermarks_and_the_others_keep_theirs() -> None:
    store = _store()
    store.put("b", "t/0/000000000000_0_0.json", _lines(0, 0))
    store.put("b", "t/7/000000000000_0_0.json", _lines(0, 0))
    _lock(store, "t", 0, 0)
    _lock(store, "t", 7, 0)
    report = run_verify(
        _plan("INSERT INTO b SELECT * FROM t STOREAS `JSON`"),
        store,
        READERS,
        KafkaView((("t", 0),), _Offsets()),
    )
    assert [(c.facts.partition, c.facts.topic_end, c.lag) for c in report.partitions] == [
        (0, 40, 39),
        (7, None, None),
    ]
    assert report.kafka_error is None and report.clean


def test_an_at_least_once_sink_is_checked_up_to_its_last_stored_offset_and_its_stale_lock_is_ignored() -> (
    None
):
    store = _store()
    for attempt, last in enumerate((9, 19, 19)):  # 10..19 stored twice, under two names
        store.put("b", f"t/0/{last:012d}_{attempt}_0.json", _lines(last - 9, last))
    _lock(store, "t", 0, 5)  # left by an earlier exactly-once run: not this sink's index any more
    plan = _plan(
        "INSERT INTO b SELECT * FROM t STOREAS `JSON`", **{"connect.local.exactly.once.enable": "false"}
    )
    report = run_verify(plan, store, READERS, KafkaView((("t", 0),), _Offsets()))
    (check,) = report.partitions
    assert not report.indexed and check.facts.committed is None
    assert [(d.first, d.last) for d in check.duplicates] == [(10, 19)] and check.orphans == ()
    assert (check.last_stored, check.lag) == (19, 20)
    assert "none (at-least-once: no committed offset to check against)" in report.to_text()


def test_gaps_are_checked_again_against_the_offsets_kafka_holds_records_at_up_to_the_lock() -> None:
    """Commit markers at 10 and 21: the dense check's gaps; a lost file (22..25) stays a gap."""
    markers = {10, 21}
    held = [offset for offset in range(0, 32) if offset not in markers]
    asked: list[tuple[TopicPartition, int, int]] = []

    def records(where: TopicPartition, start: int, end: int) -> tuple[int, ...]:
        asked.append((where, start, end))
        return tuple(offset for offset in held if start <= offset <= end)

    store = _store()
    for first, last in ((0, 9), (11, 20)):
        store.put("b", f"p/t/0/{last:012d}_0_0.json", _lines(first, last))
    store.put("b", "p/t/0/000000000031_0_0.json", _lines(0, 5))  # 26..31 (22..25 lost)
    _lock(store, "t", 0, 31)
    view = KafkaView((("t", 0),), _Offsets(), records=records)
    (check,) = run_verify(_plan("INSERT INTO b:p SELECT * FROM t STOREAS `JSON`"), store, READERS, view).partitions
    assert asked == [(("t", 0), 0, 31)], "the records must reach the lock, not only the last gap"
    assert (check.gaps, check.without_records) == (((22, 25),), 2)
