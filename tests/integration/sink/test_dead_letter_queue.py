"""Kafka Connect's dead-letter queue: each record the sink skips reaches the topic once, as read.

One sink run per converter covers several poison cases at once (each on its own topic): invalid
JSON for PARQUET, non-UTF-8 under TEXT (JsonConverter), a record larger than ``flush.size`` (not
poison: it gets a file of its own); with the Avro converter, a wrong magic byte, an unknown schema
id and an Avro schema Parquet cannot represent (a union of several types).

The crash and fencing tests run on Apache Kafka (the librdkafka mock acknowledges a transaction's
offset commit without storing it and has no transactional isolation): the sink is killed with
SIGKILL the moment its dead-letter transaction (the letters and the group's marks) committed, before
the store's locks; the restarted sink redoes the batch, reads the marks and sends no letter again.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.dead_letter_queue import KafkaDeadLetterQueue, dead_letter_id
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.storage import open_store
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.error_reporting import ErrorReporting
from lakesink.domain.dead_letters import DeadLetter, Stage
from lakesink.domain.errors import CommitConflictError
from lakesink.domain.ports import ObjectStore
from tests.conftest import unique_name
from tests.integration.sink.conftest import data_keys, local_props, run_sink
from tests.support.kafka_broker import REPO, ApacheKafka, kafka_version
from tests.support.reliability import record_cell
from tests.support.schema_registry_double import SchemaRegistryDouble, confluent_avro

pytestmark = [pytest.mark.integration, pytest.mark.slow]

HEADERS = (("trace", b"t-1"), ("raw", b"\x00\xff"))
TS = 1_700_000_000_000


def _record(value: bytes, index: int) -> ProducedRecord:
    return ProducedRecord(
        value, key=f"k{index}".encode(), headers=HEADERS, timestamp_ms=TS + index, partition=0
    )


def _dead_letters(kafka: EmbeddedKafka, topic: str) -> list[Any]:
    """Every message of the dead-letter topic (all partitions), in (partition, offset) order.

    Read committed, until each partition's position reaches its high watermark: a transaction's
    commit marker takes an offset of its own, so the watermarks do not count messages.
    """
    marks = {p: bounds for p, bounds in kafka.watermarks(topic).items() if bounds[1] > bounds[0]}
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap_servers, "group.id": unique_name("read"),
                         "isolation.level": "read_committed"})
    try:
        consumer.assign([TopicPartition(topic, p, low) for p, (low, _high) in marks.items()])
        messages: list[Any] = []
        deadline = time.monotonic() + 30
        while any(
            tp.offset < marks[tp.partition][1]
            for tp in consumer.position([TopicPartition(topic, p) for p in marks])
        ):
            assert time.monotonic() < deadline, "the dead-letter topic could not be read to its end"
            message = consumer.poll(0.2)
            if message is not None:
                assert message.error() is None
                messages.append(message)
        return sorted(messages, key=lambda m: (m.partition(), m.offset()))
    finally:
        consumer.close()


def _by_source(messages: list[Any]) -> dict[tuple[bytes | None, bytes | None], Any]:
    return {(m.key(), m.value()): m for m in messages}


def _context(message: Any) -> dict[str, str]:
    return {
        name: value.decode()
        for name, value in message.headers() or ()
        if name.startswith("__connect.errors.")
    }


def _stored(store: ObjectStore, prefix: str) -> list[str]:
    return data_keys(store, "bkt", prefix)


@pytest.fixture
def json_sink(
    tmp_path: Path, kafka: EmbeddedKafka
) -> Iterator[tuple[dict[str, str], ObjectStore, dict[str, str]]]:
    """A JsonConverter sink of three topics (PARQUET, TEXT, JSON with a 200-byte flush.size) with poison in each."""
    names = {kind: unique_name(kind) for kind in ("parquet", "text", "big", "dlq")}
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    kcql = (
        f"INSERT INTO bkt:parquet SELECT * FROM {names['parquet']} STOREAS `PARQUET` PROPERTIES('flush.count'=100);"
        f"INSERT INTO bkt:text SELECT * FROM {names['text']} STOREAS `TEXT` PROPERTIES('flush.count'=100);"
        f"INSERT INTO bkt:big SELECT * FROM {names['big']} STOREAS `JSON` PROPERTIES('flush.size'=200)"
    )
    props = local_props(
        tmp_path / "store",
        kcql,
        ",".join(names[kind] for kind in ("parquet", "text", "big")),
        kafka,
        **{
            "connect.local.error.policy": "NOOP",
            "errors.deadletterqueue.topic.name": names["dlq"],
            "errors.deadletterqueue.context.headers.enable": "true",
            "errors.log.enable": "true",
            "errors.log.include.messages": "true",
        },
    )
    kafka.produce(
        names["parquet"],
        [
            _record(b'{"id": 0}', 0),
            _record(b"{not json", 1),
            _record(b'{"id": 2}', 2),
            _record(b'{"id": 3}', 3),
        ],
    )
    kafka.produce(
        names["text"], [_record(b'"line 0"', 0), _record(b"\xff\xfe not utf-8", 1), _record(b'"line 2"', 2)]
    )
    big = json.dumps({"id": 1, "pad": "x" * 1000}).encode()
    kafka.produce(names["big"], [_record(b'{"id": 0}', 0), _record(big, 1), _record(b'{"id": 2}', 2)])
    settings = ConnectorSettings.from_properties(props)
    yield props, open_store(settings.backend, settings.storage), names


#: The dangerous moments of a batch with dead letters, where the kill lands (tests/support/die_after.py):
#: its first letter produced, the transaction open; the transaction (letters and marks) committed, the
#: store's locks not yet written.
KILL_POINTS = {
    "transaction-open": ("KafkaDeadLetterQueue._produce", 0),
    "letters-committed": ("KafkaDeadLetterQueue.send", 2),
}


@pytest.mark.reliability
@pytest.mark.parametrize("moment", list(KILL_POINTS))
def test_poison_records_reach_the_dead_letter_topic_once_across_a_kill_9(
    spark: SparkSession,
    apache_kafka: ApacheKafka,
    tmp_path: Path,
    json_sink: tuple[dict[str, str], ObjectStore, dict[str, str]],
    moment: str,
) -> None:
    kafka = apache_kafka
    props, store, names = json_sink
    function, visible = KILL_POINTS[moment]
    config = tmp_path / "sink.json"
    config.write_text(json.dumps(props))
    started = time.monotonic()
    killed = subprocess.run(
        [sys.executable, "-m", "tests.support.die_after", f"lakesink.adapters.kafka.dead_letter_queue:{function}",
         "--", "sink", "--config", str(config), "--once", "--checkpoint", str(tmp_path / "ck-killed")],
        cwd=REPO, start_new_session=True, capture_output=True, text=True, timeout=180,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    assert f"die_after: {function} returned" in killed.stderr
    assert _committed(store, props["name"], names["text"]) is None, "the killed run committed its locks"
    assert len(_dead_letters(kafka, names["dlq"])) == visible  # an open transaction is invisible
    if visible:  # the transaction stored the batch's ends + 1 for the group (read back with the admin API)
        sources = [names[kind] for kind in ("parquet", "text", "big")]
        assert kafka.group_offsets(dead_letter_id(props["name"])) == {
            (topic, 0): kafka.watermarks(topic)[0][1] for topic in sources
        }

    job = run_sink(spark, props, tmp_path / "ck")

    letters = _dead_letters(kafka, names["dlq"])
    assert len(letters) == 2, "a dead letter was lost or sent twice"
    assert sum(report.dead_letters for report in job.reports) == 2 - visible
    assert sum(report.poison for report in job.reports) == 2
    by_value = _by_source(letters)
    for value, key, topic, offset, stage in (
        (b"{not json", b"k1", names["parquet"], 1, "VALUE_CONVERTER"),
        (b"\xff\xfe not utf-8", b"k1", names["text"], 1, "VALUE_CONVERTER"),
    ):
        message = by_value[key, value]
        assert message.timestamp()[1] == TS + offset
        assert [(n, v) for n, v in message.headers() if not n.startswith("__connect.")] == list(HEADERS)
        context = _context(message)
        assert {k: context[f"__connect.errors.{k}"] for k in ("topic", "partition", "offset", "stage")} == {
            "topic": topic,
            "partition": "0",
            "offset": str(offset),
            "stage": stage,
        }
        assert context["__connect.errors.connector.name"] == props["name"]
        assert context["__connect.errors.task.id"] == "0"
        assert context["__connect.errors.exception.class.name"] == "lakesink.domain.errors.RecordError"
        assert context["__connect.errors.exception.message"]
        assert "Traceback" in context["__connect.errors.exception.stacktrace"]
    # the good records landed once; the large record is no poison: it fills its file, which rolls after it
    assert len(_stored(store, "parquet/")) >= 1
    text = b"".join(store.get("bkt", key).data for key in _stored(store, "text/"))
    assert text.splitlines() == [b"line 0", b"line 2"]
    big_files = [store.get("bkt", key).data for key in _stored(store, "big/")]
    assert sorted(json.loads(line)["id"] for data in big_files for line in data.splitlines()) == [0, 1, 2]
    assert [[json.loads(line)["id"] for line in data.splitlines()] for data in big_files] == [[0, 1], [2]]
    record_cell("kill -9", test="test_dead_letter_queue", target=f"dead-letter queue, {moment}, Apache Kafka "
                f"{kafka_version()}", kills=1, records=10, seconds=time.monotonic() - started,
                outcome="each dead letter once for read_committed, marks in the group, every record stored once")


def _committed(store: ObjectStore, connector: str, topic: str) -> int | None:
    """The committed offset of partition 0 of ``topic`` in the connector's master lock (None: none yet)."""
    lock = store.get("bkt", f".indexes/{connector}/.locks/Topic({topic})/0.lock").data
    return json.loads(lock)["committedOffset"]


