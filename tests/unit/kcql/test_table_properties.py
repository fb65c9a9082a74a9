"""'table.format' and 'table.name': a statement committing its Parquet objects to a table."""

from __future__ import annotations

import pytest

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import ConfigError, KcqlError
from lakesink.domain.kcql import parse
from lakesink.domain.statement_plan import plan_sink
from lakesink.domain.tables.changes import ChangeFormat, ChangeSpec
from lakesink.domain.tables.target import CatalogType, TableFormat, TableTarget


def _statement(target: str = "b:lake/orders", storeas: str = "PARQUET", props: str = "", partition: str = "") -> str:
    return f"INSERT INTO {target} SELECT * FROM orders {partition} STOREAS `{storeas}` PROPERTIES({props})"


def _settings(kcql: str, **extra: str) -> ConnectorSettings:
    return ConnectorSettings.from_properties(
        {"name": "s", "topics": "orders", "connect.s3.kcql": kcql, "connect.s3.aws.region": "eu-west-1", **extra}
    )


_CHANGES = "'store.envelope'=true, 'table.format'='ICEBERG', 'table.name'='shop.orders'"
"""A change table's statement, before its change properties."""


def test_an_iceberg_statement_names_its_table_and_lives_at_its_prefix() -> None:
    kcql = _statement(props="'table.format'='iceberg', 'table.name'='shop.orders'", partition="PARTITIONBY region, _key")
    [plan] = plan_sink(_settings(kcql)).statements
    assert plan.table == TableTarget(TableFormat.ICEBERG, "shop.orders", "b", "lake/orders", ("region",), ("_key",))


def test_a_delta_table_is_named_after_the_last_prefix_segment_by_default() -> None:
    [statement] = parse(_statement(props="'table.format'='DELTA'"))
    assert (statement.options.table_format, statement.options.table_name) == (TableFormat.DELTA, "orders")


def test_fields_under_an_envelope_are_not_columns_so_the_table_is_not_partitioned_by_them() -> None:
    props = "'table.format'='DELTA', 'store.envelope'=true"
    [plan] = plan_sink(_settings(_statement(props=props, partition="PARTITIONBY region"))).statements
    assert plan.table is not None and plan.table.partition_columns == () and plan.table.path_only == ("region",)


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        (_statement(storeas="JSON", props="'table.format'='DELTA'"), "needs STOREAS `PARQUET`"),
        (_statement(target="b", props="'table.format'='DELTA'"), "needs a prefix"),
        (_statement(props="'table.format'='ICEBERG'"), "needs 'table.name'='namespace.table'"),
        (_statement(props="'table.format'='ICEBERG', 'table.name'='orders'"), "not 'orders'"),
        (_statement(props="'table.format'='ICEBERG', 'table.name'='shop.or-ders'"), "letters, digits and _"),
        (_statement(props="'table.format'='HUDI'"), "expected one of DELTA, ICEBERG"),
        (_statement(props="'table.name'='shop.orders'"), "applies only with 'table.format'"),
        (_statement(props="'table.key'='id'"), "'table.key' applies only with 'table.format'"),
        (_statement(props=f"{_CHANGES}, 'table.change.format'='DEBEZIUM'"), "needs 'table.key'"),
        (_statement(props=f"{_CHANGES}, 'table.key'='id'"), "'table.key' needs 'table.change.format'"),
        (_statement(props=f"{_CHANGES}, 'table.change.format'='MAXWELL', 'table.key'='id'"), "expected one of DEBEZIUM"),
        (_statement(props=f"{_CHANGES}, 'table.change.format'='DEBEZIUM', 'table.key'='id,'"), "comma-separated"),
        (_statement(props=f"{_CHANGES}, 'table.change.format'='DEBEZIUM', 'table.key'='id,id'"), "names a column twice"),
        (
            _statement(props="'table.format'='ICEBERG', 'table.name'='shop.orders', 'table.change.format'='DEBEZIUM', 'table.key'='id'"),
            "needs 'store.envelope'=true",
        ),
    ],
)
def test_a_table_statement_that_cannot_work_is_refused_naming_the_property(statement: str, message: str) -> None:
    with pytest.raises(KcqlError, match=message):
        parse(statement)


def test_a_table_needs_exactly_once() -> None:
    kcql = _statement(props="'table.format'='DELTA'")
    with pytest.raises(ConfigError, match="needs exactly-once .*exactly.once.enable=true"):
        plan_sink(_settings(kcql, **{"connect.s3.exactly.once.enable": "false"}))


