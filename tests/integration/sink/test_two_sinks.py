"""Two sinks on one topic and one bucket: other names keep to their own index, one name fences.

A sink's index lives under ``.indexes/<name>/``: a sink of another name never reads or writes it,
whatever it shares. Two sinks of the same name share the index, and the newer fences the older.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.storage import open_store
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore, iter_objects
from tests.integration.sink.conftest import (
    assert_exactly_once,
    data_keys,
    local_props,
    newer_run_fences_older,
    produce_ids,
    run_sink,
    unique_name,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _props(tmp_path: Path, kafka: EmbeddedKafka, topic: str, flush_count: int = 4) -> dict[str, str]:
    (tmp_path / "store" / "bkt").mkdir(parents=True, exist_ok=True)
    kcql = (
        f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `JSON` "
        f"PROPERTIES('flush.count'={flush_count}, 'flush.interval'=1)"
    )
    return local_props(tmp_path / "store", kcql, topic, kafka)


def _store(props: dict[str, str]) -> ObjectStore:
    settings = ConnectorSettings.from_properties(props)
    return open_store(settings.backend, settings.storage)


def _index(store: ObjectStore, name: str) -> dict[str, bytes]:
    """Every object of the sink ``name``'s index, with its bytes."""
    return {info.key: store.get("bkt", info.key).data for info in iter_objects(store, "bkt", f".indexes/{name}/")}


def _stored_ids(store: ObjectStore) -> list[int]:
    return [json.loads(line)["id"] for key in data_keys(store, "bkt") for line in store.get("bkt", key).data.splitlines()]


def test_sinks_of_other_names_on_one_target_never_touch_each_others_locks(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    """Same topic, bucket, prefix and files: the second sink's uploads meet the first one's identical
    objects (same keys, same bytes), so the bucket holds every record once; each index is its own."""
    first = _props(tmp_path, kafka, topic)
    second = {**first, "name": unique_name("other")}
    store = _store(first)
    produce_ids(kafka, topic, range(12))

    run_sink(spark, first, tmp_path / "ck-1")
    first_index, files = _index(store, first["name"]), data_keys(store, "bkt")
    run_sink(spark, second, tmp_path / "ck-2")
    assert _index(store, first["name"]) == first_index  # not a byte changed
    second_index = _index(store, second["name"])
    assert any(key.endswith(".lock") for key in second_index)
    assert data_keys(store, "bkt") == files

    produce_ids(kafka, topic, range(12, 20))
    run_sink(spark, first, tmp_path / "ck-1")
    assert _index(store, second["name"]) == second_index
    run_sink(spark, second, tmp_path / "ck-2")

    locks = {info.key for info in iter_objects(store, "bkt", ".indexes/")}
    assert all(key.startswith((f".indexes/{first['name']}/", f".indexes/{second['name']}/")) for key in locks)
    assert_exactly_once(_stored_ids(store), range(20))


def test_a_sink_of_another_name_cutting_other_files_on_the_same_target_writes_the_records_again(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    """What docs/sink.md says of a shared target: another flush.count cuts other files, named by other
    offsets and timestamps, so the second sink stores every record a second time (nothing tells it
    the first one's index covers them); it overwrites nothing, and neither index is touched."""
    first = _props(tmp_path, kafka, topic, flush_count=4)
    second = {**_props(tmp_path, kafka, topic, flush_count=2), "name": unique_name("other")}
    store = _store(first)
    produce_ids(kafka, topic, range(16))
    run_sink(spark, first, tmp_path / "ck-1")
    written = {key: store.get("bkt", key).data for key in data_keys(store, "bkt")}
    first_index = _index(store, first["name"])

    run_sink(spark, second, tmp_path / "ck-2")

    assert {key: store.get("bkt", key).data for key in written} == written
    assert _index(store, first["name"]) == first_index
    assert sorted(_stored_ids(store)) == sorted([*range(16), *range(16)])


def test_a_sink_started_while_one_of_the_same_name_runs_fences_it_and_every_record_lands_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    """Both run at once: the older one continuous, idle after draining the topic, and the
    newer one (``--once``), which claims every lock at start. New records reach both: the older
    one's tasks see the newer owner in the lock and stop before writing (CommitConflictError), the
    newer writes them."""
    props = _props(tmp_path, kafka, topic)
    store = _store(props)
    produce_ids(kafka, topic, range(8))
    newer_run_fences_older(
        spark, props, tmp_path, landed=lambda: sorted(_stored_ids(store)) == list(range(8)),
        produce_more=lambda: produce_ids(kafka, topic, range(8, 24)),
    )
    assert_exactly_once(_stored_ids(store), range(24))


