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
from tests.support.clocks import ManualClock
from tests.support.store_table import StoreTable

KCQL = "INSERT INTO lake:out SELECT * FROM orders STOREAS `PARQUET` PROPERTIES('table.format'='ICEBERG', 'table.name'='s.t')"


def _settings(kcql: str = KCQL) -> ConnectorSettings:
    return ConnectorSettings.from_properties({"name": "sink", "topics": "orders", "connect.memory.kcql": kcql})


DAY_MS = 86_400_000


NOW_MS = 1_795_651_200_000


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW_MS)


@pytest.fixture
def store(clock: ManualClock) -> InMemoryObjectStore:
    memory = InMemoryObjectStore(clock=clock)
    memory.create_bucket("lake")
    for key in ("out/orders/0/000000000004.parquet", "out/orders/0/000000000009.parquet",
                "out/orders/1/000000000002.parquet", "out/orders/1/000000000007.parquet", "out/metadata/v1.json"):
        memory.put("lake", key, b"PAR1")
    table = StoreTable(memory, "lake")
    table.commit(TableHead(None, None), [DataFile("lake", "out/orders/0/000000000004.parquet")],
                 TableMark("sink", "run-1", 1, {("orders", 0): 4}))
    in_flight = RangePlan("run-2", 5, 9, 0, (("lake", "out/orders/0/000000000009.parquet"),))
    memory.put("lake", plan_key(".indexes", "sink", "orders", 0, 5), encode_plan(in_flight))
    clock.now += 3 * DAY_MS  # the objects are three days old now
    return memory


def test_objects_no_version_references_and_no_plan_lists_are_deleted(store: InMemoryObjectStore, clock: ManualClock) -> None:
    [cleaned] = clean_tables(_settings(), store, lambda target: StoreTable(store, "lake"), clock, dry_run=False)
    assert cleaned.orphans == ("out/orders/1/000000000002.parquet", "out/orders/1/000000000007.parquet")
    kept = sorted(info.key for info in store.list_pages("lake", "out/").__next__().objects)
    assert kept == ["out/_table.json", "out/metadata/v1.json", "out/orders/0/000000000004.parquet",
                    "out/orders/0/000000000009.parquet"]


def test_a_dry_run_deletes_nothing(store: InMemoryObjectStore, clock: ManualClock) -> None:
    [cleaned] = clean_tables(_settings(), store, lambda target: StoreTable(store, "lake"), clock, dry_run=True)
    assert len(cleaned.orphans) == 2 and not cleaned.deleted
    store.head("lake", "out/orders/1/000000000002.parquet")


def test_a_config_without_a_table_is_refused() -> None:
    with pytest.raises(ConfigError, match="nothing to clean"):
        clean_tables(_settings("INSERT INTO lake:out SELECT * FROM orders STOREAS `PARQUET`"), InMemoryObjectStore(),
                     lambda target: StoreTable(InMemoryObjectStore(), "lake"), ManualClock(NOW_MS), dry_run=True)


def test_an_orphan_younger_than_the_grace_period_is_kept_and_reported(store: InMemoryObjectStore, clock: ManualClock) -> None:
    """Another writer (compaction) uploads before its commit and leaves no plan lakesink reads."""
    store.put("lake", "out/orders/1/000000000011.parquet", b"PAR1")  # just now
    clock.now += DAY_MS - 1
    [cleaned] = clean_tables(_settings(), store, lambda target: StoreTable(store, "lake"), clock, dry_run=False,
                             grace_ms=DAY_MS)
    assert cleaned.orphans == ("out/orders/1/000000000002.parquet", "out/orders/1/000000000007.parquet")
    assert cleaned.recent == ("out/orders/1/000000000011.parquet",)
    store.head("lake", "out/orders/1/000000000011.parquet")
    clock.now += 1
    [cleaned] = clean_tables(_settings(), store, lambda target: StoreTable(store, "lake"), clock, dry_run=False,
                             grace_ms=DAY_MS)
    assert (cleaned.orphans, cleaned.recent) == (("out/orders/1/000000000011.parquet",), ())


def test_with_no_grace_period_every_orphan_goes(store: InMemoryObjectStore, clock: ManualClock) -> None:
    store.put("lake", "out/orders/1/000000000011.parquet", b"PAR1")
    [cleaned] = clean_tables(_settings(), store, lambda target: StoreTable(store, "lake"), clock, dry_run=False,
                             grace_ms=0)
    assert len(cleaned.orphans) == 3 and cleaned.recent == ()


def test_a_change_tables_own_files_are_cleaned_and_its_change_log_never(
    store: InMemoryObjectStore, clock: ManualClock
) -> None:
    """A change table's objects under its prefix are its change log, which no table version references:
    only the files its table library and maintenance wrote (pyiceberg's ``data/``, ``.compacted/``) can be orphans."""
    kcql = ("INSERT INTO lake:out SELECT * FROM orders STOREAS `PARQUET` PROPERTIES('store.envelope'=true, "
            "'table.format'='ICEBERG', 'table.name'='s.t', 'table.change.format'='DEBEZIUM', 'table.key'='id')")
    for key in ("out/data/00000-0-rewritten.parquet", "out/.compacted/0f3a.parquet", "out/data/00000-1-kept.parquet"):
        store.put("lake", key, b"PAR1")
    table = StoreTable(store, "lake")
    table.commit(table.head("sink", []), [DataFile("lake", "out/data/00000-1-kept.parquet")],
                 TableMark("sink", "run-1", 1, {("orders", 0): 9}))
    [cleaned] = clean_tables(_settings(kcql), store, lambda target: table, clock, dry_run=False, grace_ms=0)
    assert cleaned.orphans == ("out/.compacted/0f3a.parquet", "out/data/00000-0-rewritten.parquet")
    for log in ("out/orders/0/000000000009.parquet", "out/orders/1/000000000002.parquet", "out/orders/1/000000000007.parquet"):
        store.head("lake", log)
