"""The Iceberg adapter through Apache Iceberg's own REST catalog server: each way the catalog answers
becomes the sink's error kind, naming the table or the setting at fault and no credential.

The server (the session's ``iceberg_rest``) answers 404 for an unknown table and 409 for a commit
whose requirements the table no longer meets. It never fails by itself and accepts any credential,
so the 5xx answers, a lost answer and a refused token come from tests/support/fault_proxy.py in
front of it: a gateway that answers instead of the server, or drops the server's answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.demo.s3 import free_port
from lakesink.adapters.formats.parquet_footer import parquet_footer
from lakesink.adapters.tables.iceberg_catalogs import open_catalog
from lakesink.adapters.tables.iceberg_table import IcebergTable
from lakesink.adapters.tables.locations import TableLocation, table_location
from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import (
    CommitOutcomeUnknownError,
    ConfigError,
    TableMovedError,
    TransientStorageError,
)
from lakesink.domain.tables.marks import TableMark
from lakesink.domain.tables.table_port import DataFile, TableHead
from lakesink.domain.tables.target import CatalogSettings, CatalogType, TableFormat, TableTarget
from tests.conftest import unique_name
from tests.support.fault_proxy import FaultProxy
from tests.support.iceberg_rest import IcebergRestServer

pytestmark = [pytest.mark.integration]

P0 = ("orders", 0)
TOKEN = "the-gateways-token"


class _TokenGateway(FaultProxy):
    """A gateway in front of the catalog that lets through only requests bearing :data:`TOKEN`."""

    def _refusal(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, bytes] | None:
        if headers.get("Authorization") == f"Bearer {TOKEN}":
            return None
        error = {"message": "Not authorized: the token is missing or wrong", "type": "NotAuthorizedException",
                 "code": 401}
        return 401, json.dumps({"error": error}).encode()


@pytest.fixture
def location(tmp_path: Path) -> TableLocation:
    (tmp_path / "bkt").mkdir()
    return table_location("local", LocalSettings(root=tmp_path), "bkt", "lake/orders")


@pytest.fixture
def proxy(iceberg_rest: IcebergRestServer) -> Iterator[FaultProxy]:
    proxy = FaultProxy(iceberg_rest.uri).start()
    yield proxy
    proxy.stop()


def _table(uri: str, location: TableLocation, **properties: str | Secret) -> IcebergTable:
    name = unique_name("shop").replace("-", "_") + ".orders"
    catalog = open_catalog(CatalogSettings(CatalogType.REST, uri=uri, properties=properties), location)
    return IcebergTable(TableTarget(TableFormat.ICEBERG, name, "bkt", "lake/orders"), location, catalog)


def _file(tmp_path: Path, name: str, **columns: list[object]) -> DataFile:
    key = f"lake/orders/{name}.parquet"
    path = tmp_path / "bkt" / key
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns), path)
    return DataFile("bkt", key, path.stat().st_size, parquet_footer(path))


def _ids(table: IcebergTable) -> list[object]:
    loaded = table.head("sink", [P0]).version
    assert loaded is not None
    return sorted(loaded.scan().to_arrow().column("id").to_pylist())  # type: ignore[attr-defined]


def test_an_unknown_namespace_is_no_table_yet_and_the_claim_creates_both(
    iceberg_rest: IcebergRestServer, location: TableLocation, tmp_path: Path
) -> None:
    table = _table(iceberg_rest.uri, location)
    assert table.head("sink", [P0]) == TableHead(None, None)  # 404: no such namespace, no such table
    table.commit(TableHead(None, None), (), TableMark("sink", "run-1", 1, {}))
    table.commit(table.head("sink", [P0]), [_file(tmp_path, "a", id=[1, 2])], TableMark("sink", "run-1", 1, {P0: 1}))

    assert _ids(table) == [1, 2]
    loaded = iceberg_rest.catalog().load_table(table.name)
    assert loaded.location() == location.uri
    assert loaded.current_snapshot().summary.additional_properties["lakesink.epoch"] == "1"  # type: ignore[union-attr]


def test_the_catalog_answers_overlapping_requests_from_its_one_database(
    iceberg_rest: IcebergRestServer, location: TableLocation
) -> None:
    """A sink, a Connect worker and a reader load the same table at once: each pooled connection to an
    in-memory SQLite database would see an empty one of its own (a 500, "no such table: iceberg_tables")."""
    table = _table(iceberg_rest.uri, location)
    table.commit(TableHead(None, None), (), TableMark("sink", "run-1", 1, {}))

    def loads(_: int) -> int:
        catalog = iceberg_rest.catalog()
        return sum(catalog.load_table(table.name).metadata is not None for _ in range(20))

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert sum(pool.map(loads, range(6))) == 120


def test_a_commit_the_catalog_refuses_with_409_is_a_moved_table_and_adds_nothing(
    iceberg_rest: IcebergRestServer, location: TableLocation, tmp_path: Path
) -> None:
    table = _table(iceberg_rest.uri, location)
    table.commit(TableHead(None, None), (), TableMark("sink", "run-1", 1, {}))
    stale = table.head("sink", [P0])
    table.commit(table.head("sink", [P0]), (), TableMark("sink", "run-2", 2, {}))  # a newer run's claim

    with pytest.raises(TableMovedError, match=f"Iceberg table {table.name} moved since it was read"):
        table.commit(stale, [_file(tmp_path, "a", id=[1])], TableMark("sink", "run-1", 1, {P0: 0}))
    assert table.head("sink", [P0]).mark == TableMark("sink", "run-2", 2, {})


def test_a_commit_to_a_table_dropped_since_it_was_read_is_a_moved_table(
    iceberg_rest: IcebergRestServer, location: TableLocation, tmp_path: Path
) -> None:
    table = _table(iceberg_rest.uri, location)
    table.commit(TableHead(None, None), (), TableMark("sink", "run-1", 1, {}))
    head = table.head("sink", [P0])
    iceberg_rest.catalog().drop_table(table.name)

    with pytest.raises(TableMovedError, match=f"Iceberg table {table.name} moved since it was read"):
        table.commit(head, [_file(tmp_path, "a", id=[1])], TableMark("sink", "run-1", 1, {P0: 0}))


def test_a_5xx_or_a_lost_answer_to_a_commit_leaves_its_outcome_unknown_and_a_5xx_to_a_read_is_waited_out(
    proxy: FaultProxy, location: TableLocation, tmp_path: Path
) -> None:
    """The protocol reads the table again after an unknown outcome: the lost answer's commit landed
    (its offsets are in the head), the refused one did not."""
    table = _table(proxy.url, location)
    table.commit(TableHead(None, None), (), TableMark("sink", "run-1", 1, {}))
    commits = f"/tables/{table.name.split('.')[1]}"

    proxy.fail_next(1, "503", path_contains=commits, methods=["POST"])
    with pytest.raises(CommitOutcomeUnknownError, match=f"Iceberg table {table.name}: the commit may or may not"):
        table.commit(table.head("sink", [P0]), [_file(tmp_path, "a", id=[1])], TableMark("sink", "run-1", 1, {P0: 0}))
    assert table.head("sink", [P0]).mark == TableMark("sink", "run-1", 1, {})

    proxy.fail_next(1, "lose-response", path_contains=commits, methods=["POST"])
    with pytest.raises(CommitOutcomeUnknownError, match=f"Iceberg table {table.name}: the commit may or may not"):
        table.commit(table.head("sink", [P0]), [_file(tmp_path, "b", id=[2])], TableMark("sink", "run-1", 1, {P0: 0}))
    assert table.head("sink", [P0]).mark == TableMark("sink", "run-1", 1, {P0: 0})
    assert _ids(table) == [2]

    proxy.fail_next(1, "503", path_contains=commits, methods=["GET"])
    with pytest.raises(TransientStorageError, match=f"Iceberg table {table.name}: could not read it"):
        table.head("sink", [P0])


def test_a_catalog_that_fails_at_opening_is_waited_out_naming_its_uri(proxy: FaultProxy, location: TableLocation) -> None:
    proxy.fail_next(1, "503", path_contains="/v1/config")
    with pytest.raises(TransientStorageError, match=f"Iceberg rest catalog at table.catalog.uri {proxy.url} failed"):
        _table(proxy.url, location)


def test_nothing_answering_at_the_uri_is_a_config_error_naming_the_setting_and_no_credential(
    location: TableLocation,
) -> None:
    uri = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with pytest.raises(ConfigError, match=r"Iceberg rest catalog does not answer at table.catalog.uri http://127.0.0.1:\d+ .*check the setting") as error:
        _table(uri, location, credential=Secret("client:the-client-secret"))
    assert "the-client-secret" not in str(error.value)


def test_a_token_the_catalog_refuses_is_a_config_error_naming_the_settings_and_not_the_token(
    iceberg_rest: IcebergRestServer, location: TableLocation, tmp_path: Path
) -> None:
    gateway = _TokenGateway(iceberg_rest.uri).start()
    try:
        with pytest.raises(ConfigError, match="refused lakesink's credentials .table.catalog.credential, table.catalog.token") as error:
            _table(gateway.url, location, token=Secret("a-wrong-token"))
        assert "a-wrong-token" not in str(error.value)
        table = _table(gateway.url, location, token=Secret(TOKEN))
        table.commit(TableHead(None, None), (), TableMark("sink", "run-1", 1, {}))
        assert table.head("sink", [P0]).mark == TableMark("sink", "run-1", 1, {})
    finally:
        gateway.stop()
