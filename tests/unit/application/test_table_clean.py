"""``lakesink table clean``'s use case on the in-memory store and a table kept in it."""

from __future__ import annotations

import pytest

from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application.table_clean import clean_tables
from lakesink.domain.commit.range_plans import RangePlan, encode_plan, plan_key
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import ConfigError
from lakesink.domain.tables.marks import TableMark
from lakesink.domain.tables.table_port import DataFile, TableHead
from tests.support.store_table import StoreTable

KCQL = "INSERT INTO lake:out SELECT * FROM orders STOREAS `PARQUET` PROPERTIES('table.format'='ICEBERG', 'table.name'='s.t')"


def _settings(kcql: str = KCQL) -> ConnectorSettings:
    return ConnectorSettings.from_properties({"name": "sink", "topics": "orders", "connect.memory.kcql": kcql})


@pytest.fixture
def store() -> InMemoryObjectStore:
    memory = InMemoryObjectStore()
    memory.create_bucket("lake")
    for key in ("out/orders/0/000000000004.parquet", "out/orders/0/000000000009.parquet",
                "out/orders/1/000000000002.parquet", "out/orders/1/000000000007.parquet", "out/metadata/v1.json"):
        memory.put("lake", key, b"PAR1")
    table = StoreTable(memory, "lake")
    table.commit(TableHead(None, None), [DataFile("lake", "out/orders/0/000000000004.parquet")],
                 TableMark("sink", "run-1", 1, {("orders", 0): 4}))
    in_flight = RangePlan("run-2", 5, 9, 0, (("lake", "out/orders/0/000000000009.parquet"),))
    memory.put("lake", plan_key(".indexes", "sink", "orders", 0, 5), encode_plan(in_flight))
    return memory


def test_objects_no_version_references_and_no_plan_lists_are_deleted(store: InMemoryObjectStore) -> None:
    [cleaned] = clean_tables(_settings(), store, lambda target: StoreTable(store, "lake"), dry_run=False)
    assert cleaned.orphans == ("out/orders/1/000000000002.parquet", "out/orders/1/000000000007.parquet")
    kept = sorted(info.key for info in store.list_pages("lake", "out/").__next__().objects)
    assert kept == ["out/_table.json", "out/metadata/v1.json", "out/orders/0/000000000004.parquet",
                    "out/orders/0/000000000009.parquet"]


def test_a_dry_run_deletes_nothing(store: InMemoryObjectStore) -> None:
    [cleaned] = clean_tables(_settings(), store, lambda target: StoreTable(store, "lake"), dry_run=True)
    assert len(cleaned.orphans) == 2 and not cleaned.deleted
    store.head("lake", "out/orders/1/000000000002.parquet")


def test_a_config_without_a_table_is_refused() -> None:
    with pytest.raises(ConfigError, match="nothing to clean"):
        clean_tables(_settings("INSERT INTO lake:out SELECT * FROM orders STOREAS `PARQUET`"), InMemoryObjectStore(),
                     lambda target: StoreTable(InMemoryObjectStore(), "lake"), dry_run=True)
