"""Kafka Connect's dead-letter queue: each record the sink skips reaches the topic once, as read.

One sink run per converter covers several poison cases at once (each on its own topic): invalid
JSON for PARQUET, non-UTF-8 under TEXT (JsonConverter), a record larger than ``flush.size`` (not
poison: it gets a file of its own); with the Avro converter, a wrong magic byte, an unknown schema
id and an Avro schema Parquet cannot represent (a union of several types).

The librdkafka mock broker acknowledges a transaction's offset commit without storing it (and has
no transactional isolation), so the crash test commits the marks the transaction carried itself,
as a broker would have stored them, before the restart: what it proves is that the restarted
driver reads those marks and does not send the redone batch's dead letters again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.dead_letter_queue import dead_letter_id
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.storage import open_store
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore
from tests.conftest import unique_name
from tests.integration.sink.conftest import data_keys, local_props, run_sink
from tests.support.faulty_store import CrashBeforeCommit
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

    Read until each partition's position reaches its high watermark: a transaction's commit marker
    takes an offset of its own, so the watermarks do not count messages.
    """
    marks = {p: bounds for p, bounds in kafka.watermarks(topic).items() if bounds[1] > bounds[0]}
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap_servers, "group.id": unique_name("read")})
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


def test_poison_records_reach_the_dead_letter_topic_once_across_a_crash_before_the_commit(
    spark: SparkSession,
    kafka: EmbeddedKafka,
    tmp_path: Path,
    json_sink: tuple[dict[str, str], ObjectStore, dict[str, str]],
) -> None:
    props, store, names = json_sink
    with pytest.raises(Exception, match="simulated crash"):
        run_sink(spark, props, tmp_path / "ck", store=CrashBeforeCommit(store))
    sent = _dead_letters(kafka, names["dlq"])
    assert len(sent) == 2
    # the broker would have stored the transaction's marks (the mock drops them): the batch's ends + 1
    group = Consumer(
        {"bootstrap.servers": kafka.bootstrap_servers, "group.id": dead_letter_id(props["name"])}
    )
    marks = [
        TopicPartition(names[kind], 0, kafka.watermarks(names[kind])[0][1])
        for kind in ("parquet", "text", "big")
    ]
    group.commit(offsets=marks, asynchronous=False)
    group.close()

    job = run_sink(spark, props, tmp_path / "ck")

    letters = _dead_letters(kafka, names["dlq"])
    assert len(letters) == 2, "the redone batch sent its dead letters again"
    assert sum(report.dead_letters for report in job.reports) == 0
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
