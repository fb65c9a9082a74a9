"""A ``--once`` run between continuous runs: both plan on the driver and retire an old checkpoint.

Every run starts from the index (exactly-once) or the consumer group (at-least-once), never from a
Spark checkpoint; after it committed, a checkpoint an earlier lakesink's streaming query left at
``--checkpoint`` is behind, so the run deletes it (an older lakesink would resume from it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.storage import open_store
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore
from tests.integration.sink.conftest import assert_exactly_once, data_keys, local_props, produce_ids, run_sink

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _setup(tmp_path: Path, kafka: EmbeddedKafka, topic: str, exactly_once: bool) -> tuple[dict[str, str], ObjectStore]:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    kcql = (
        f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `JSON` "
        "PROPERTIES('flush.count'=3, 'flush.interval'=1)"
    )
    extra = {"connect.local.exactly.once.enable": str(exactly_once).lower()}
    props = local_props(tmp_path / "store", kcql, topic, kafka, **extra)
    settings = ConnectorSettings.from_properties(props)
    return props, open_store(settings.backend, settings.storage)


def _old_streaming_checkpoint(location: Path) -> None:
    """What the streaming query of an earlier lakesink left at ``--checkpoint``: it is behind the index."""
    (location / "offsets").mkdir(parents=True)
    (location / "offsets" / "0").write_text('v1\n{}\n{"orders":{"0":0}}')
    (location / "metadata").write_text('{"id":"earlier"}')


def _stored_ids(store: ObjectStore) -> list[int]:
    return [json.loads(line)["id"] for key in data_keys(store, "bkt") for line in store.get("bkt", key).data.splitlines()]


@pytest.mark.parametrize("exactly_once", [True, False], ids=["exactly-once", "at-least-once"])
def test_a_stream_after_a_once_run_reads_only_what_is_new(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, exactly_once: bool
) -> None:
    props, store = _setup(tmp_path, kafka, topic, exactly_once)
    checkpoint = tmp_path / "ck"
    produce_ids(kafka, topic, range(12))
    _old_streaming_checkpoint(checkpoint)
    run_sink(spark, props, checkpoint, once=False)
    assert not checkpoint.exists(), "a continuous run reads no Spark checkpoint and removes an old one"
    produce_ids(kafka, topic, range(12, 20))

    _old_streaming_checkpoint(checkpoint)
    once = run_sink(spark, props, checkpoint)
    assert not checkpoint.exists()
    produce_ids(kafka, topic, range(20, 28))
    stream = run_sink(spark, props, checkpoint, once=False)

    assert sum(r.records for r in once.reports) == 8
    assert sum(r.records for r in stream.reports) == 8
    assert sum(r.skipped for r in stream.reports) == 0
    assert_exactly_once(_stored_ids(store), range(28))


def test_a_once_run_leaves_a_checkpoint_location_that_holds_no_streaming_checkpoint_alone(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    props, store = _setup(tmp_path, kafka, topic, exactly_once=True)
    (tmp_path / "ck").mkdir()
    (tmp_path / "ck" / "notes.txt").write_text("not Spark's")
    produce_ids(kafka, topic, range(8))

    job = run_sink(spark, props, tmp_path / "ck")

    assert (tmp_path / "ck" / "notes.txt").read_text() == "not Spark's"
    assert [r.batch_id for r in job.reports] == [0]
    assert_exactly_once(_stored_ids(store), range(8))
