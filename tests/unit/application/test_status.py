"""``lakesink status`` over an in-memory store: the index's committed offsets beside the group's, the end
offsets, the lag and the newest object of each partition; the report's JSON and text."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from pathlib import Path

from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application.bootstrap.verify import load_verify_plan
from lakesink.application.status import run_status
from lakesink.application.verify import KafkaView
from lakesink.domain.commit.lock_keys import master_lock_key
from lakesink.domain.commit.locks import IndexLock, encode_lock
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import plan_sink
from lakesink.domain.verify.status import NewestObject, PartitionStatus, StatusReport
from lakesink.domain.verify.targets import VerifyPlan, lenses_targets, verify_plan
from tests.support.aiven_configs import CONSOLE_WITH_AWS

KCQL = "INSERT INTO b:p SELECT * FROM t STOREAS `JSON`"


def _plan(**extra: str) -> VerifyPlan:
    props = {"name": "s1", "connect.local.root": "/unused", "connect.local.kcql": KCQL, "topics": "t", **extra}
    settings = ConnectorSettings.from_properties(props, role="sink")
    return verify_plan(settings, lenses_targets(plan_sink(settings)))


class _Ends:
    def earliest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return dict.fromkeys(keys, 0)

    def latest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return dict.fromkeys(keys, 40)


def _store() -> InMemoryObjectStore:
    store = InMemoryObjectStore()
    store.create_bucket("b")
    for last in (9, 19, 29):  # 29: written, not committed (a batch that died before its lock)
        store.put("b", f"p/t/0/{last:012d}_0_0.json", b'{"id": 1}\n')
    store.put("b", master_lock_key(".indexes", "s1", "t", 0), encode_lock(IndexLock("u", 19)))
    return store


def test_the_index_is_the_truth_and_a_group_that_differs_is_shown() -> None:
    report = run_status(
        _plan(), _store(), KafkaView((("t", 0), ("t", 1)), _Ends()), group_id="connect-s1", group={("t", 0): 12}
    )

    first, second = report.partitions
    assert (first.committed, first.group, first.group_differs, first.end, first.lag) == (19, 12, True, 40, 20)
    assert first.newest is not None and first.newest.key == "p/t/0/000000000029_0_0.json"
    assert first.newest.modified_ms is not None
    assert (second.committed, second.group, second.group_differs, second.lag, second.newest) == (None, None, False, 40, None)
    assert report.lag == 60 and report.source == "index"
    text = report.to_text(iso=str)
    assert "t-0: committed 19, end 40, lag 20; the group says next 12 (lag tools are off" in text
    assert "t-1: committed -, end 40, lag 40" in text


def test_at_least_once_the_group_is_the_truth_and_without_kafka_the_ends_are_unknown() -> None:
    report = run_status(
        _plan(**{"connect.local.exactly.once.enable": "false"}), _store(), KafkaView(error="No broker answered"),
        group_id="connect-s1", group=None, group_error="Kafka not reachable",
    )

    (only,) = report.partitions
    assert (only.committed, only.end, only.lag, report.lag, report.source) == (None, None, None, None, "group")
    document = json.loads(report.to_json())
    assert document["kafka"] == {"reachable": False, "error": "No broker answered"}
    assert document["group_error"] == "Kafka not reachable" and document["committed_from"] == "group"
    assert document["partitions"][0]["newest"]["key"] == "p/t/0/000000000029_0_0.json"


def test_the_json_document_and_the_text_name_every_field() -> None:
    status = PartitionStatus("t", 3, 41, 42, 50, NewestObject("b", "p/t/3/000000000041_0_0.json", 1_700_000_000_000))
    report = StatusReport("s1", "connect-s1", "index", (status,))

    assert json.loads(report.to_json()) == {
        "schema": "lakesink.status/1", "connector": "s1", "group": "connect-s1", "committed_from": "index", "lag": 8,
        "kafka": {"reachable": True, "error": None}, "group_error": None,
        "partitions": [{
            "topic": "t", "partition": 3, "committed": 41, "group": 42, "group_differs": False, "end": 50, "lag": 8,
            "newest": {"bucket": "b", "key": "p/t/3/000000000041_0_0.json", "modified_ms": 1_700_000_000_000},
        }],
    }  # fmt: skip
    assert report.to_text(iso=lambda ms: f"<{ms}>") == (
        "s1: committed offsets from the index, lag 8 (consumer group connect-s1)\n"
        "  t-3: committed 41, end 50, lag 8; newest b/p/t/3/000000000041_0_0.json at <1700000000000>"
    )


def test_an_aiven_sink_config_reads_its_index_and_newest_object_as_lenses_does(tmp_path: Path) -> None:
    config = tmp_path / "aiven.json"
    config.write_text(json.dumps({**CONSOLE_WITH_AWS, "topics": "orders", "bootstrap.servers": "127.0.0.1:9"}))
    settings, plan = load_verify_plan(str(config))
    store = InMemoryObjectStore()
    store.create_bucket("aiven-example")
    for key in ("orders-1-0", "orders-1-4"):
        store.put("aiven-example", key, gzip.compress(b"YQ=="))
    store.put("aiven-example", master_lock_key(".indexes", settings.name, "orders", 1), encode_lock(IndexLock("u", 4)))

    report = run_status(plan, store, KafkaView(error="off"), group_id=f"connect-{settings.name}", group=None)

    (only,) = report.partitions
    assert (report.source, only.topic, only.partition, only.committed) == ("index", "orders", 1, 4)
    assert only.newest is not None and only.newest.key == "orders-1-4"
