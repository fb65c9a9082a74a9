"""The source's ``rangesOnly`` mode: one row per planned range, and the sink's output unchanged by it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pyspark.sql import DataFrame, SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.kafka.range_rows import RangeReader, ranges_in
from lakesink.adapters.kafka.source_options import SourceOptions, encode_options
from lakesink.adapters.spark.sink_task import run_range_task, run_task
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.storage import open_store
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore, iter_objects
from lakesink.domain.statement_plan import plan_sink
from tests.conftest import unique_name
from tests.integration.sink.conftest import local_props, produce_ids

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_ranges_mode_yields_one_row_and_one_task_per_admitted_range(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str
) -> None:
    produce_ids(kafka, topic, range(400))  # 100 records in each of the 4 partitions
    stream = (
        spark.readStream.format("lakesink-kafka")
        .options(**{"kafka.bootstrap.servers": kafka.bootstrap_servers, "subscribe": topic})
        .option("startingOffsets", "earliest")
        .option("rangesOnly", "true")
        .option("maxRecordsPerPartition", "60")
        .load()
    )
    batches: list[tuple[int, list[tuple[str, int, int, int]]]] = []

    def collect(df: DataFrame, batch_id: int) -> None:
        rows = [(r["topic"], r["partition"], r["start"], r["end"]) for r in df.collect()]
        batches.append((df.rdd.getNumPartitions(), rows))

    query = stream.writeStream.foreachBatch(collect).trigger(availableNow=True).start()
    query.awaitTermination(120)
    query.stop()

    assert stream.columns == ["topic", "partition", "start", "end"]
    rows = sorted(row for _, batch_rows in batches for row in batch_rows)
    assert rows == sorted((topic, p, s, e) for p in range(4) for s, e in ((0, 60), (60, 100)))
    assert all(tasks == len(batch_rows) for tasks, batch_rows in batches if batch_rows)


def _spec(settings: ConnectorSettings, store: ObjectStore) -> SinkTaskSpec:
    return SinkTaskSpec.for_settings(settings, plan=plan_sink(settings), store=store, run_id="same-run")


def _load(spark: SparkSession, options: dict[str, str]) -> pa.Table:
    return spark.read.format("lakesink-kafka").options(**options).load().toArrow()


def _stored(store: ObjectStore) -> dict[str, bytes]:
    return {info.key: store.get("bkt", info.key).data for info in iter_objects(store, "bkt", "")}


@pytest.mark.parametrize(
    "clause",
    [
        "STOREAS `JSON` PROPERTIES('flush.count'=7)",
        "PARTITIONBY region STOREAS `PARQUET` PROPERTIES('flush.count'=7)",
    ],
)
def test_sink_task_over_ranges_writes_the_same_objects_as_over_records(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, clause: str
) -> None:
    produce_ids(kafka, topic, range(103))
    options = {
        "kafka.bootstrap.servers": kafka.bootstrap_servers,
        "subscribe": topic,
        "includeHeaders": "true",  # the sink's tasks read the headers column
        "arrowBatchRecords": "10",
    }
    stores: dict[str, ObjectStore] = {}
    specs: dict[str, SinkTaskSpec] = {}
    name = unique_name("sink")
    for path in ("records", "ranges"):
        (tmp_path / path / "bkt").mkdir(parents=True)
        kcql = f"INSERT INTO bkt:out SELECT * FROM {topic} {clause}"
        props = {**local_props(tmp_path / path, kcql, topic, kafka), "name": name}
        settings = ConnectorSettings.from_properties(props, role="sink")
        stores[path] = open_store(settings.backend, settings.storage)
        specs[path] = _spec(settings, stores[path])

    records = _load(spark, options)  # through the JVM, as mapInArrow received them before
    for partition in range(4):
        one_range = records.filter(pc.equal(records["partition"], partition)).to_batches(max_chunksize=10)
        _drain(run_task(specs["records"], iter(one_range)))
    ranges = _load(spark, {**options, "rangesOnly": "true"})
    reader = RangeReader.of(SourceOptions.parse(encode_options(options)))
    assert ranges.num_rows == 4
    planned = [offset_range for batch in ranges.to_batches() for offset_range in ranges_in(batch)]
    for task_id in range(len(planned)):  # one range per task, as Spark runs them
        _drain(run_range_task(specs["ranges"], reader, planned, iter([(task_id,)])))

    expected = _stored(stores["records"])
    assert len([key for key in expected if not key.startswith(".indexes/")]) >= 8
    assert _stored(stores["ranges"]) == expected


def _drain(results: Any) -> None:
    for _ in results:
        pass
