"""The examples/ jobs run as written, on local Spark, the embedded broker and a local bucket.

examples/filter_enrich.py runs as its own process in tests/integration/crash/test_library_kill9.py
(killed and restarted, then drained; ``make test-reliability``); examples/migrate_spark_kafka_job.py runs here, in the test
session's Spark (``getOrCreate`` returns it), and its objects are read back with the json module.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from tests.conftest import unique_name

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_migrated_spark_kafka_job_copies_every_record_with_key_headers_and_offset_once(
    spark: SparkSession, kafka: EmbeddedKafka, tmp_path: Path
) -> None:
    topic = unique_name("events")
    kafka.produce(topic, [
        ProducedRecord(json.dumps({"event": i}).encode(), key=f"user-{i % 5}".encode(),
                       headers=(("source", b"web" if i % 2 else b"app"),), partition=i % 4)
        for i in range(120)
    ])
    (tmp_path / "lake" / "lake").mkdir(parents=True)
    job = example("migrate_spark_kafka_job")
    args = job.arguments(["--bootstrap", kafka.bootstrap_servers, "--topic", topic, "--root", str(tmp_path / "lake"),
                          "--checkpoint", str(tmp_path / "ck"), "--available-now"])

    query = job.start(spark, args)
    query.awaitTermination(240)

    assert query.exception() is None, query.exception()
    envelopes = [json.loads(line) for path in sorted((tmp_path / "lake" / "lake" / "events").rglob("*.json"))
                 for line in path.read_text().splitlines()]
    assert sorted(e["value"]["event"] for e in envelopes) == list(range(120))
    for envelope in envelopes:
        i = envelope["value"]["event"]
        assert envelope["key"] == f"user-{i % 5}"
        assert envelope["headers"] == {"source": "web" if i % 2 else "app"}
        assert envelope["metadata"]["partition"] == i % 4 and envelope["metadata"]["topic"] == topic
    offsets = [(e["metadata"]["partition"], e["metadata"]["offset"]) for e in envelopes]
    assert len(set(offsets)) == 120
