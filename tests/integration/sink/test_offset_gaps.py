"""Offsets without records, on Apache Kafka: transaction markers, aborted transactions, compaction.

A transactional producer leaves a commit or abort marker after each transaction (an offset no
consumer receives), and a read_committed consumer (the sink's default) skips the records of aborted
transactions too; the log cleaner removes older records of a key from a compacted topic. So the
offsets the sink reads are not contiguous. What must hold: ``--once`` finishes (a batch may end on a
marker), every record lands once, the lock holds the last record's offset (Lenses' "last offset
written"; a second run reads past the trailing marker and writes nothing), and ``verify`` reports no
gap where Kafka has no record, but does report a record really missing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from pyspark.sql import SparkSession

from lakesink.application.cli import EXIT_FAILURE, EXIT_OK, main
from tests.conftest import unique_name
from tests.integration.sink.conftest import local_props, run_sink
from tests.support.kafka_broker import ApacheKafka

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _transactional_data(kafka: ApacheKafka, topic: str) -> list[int]:
    """Six transactions of five records on partition 0, the 3rd and 5th aborted; the committed ids.

    Every transaction is flushed before it ends: librdkafka's ``abort_transaction`` purges what it has
    not sent yet, and only sent records leave aborted data in the log for the sink to skip."""
    producer = Producer({"bootstrap.servers": kafka.bootstrap_servers, "transactional.id": unique_name("tx")})
    producer.init_transactions(30)
    committed = []
    for transaction in range(6):
        producer.begin_transaction()
        ids = range(transaction * 5, transaction * 5 + 5)
        for i in ids:
            producer.produce(topic, json.dumps({"id": i}).encode(), key=f"k{i}".encode(), partition=0)
        producer.flush(30)
        if transaction in (2, 4):
            producer.abort_transaction(30)
        else:
            producer.commit_transaction(30)
            committed.extend(ids)
    return committed


def _compacted_data(kafka: ApacheKafka, topic: str) -> list[int]:
    """Keys written three times each, in segments the cleaner compacts; the ids a consumer still sees
    (waits until compaction removed records, so offsets have holes)."""
    kafka.create_topic(topic, 1, **{"cleanup.policy": "compact", "segment.ms": "100",
                                    "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "100"})
    producer = Producer({"bootstrap.servers": kafka.bootstrap_servers, "linger.ms": 0})
    i = 0
    for _round in range(3):
        for key in range(10):
            producer.produce(topic, json.dumps({"id": i, "key": key}).encode(), key=f"k{key}".encode(), partition=0)
            i += 1
        producer.flush(30)
        time.sleep(0.3)  # the next record rolls the segment (segment.ms), which the cleaner can then compact
    deadline = time.monotonic() + 60
    while True:
        ids = [json.loads(value)["id"] for _offset, value in _read(kafka, topic)]
        if len(ids) < i:
            return ids
        assert time.monotonic() < deadline, "the log cleaner did not compact the topic within 60 s"
        producer.produce(topic, json.dumps({"id": i, "key": "roll"}).encode(), key=b"roll", partition=0)
        producer.flush(30)
        i += 1
        time.sleep(0.5)


def _read(kafka: ApacheKafka, topic: str, isolation: str = "read_committed") -> list[tuple[int, bytes]]:
    """(offset, value) of every record of partition 0 a consumer with ``isolation`` receives."""
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap_servers, "group.id": unique_name("read"),
                         "isolation.level": isolation, "enable.partition.eof": True})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        found = []
        while True:
            message = consumer.poll(10)
            assert message is not None, f"{topic} could not be read to its end"
            if message.error() is not None:
                assert message.error().code() == -191, message.error()  # _PARTITION_EOF
                return found
            found.append((message.offset(), message.value()))
    finally:
        consumer.close()


def _stored_ids(root: Path) -> list[int]:
    files = sorted(path for path in (root / "bkt").rglob("*.json") if ".indexes" not in path.parts)
    return [json.loads(line)["id"] for path in files for line in path.read_bytes().splitlines()]


def _verify(props: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "sink.json"
    path.write_text(json.dumps(props))
    capsys.readouterr()
    code = main(["verify", "--config", str(path), "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kind", ["transactions", "compacted"])
def test_offsets_without_records_are_committed_through_and_not_reported_as_gaps(
    spark: SparkSession, apache_kafka: ApacheKafka, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    topic = unique_name(kind)
    expected = _transactional_data(apache_kafka, topic) if kind == "transactions" else _compacted_data(
        apache_kafka, topic)
    if kind == "transactions":  # the aborted records are in the log, for the sink to skip
        assert len(_read(apache_kafka, topic, "read_uncommitted")) == 30
    root = tmp_path / "store"
    (root / "bkt").mkdir(parents=True)
    kcql = f"INSERT INTO bkt:gaps SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=4)"
    props = local_props(root, kcql, topic, apache_kafka)

    run_sink(spark, props, tmp_path / "ck")
    assert sorted(_stored_ids(root)) == sorted(expected)
    lock = json.loads((root / "bkt" / ".indexes" / props["name"] / ".locks" / f"Topic({topic})" / "0.lock").read_bytes())
    assert lock["committedOffset"] == _read(apache_kafka, topic)[-1][0], "the lock is not the last record's offset"
    again = run_sink(spark, props, tmp_path / "ck-again")
    assert sum(report.records for report in again.reports) == 0
    assert sorted(_stored_ids(root)) == sorted(expected)

    code, report = _verify(props, tmp_path, capsys)
    partition = next(p for p in report["partitions"] if p["partition"] == 0)
    assert (code, partition["gaps"], partition["duplicates"]) == (EXIT_OK, [], []), partition

    if kind == "compacted":  # the cleaner may go on removing records the files hold: no sure gap there
        return
    # a lost object is still a gap: exactly its records' offsets, none of the markers around them
    lost = sorted((root / "bkt" / "gaps").rglob("*.json"))[1]
    offset_of = {json.loads(value)["id"]: offset for offset, value in _read(apache_kafka, topic)}
    lost_offsets = sorted(offset_of[json.loads(line)["id"]] for line in lost.read_bytes().splitlines())
    lost.unlink()
    code, report = _verify(props, tmp_path, capsys)
    gaps = next(p for p in report["partitions"] if p["partition"] == 0)["gaps"]
    assert code == EXIT_FAILURE
    assert [o for gap in gaps for o in range(gap["first"], gap["last"] + 1)] == lost_offsets
