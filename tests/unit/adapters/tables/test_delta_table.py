"""The Delta adapter of the table port on the local store, with real delta-rs, read back with polars.

What the commit protocol relies on is checked against delta-rs itself: a commit based on a version
that is no longer the newest fails whatever landed since (a claim of another run, or any other
writer's append: delta-rs would rebase the latter, and the adapter must not let it).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, write_deltalake
from deltalake.exceptions import CommitFailedError
from deltalake.transaction import CommitProperties, Transaction

from lakesink.adapters.storage.local import LocalObjectStore
from lakesink.adapters.tables.delta_changes import DeltaChangeTable
from lakesink.adapters.tables.delta_table import DeltaLakeTable
from lakesink.adapters.tables.locations import TableLocation, table_location
from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.errors import CommitError, TableMovedError
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.changes import ChangeFormat, ChangeSpec
from lakesink.domain.tables.marks import TableMark, first_mark
from lakesink.domain.tables.table_port import DataFile, TableHead
from lakesink.domain.tables.target import TableFormat, TableTarget

BUCKET = "lake"
PREFIX = "shop/orders"
P0: TopicPartition = ("orders", 0)
P1: TopicPartition = ("orders", 1)


@pytest.fixture
def location(tmp_path: Path) -> TableLocation:
    return table_location("local", LocalSettings(root=tmp_path), BUCKET, PREFIX)


@pytest.fixture
def store(tmp_path: Path) -> LocalObjectStore:
    local = LocalObjectStore(tmp_path)
    local.create_bucket(BUCKET)
    return local


@pytest.fixture
def table(location: TableLocation) -> DeltaLakeTable:
    return opened(location)


def opened(location: TableLocation) -> DeltaLakeTable:
    """One run's adapter (two runs of a sink share the table, never the adapter)."""
    return DeltaLakeTable(TableTarget(TableFormat.DELTA, "shop.orders", BUCKET, PREFIX), location)


def written(store: LocalObjectStore, name: str, **columns: list[object]) -> DataFile:
    """A Parquet object the sink wrote under the table's prefix."""
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    key = f"{PREFIX}/data/{name}.parquet"
    store.put(BUCKET, key, sink.getvalue())
    return DataFile(BUCKET, key)


def rows(location: TableLocation) -> list[dict[str, object]]:
    return pl.read_delta(location.uri).sort("id").to_dicts()


def commit_infos(location: TableLocation) -> list[dict[str, object]]:
    return DeltaTable(location.uri).history()


def test_an_absent_table_has_no_head_and_a_claim_without_files_commits_nothing(
    table: DeltaLakeTable, location: TableLocation
) -> None:
    head = table.head("sink", [P0])

    assert head == TableHead(None, None)
    assert table.commit(head, (), first_mark("sink", "run-1")) is False
    assert table.head("sink", [P0]) == TableHead(None, None)
    assert table.name == location.uri


@pytest.mark.parametrize("changes", [None, ChangeSpec(ChangeFormat.DEBEZIUM, ("id",))], ids=["appended", "change"])
def test_a_missing_object_stops_the_commit_naming_it_for_appended_files_and_change_records_alike(
    changes: ChangeSpec | None, store: LocalObjectStore, location: TableLocation
) -> None:
    target = TableTarget(TableFormat.DELTA, "shop.orders", BUCKET, PREFIX, changes=changes)
    table = (DeltaLakeTable if changes is None else DeltaChangeTable)(target, location)
    gone = DataFile(BUCKET, f"{PREFIX}/data/gone.parquet")

    with pytest.raises(CommitError, match=r"Object 'shop/orders/data/gone.parquet' that the sink wrote for Delta table "
                                          r".* is missing"):
        table.commit(table.head("sink", [P0]), [gone], first_mark("sink", "run-1"))


def test_the_first_commit_creates_the_table_with_its_rows_and_its_mark(
    table: DeltaLakeTable, store: LocalObjectStore, location: TableLocation
) -> None:
    files = [written(store, "a", id=[1, 2], item=["pen", "ink"]), written(store, "b", id=[3], item=["nib"])]
    mark = TableMark("sink", "run-1", 1, {P0: 9, P1: 4})

    assert table.commit(table.head("sink", [P0, P1]), files, mark) is True

    assert table.head("sink", [P0, P1, ("returns", 0)]) == TableHead(0, mark)
    assert table.head("other-sink", [P0]) == TableHead(0, None)
    assert rows(location) == [{"id": 1, "item": "pen"}, {"id": 2, "item": "ink"}, {"id": 3, "item": "nib"}]
    delta = DeltaTable(location.uri)
    assert delta.metadata().name == "shop.orders"
    stats = sorted(json.loads(add["stats"])["numRecords"] for add in _adds(location, 0))
    assert stats == [1, 2]
    assert {
        "minValues": {"id": 1, "item": "ink"},
        "maxValues": {"id": 2, "item": "pen"},
    }.items() <= json.loads(
        next(add["stats"] for add in _adds(location, 0) if add["path"].endswith("a.parquet"))
    ).items()