def test_a_second_run_of_the_connector_fences_the_first_run_s_dead_letter_queue(apache_kafka: ApacheKafka) -> None:
    """Both runs use the transactional id ``lakesink-dlq-<name>``: opening the second bumps its epoch, so
    the first can commit nothing more; only the second's letters and marks are visible."""
    source, dlq, name = unique_name("src"), unique_name("dlq"), unique_name("fenced")
    apache_kafka.produce(source, [_record(b"{bad", index) for index in range(2)])
    client = {"bootstrap.servers": apache_kafka.bootstrap_servers}
    reporting = ErrorReporting(dlq_topic=dlq)
    letters = [
        DeadLetter(source, 0, offset, TS + offset, b"k", b"{bad", (), Stage.VALUE_CONVERTER,
                   "org.apache.kafka.connect.json.JsonConverter", "RecordError", f"letter {offset}")
        for offset in range(2)
    ]
    first = KafkaDeadLetterQueue(client, connector=name, reporting=reporting)
    second = KafkaDeadLetterQueue(client, connector=name, reporting=reporting)
    try:
        with pytest.raises(CommitConflictError, match="another run of connector"):
            first.send(letters[:1], {(source, 0): 1})
        second.send(letters[1:], {(source, 0): 2})
    finally:
        second.close()
    assert [m.offset() for m in _dead_letters(apache_kafka, dlq)] == [0]  # the second's letter only
    assert apache_kafka.group_offsets(dead_letter_id(name)) == {(source, 0): 2}


