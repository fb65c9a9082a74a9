"""Where a table lives for pyiceberg and delta-rs, and the Parquet footer a task hands to the commit."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.formats.parquet_footer import footer_metadata, parquet_footer
from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.backends import AzureSettings, GcsSettings, LocalSettings, S3Settings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError


def test_the_footer_a_task_keeps_reads_back_as_the_files_metadata(tmp_path: Path) -> None:
    path = tmp_path / "part.parquet"
    table = pa.table({"id": pa.array(range(5000), pa.int64()), "country": ["fr", "de"] * 2500})
    pq.write_table(table, path, row_group_size=2000)
    footer = parquet_footer(path)
    assert len(footer) < path.stat().st_size
    metadata = footer_metadata(footer)
    assert metadata == pq.read_metadata(path)
    assert (metadata.num_rows, metadata.num_row_groups) == (5000, 3)
    assert metadata.schema.to_arrow_schema() == table.schema


def test_a_local_table_is_a_file_uri_under_the_bucket_directory(tmp_path: Path) -> None:
    location = table_location("local", LocalSettings(root=tmp_path), "bkt", "lake/orders/")
    assert location.uri == (tmp_path / "bkt" / "lake" / "orders").resolve().as_uri()
    assert location.file_uri("lake/orders/x.parquet") == (tmp_path / "bkt" / "lake/orders/x.parquet").resolve().as_uri()


def test_an_s3_table_gets_the_stores_endpoint_and_credentials_for_both_libraries() -> None:
    settings = S3Settings(region="eu-west-1", custom_endpoint="http://127.0.0.1:9000", path_style_access=True,
                          auth_mode="Credentials", access_key=Secret("AK"), secret_key=Secret("SK"))
    location = table_location("s3", settings, "bkt", "lake/orders")
    assert (location.uri, location.file_uri("lake/orders/a.parquet")) == (
        "s3://bkt/lake/orders", "s3://bkt/lake/orders/a.parquet")
    assert location.iceberg_io == {"s3.region": "eu-west-1", "s3.endpoint": "http://127.0.0.1:9000",
                                   "s3.force-virtual-addressing": "false", "s3.access-key-id": "AK",
                                   "s3.secret-access-key": "SK"}
    assert location.delta_storage["AWS_ALLOW_HTTP"] == "true"
    assert location.delta_storage["AWS_SECRET_ACCESS_KEY"] == "SK"
    assert "SK" not in repr(location)


def test_a_gcs_table_is_a_gs_uri_whose_file_io_carries_the_auth_and_the_endpoint_and_no_repr_shows_the_key() -> None:
    settings = GcsSettings(auth_mode="Credentials", credentials=Secret('{"private_key": "PEM"}'),
                           endpoint="http://127.0.0.1:4443")
    location = table_location("gcs", settings, "bkt", "lake/orders")
    assert location.uri == "gs://bkt/lake/orders" and location.file_uri("lake/x.parquet") == "gs://bkt/lake/x.parquet"
    assert location.iceberg_io == {
        "py-io-impl": "lakesink.adapters.tables.file_io.LakesinkFileIO", "lakesink.gcs.auth-mode": "Credentials",
        "lakesink.gcs.credentials": '{"private_key": "PEM"}', "gcs.service.host": "http://127.0.0.1:4443",
    }
    assert "PEM" not in repr(location) and location.delta_storage == {}


def test_an_azure_account_key_and_endpoint_reach_both_libraries_and_no_repr() -> None:
    settings = AzureSettings(auth_mode="Credentials", account_name="devstoreaccount1", account_key=Secret("KEY=="),
                             endpoint="http://127.0.0.1:10000/devstoreaccount1")
    location = table_location("azure", settings, "cont", "lake/orders")
    assert location.uri == "abfs://cont/lake/orders" and location.file_uri("lake/x.parquet") == "abfs://cont/lake/x.parquet"
    assert location.iceberg_io["adls.account-key"] == "KEY=="
    assert location.iceberg_io["adls.blob-storage-authority"] == "127.0.0.1:10000"
    assert location.iceberg_io["adls.blob-storage-scheme"] == "http"
    assert location.delta_storage == {
        "azure_storage_account_name": "devstoreaccount1", "azure_storage_account_key": "KEY==",
        "azure_storage_endpoint": "http://127.0.0.1:10000/devstoreaccount1", "azure_allow_http": "true",
    }
    assert "KEY==" not in repr(location)


def test_an_azure_connection_string_gives_the_account_its_key_and_its_blob_endpoint() -> None:
    settings = AzureSettings(auth_mode="ConnectionString", connection_string=Secret(
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=K2==;BlobEndpoint=https://acct.blob.core.windows.net/"))
    location = table_location("azure", settings, "cont", "lake/orders")
    assert location.iceberg_io["adls.account-name"] == "acct" and location.iceberg_io["adls.account-key"] == "K2=="
    assert location.iceberg_io["adls.blob-storage-authority"] == "blob.core.windows.net"


def test_an_azure_table_without_an_account_name_is_refused_naming_the_setting() -> None:
    with pytest.raises(ConfigError, match="connect.datalake.azure.account.name"):
        table_location("azure", AzureSettings(), "cont", "lake/orders")