def test_a_claim_without_files_moves_the_epoch_and_keeps_the_offsets(
    table: DeltaLakeTable, store: LocalObjectStore
) -> None:
    table.commit(
        table.head("sink", [P0]), [written(store, "a", id=[1])], TableMark("sink", "run-1", 1, {P0: 5})
    )
    head = table.head("sink", [P0])
    assert head.mark is not None

    assert table.commit(head, (), head.mark.claimed_by("run-2")) is True

    assert table.head("sink", [P0]) == TableHead(1, TableMark("sink", "run-2", 2, {P0: 5}))


def claim_by_another_run(location: TableLocation) -> None:
    newer = opened(location)
    head = newer.head("sink", [P0])
    assert head.mark is not None
    newer.commit(head, (), head.mark.claimed_by("run-2"))


def append_by_another_writer(location: TableLocation) -> None:
    write_deltalake(location.uri, pa.table({"id": [100], "item": ["other"]}), mode="append")


@pytest.mark.parametrize(
    "landed",
    [
        [claim_by_another_run],
        [append_by_another_writer],
        [append_by_another_writer, claim_by_another_run],
        [claim_by_another_run, append_by_another_writer],
    ],
    ids=["claim", "blind-append", "append-then-claim", "claim-then-append"],
)
@pytest.mark.parametrize("new_column", [False, True], ids=["same-columns", "new-column"])
def test_a_commit_based_on_a_head_that_is_no_longer_the_newest_adds_nothing(
    table: DeltaLakeTable,
    store: LocalObjectStore,
    location: TableLocation,
    landed: list[Callable[[TableLocation], None]],
    new_column: bool,
) -> None:
    table.commit(
        table.head("sink", [P0]),
        [written(store, "a", id=[1], item=["pen"])],
        TableMark("sink", "run-1", 1, {P0: 0}),
    )
    stale = table.head("sink", [P0])
    for other_commit in landed:
        other_commit(location)
    before = rows(location)
    late = written(store, "late", id=[2], item=["ink"], **({"price": [3.5]} if new_column else {}))

    with pytest.raises(TableMovedError, match="moved since it was read"):
        table.commit(stale, [late], TableMark("sink", "run-1", 1, {P0: 1}))

    assert rows(location) == before
    assert "price" not in DeltaTable(location.uri).schema().to_arrow().names
    assert table.head("sink", [P0]).mark == TableMark(
        "sink",
        "run-2" if claim_by_another_run in landed else "run-1",
        2 if claim_by_another_run in landed else 1,
        {P0: 0},
    )


def test_a_create_that_lost_the_race_adds_nothing(
    table: DeltaLakeTable, store: LocalObjectStore, location: TableLocation
) -> None:
    absent = table.head("sink", [P0])
    rival = opened(location)
    rival.commit(
        rival.head("sink", [P0]),
        [written(store, "rival", id=[7])],
        first_mark("sink", "run-2").advanced({P0: 3}),
    )

    with pytest.raises(TableMovedError, match="created since it was read"):
        table.commit(absent, [written(store, "mine", id=[1])], first_mark("sink", "run-1").advanced({P0: 0}))

    assert rows(location) == [{"id": 7}]
    assert table.head("sink", [P0]) == TableHead(0, TableMark("sink", "run-2", 1, {P0: 3}))


def test_new_columns_grow_the_schema_and_older_rows_read_null(
    table: DeltaLakeTable, store: LocalObjectStore, location: TableLocation
) -> None:
    table.commit(
        table.head("sink", [P0]),
        [written(store, "a", id=[1], item=["pen"])],
        TableMark("sink", "run-1", 1, {P0: 0}),
    )
    mark = TableMark("sink", "run-1", 1, {P0: 1})

    table.commit(table.head("sink", [P0]), [written(store, "b", id=[2], item=["ink"], price=[3.5])], mark)

    assert rows(location) == [{"id": 1, "item": "pen", "price": None}, {"id": 2, "item": "ink", "price": 3.5}]
    assert table.head("sink", [P0]) == TableHead(2, mark)
    assert [info["operation"] for info in commit_infos(location)] == ["WRITE", "ADD COLUMN", "CREATE TABLE"]
    # The column's own commit holds the epoch (a claim since fails it) but not the batch's offsets:
    # if the batch's commit then fails, the table must not look as if it held the batch.
    assert _actions(location, 1, "txn") == [{"appId": "lakesink/sink", "version": 1}]