@pytest.mark.parametrize(
    ("backend", "table_format", "reason"),
    [
        ("gcpstorage", "DELTA", "on the gcs backend: delta-rs lists a table's log through GCS's XML API .* Write an Iceberg"),
        ("datalake", "DELTA", "on the azure backend: delta-rs 1.6 finds a table's newest commit .* Write an Iceberg"),
        ("s3", "DELTA", "on the s3 backend: delta-rs's storage options have no key for a CA file"),
    ],
)
def test_a_table_the_libraries_cannot_reach_on_a_backend_is_refused_when_the_config_loads(
    backend: str, table_format: str, reason: str
) -> None:
    auth = {"gcpstorage": {"connect.gcpstorage.gcp.auth.mode": "None"},
            "datalake": {"connect.datalake.azure.account.name": "acct"},
            "s3": {"connect.s3.aws.region": "eu-west-1", "connect.s3.ca.bundle": "/etc/ssl/private-ca.pem"}}[backend]
    settings = ConnectorSettings.from_properties({
        "name": "t", "topics": "orders", **auth,
        f"connect.{backend}.kcql": _statement(props=f"'table.format'='{table_format}', 'table.name'='shop.orders'"),
    })
    with pytest.raises(ConfigError, match=reason):
        plan_sink(settings)


def test_an_iceberg_table_on_azure_is_planned() -> None:
    settings = ConnectorSettings.from_properties({
        "name": "t", "topics": "orders", "connect.datalake.azure.account.name": "acct",
        "connect.datalake.kcql": _statement(props="'table.format'='ICEBERG', 'table.name'='shop.orders'"),
    })
    [plan] = plan_sink(settings).statements
    assert plan.table is not None and plan.table.format is TableFormat.ICEBERG


def test_the_catalog_is_the_embedded_sql_one_unless_configured_and_its_secrets_are_masked() -> None:
    kcql = _statement(props="'table.format'='ICEBERG', 'table.name'='shop.orders'")
    assert _settings(kcql).table_catalog.type is CatalogType.SQL
    settings = _settings(kcql, **{
        "connect.s3.table.catalog.type": "REST",
        "connect.s3.table.catalog.uri": "https://catalog.example/api",
        "connect.s3.table.catalog.token": "t0ps3cret",
        "connect.s3.table.catalog.header.x-tenant": "blue",
    })
    catalog = settings.table_catalog
    assert (catalog.type, catalog.uri) == (CatalogType.REST, "https://catalog.example/api")
    assert catalog.properties["header.x-tenant"] == "blue"
    assert "t0ps3cret" not in repr(settings) and "t0ps3cret" not in str(settings.describe())


def test_a_rest_catalog_without_its_url_is_refused() -> None:
    kcql = _statement(props="'table.format'='ICEBERG', 'table.name'='shop.orders'")
    with pytest.raises(ConfigError, match="table.catalog.type=rest needs connect.s3.table.catalog.uri"):
        _settings(kcql, **{"connect.s3.table.catalog.type": "rest"})


def test_a_catalog_url_with_a_password_never_shows() -> None:
    kcql = _statement(props="'table.format'='ICEBERG', 'table.name'='shop.orders'")
    settings = _settings(kcql, **{"connect.s3.table.catalog.uri": "postgresql+psycopg2://lake:pw-9f3a@db/catalog"})
    assert "pw-9f3a" not in repr(settings) and "pw-9f3a" not in str(settings.describe())
    assert settings.table_catalog.uri is not None and "pw-9f3a" in str(settings.table_catalog.uri.reveal())


def test_a_change_table_names_its_change_format_and_key_columns_and_is_not_partitioned() -> None:
    props = f"{_CHANGES}, 'table.change.format'='debezium', 'table.key'=' tenant , id'"
    [plan] = plan_sink(_settings(_statement(props=props, partition="PARTITIONBY region"))).statements
    assert plan.table is not None
    assert plan.table.changes == ChangeSpec(ChangeFormat.DEBEZIUM, ("tenant", "id"))
    assert plan.table.partition_spec == ()


@pytest.mark.parametrize(
    ("props", "owned", "not_owned"),
    [
        ("'table.format'='ICEBERG', 'table.name'='s.t'", ["lake/orders/metadata/v1.json", "lake/orders/.compacted/ab.parquet"],
         ["lake/orders/data/x.parquet", "lake/orders/orders/0/000000000001.parquet", "lake/other/metadata/v1.json"]),
        ("'table.format'='DELTA'", ["lake/orders/_delta_log/00000000000000000000.json"],
         ["lake/orders/part-0001.parquet", "lake/orders/orders/0/000000000001.parquet"]),
        (f"{_CHANGES}, 'table.change.format'='DEBEZIUM', 'table.key'='id'",
         ["lake/orders/metadata/v1.json", "lake/orders/data/00000-0-a.parquet"], ["lake/orders/orders/0/000000000001.parquet"]),
        ("'store.envelope'=true, 'table.format'='DELTA', 'table.change.format'='DEBEZIUM', 'table.key'='id'",
         ["lake/orders/_delta_log/00000000000000000001.json", "lake/orders/part-0001.parquet"],
         ["lake/orders/orders/0/000000000001.parquet"]),
    ],
)
def test_a_table_owns_its_metadata_and_a_change_tables_rows_but_no_object_of_the_layout(
    props: str, owned: list[str], not_owned: list[str]
) -> None:
    [plan] = plan_sink(_settings(_statement(props=props))).statements
    assert plan.table is not None
    assert [key for key in owned + not_owned if plan.table.owns(key)] == owned