def test_avro_poison_of_an_at_least_once_sink_goes_to_the_dead_letter_topic_without_context_headers(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    topic, dlq = unique_name("avro"), unique_name("dlq")
    record = {"type": "record", "name": "R", "fields": [{"name": "id", "type": "int"}]}
    union = {"type": "record", "name": "U", "fields": [{"name": "either", "type": ["int", "string"]}]}
    with SchemaRegistryDouble() as registry:
        good_id, union_id = registry.register(record), registry.register(union)
        poison = {
            b"\x01" + confluent_avro(good_id, record, {"id": 1})[1:]: "wrong magic byte",
            confluent_avro(99, record, {"id": 2}): "unknown schema id",
            confluent_avro(union_id, union, {"either": "x"}): "union Parquet cannot store",
        }
        values = [
            confluent_avro(good_id, record, {"id": 0}),
            *poison,
            confluent_avro(good_id, record, {"id": 4}),
        ]
        kafka.produce(topic, [_record(value, index) for index, value in enumerate(values)])
        (tmp_path / "store" / "bkt").mkdir(parents=True)
        props = local_props(
            tmp_path / "store",
            f"INSERT INTO bkt:avro SELECT * FROM {topic} STOREAS `PARQUET` PROPERTIES('flush.count'=100)",
            topic,
            kafka,
            **{
                "value.converter": "io.confluent.connect.avro.AvroConverter",
                "value.converter.schema.registry.url": registry.url,
                "connect.local.error.policy": "NOOP",
                "connect.local.exactly.once.enable": "false",  # the at-least-once commit sends them too
                "errors.deadletterqueue.topic.name": dlq,
            },
        )
        job = run_sink(spark, props, tmp_path / "ck")

    letters = _dead_letters(kafka, dlq)
    assert sorted(m.value() for m in letters) == sorted(poison)
    assert sum(report.dead_letters for report in job.reports) == 3
    for message in letters:
        assert message.key() == f"k{values.index(message.value())}".encode()
        assert list(message.headers()) == list(HEADERS)  # the record's own, no __connect.errors.*
    settings = ConnectorSettings.from_properties(props)
    stored = _stored(open_store(settings.backend, settings.storage), "avro/")
    assert stored