def test_a_column_whose_type_changed_is_refused(table: DeltaLakeTable, store: LocalObjectStore) -> None:
    table.commit(
        table.head("sink", [P0]), [written(store, "a", id=[1])], TableMark("sink", "run-1", 1, {P0: 0})
    )

    with pytest.raises(
        CommitError, match=r"Column 'id' of Delta table .* is .*long.*, but a file .* as .*string"
    ):
        table.commit(
            table.head("sink", [P0]), [written(store, "b", id=["1"])], TableMark("sink", "run-1", 1, {P0: 1})
        )


def test_a_file_outside_the_table_root_is_refused(table: DeltaLakeTable, store: LocalObjectStore) -> None:
    store.put(BUCKET, "shop/other/x.parquet", b"")

    with pytest.raises(CommitError, match="outside Delta table"):
        table.commit(
            table.head("sink", [P0]), [DataFile(BUCKET, "shop/other/x.parquet")], first_mark("sink", "r")
        )


def test_two_connectors_keep_their_own_marks(
    table: DeltaLakeTable, store: LocalObjectStore, location: TableLocation
) -> None:
    orders = TableMark("orders-sink", "run-a", 1, {P0: 10})
    returns = TableMark("returns-sink", "run-b", 3, {("returns", 0): 4})
    table.commit(table.head("orders-sink", [P0]), [written(store, "a", id=[1])], orders)
    other = opened(location)
    other.commit(other.head("returns-sink", [("returns", 0)]), [written(store, "b", id=[2])], returns)

    assert table.head("orders-sink", [P0]) == TableHead(1, orders)
    assert table.head("returns-sink", [("returns", 0), P0]) == TableHead(1, returns)
    assert rows(location) == [{"id": 1}, {"id": 2}]


def test_a_key_the_local_store_escapes_is_added_at_its_file(
    table: DeltaLakeTable, store: LocalObjectStore, location: TableLocation
) -> None:
    table.commit(table.head("sink", [P0]), [written(store, "100% cotton", id=[1])], first_mark("sink", "r"))

    assert rows(location) == [{"id": 1}]


def test_files_of_a_partitioned_table_get_their_partition_values_from_their_statistics(
    table: DeltaLakeTable, store: LocalObjectStore, location: TableLocation
) -> None:
    schema = pa.schema([("id", pa.int64()), ("day", pa.string())])
    write_deltalake(location.uri, schema.empty_table(), partition_by=["day"])
    head = table.head("sink", [P0])

    table.commit(head, [written(store, "a", id=[1, 2], day=["mon", "mon"])], first_mark("sink", "r"))

    assert rows(location) == [{"id": 1, "day": "mon"}, {"id": 2, "day": "mon"}]
    with pytest.raises(CommitError, match="several values of 'day'"):
        table.commit(
            table.head("sink", [P0]),
            [written(store, "b", id=[3, 4], day=["mon", "tue"])],
            first_mark("sink", "r"),
        )


@pytest.mark.parametrize(
    ("landed", "rebased"),
    [
        ([append_by_another_writer], True),
        ([claim_by_another_run], False),
        ([append_by_another_writer, claim_by_another_run], False),
    ],
    ids=["blind-append", "claim", "append-then-claim"],
)
def test_delta_rs_itself_would_rebase_a_batch_only_over_commits_that_hold_no_claim(
    table: DeltaLakeTable,
    store: LocalObjectStore,
    location: TableLocation,
    landed: list[Callable[[TableLocation], None]],
    rebased: bool,
) -> None:
    """Why the adapter's ``max_commit_retries=0`` costs retries but no safety: with delta-rs's own
    retries, a commit holding the epoch ``txn`` conflicts with every claim landed since (they hold
    the same app id) and is rebased over other writers' commits only."""
    table.commit(
        table.head("sink", [P0]),
        [written(store, "a", id=[1], item=["pen"])],
        TableMark("sink", "run-1", 1, {P0: 0}),
    )
    stale = DeltaTable(location.uri)
    for other_commit in landed:
        other_commit(location)
    batch = CommitProperties(
        app_transactions=[Transaction("lakesink/sink", 1), Transaction("lakesink/sink/orders/0", 1)]
    )

    def commit_with_delta_rs_retries() -> None:
        stale.create_write_transaction([], "append", stale.schema(), commit_properties=batch)

    if rebased:
        commit_with_delta_rs_retries()
        assert DeltaTable(location.uri).transaction_version("lakesink/sink/orders/0") == 1
    else:
        with pytest.raises(CommitFailedError, match="Concurrent transaction"):
            commit_with_delta_rs_retries()


def _adds(location: TableLocation, version: int) -> list[dict[str, str]]:
    return _actions(location, version, "add")


def _actions(location: TableLocation, version: int, kind: str) -> list[dict[str, Any]]:
    log = Path(location.uri.removeprefix("file://")) / "_delta_log" / f"{version:020d}.json"
    return [action[kind] for action in map(json.loads, log.read_text().splitlines()) if kind in action]
