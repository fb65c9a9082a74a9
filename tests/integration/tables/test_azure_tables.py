"""Iceberg tables on Azure Blob Storage (Azurite): the storage settings' account, key and endpoint reach
pyiceberg (pyarrow's AzureFileSystem), every record lands once, read back through the catalog, and the
newest snapshot holds the locks' offsets. (Delta tables on Azure are refused at start: delta-rs 1.6.6
cannot read its log past version 1 on Azurite; tests/unit/kcql/test_table_properties.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.tables.marks import mark_of
from tests.conftest import unique_name
from tests.integration.sink.conftest import PARTITIONS, assert_exactly_once, produce_ids, run_sink
from tests.support.emulators import Server, serve, start_azurite
from tests.support.store_buckets import AzureContainer

pytestmark = [pytest.mark.integration, pytest.mark.azure]


@pytest.fixture(scope="module")
def azurite(request: pytest.FixtureRequest) -> Server:
    return serve(request, start_azurite, "Azurite (make install puts it in .tools/)")


def test_a_topic_lands_in_an_iceberg_table_on_azure_once_with_the_locks_offsets(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, azurite: Server
) -> None:
    container = AzureContainer(azurite.url, unique_name("tables"))
    props = {
        "name": unique_name("sink"),
        "topics": topic,
        "bootstrap.servers": kafka.bootstrap_servers,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "connect.datalake.kcql": (
            f"INSERT INTO {container.name}:lake/orders SELECT * FROM {topic} STOREAS `PARQUET` "
            "PROPERTIES('flush.count'=5, 'table.format'='ICEBERG', 'table.name'='shop.orders')"
        ),
        "connect.datalake.table.catalog.uri": f"sqlite:///{tmp_path}/catalog.db",
        **container.connector_settings(azurite.url),
    }
    produce_ids(kafka, topic, range(30))
    run_sink(spark, props, tmp_path / "ck")
    produce_ids(kafka, topic, range(30, 44))
    run_sink(spark, props, tmp_path / "ck")

    settings = ConnectorSettings.from_properties(props)
    location = table_location("azure", settings.storage, container.name, "lake/orders")
    assert location.uri == f"abfs://{container.name}/lake/orders"
    table = SqlCatalog("lakesink", uri=f"sqlite:///{tmp_path}/catalog.db", **location.iceberg_io).load_table("shop.orders")
    ids = table.scan(selected_fields=("id",)).to_arrow().column("id").to_pylist()
    mark = mark_of(props["name"], table.current_snapshot().summary.additional_properties)  # type: ignore[union-attr]
    assert mark is not None and {p: offset for (_, p), offset in mark.offsets.items()} == dict.fromkeys(range(PARTITIONS), 10)
    assert_exactly_once(ids, range(44))
    data = [key for key in container.keys() if key.endswith(".parquet")]
    assert data and all(key.startswith("lake/orders/") for key in data)
