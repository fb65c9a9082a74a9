"""Iceberg tables on Azure Blob Storage (Azurite) and Google Cloud Storage (fake-gcs-server): the storage
settings' credentials and endpoint reach pyiceberg (pyarrow's AzureFileSystem; lakesink's FileIO on GCS),
every record lands once, read back through the catalog, and the newest snapshot holds the locks' offsets.

Azure: the account, key and endpoint. GCS: auth mode Credentials mints access tokens from the
service-account key with google-auth; the key's ``token_uri`` points at a token endpoint on 127.0.0.1 (a
stand-in for Google's OAuth2 server, which this machine cannot reach; the emulator checks no token), which
records the scope each assertion asks for, so the FileIO's own tokens, and their renewal, are counted.
(Delta tables on either are refused at start: tests/unit/kcql/test_table_properties.py.)
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pyiceberg.catalog.sql import SqlCatalog
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.tables.file_io import SCOPE, LakesinkFileIO
from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.tables.marks import mark_of
from tests.conftest import unique_name
from tests.integration.sink.conftest import PARTITIONS, assert_exactly_once, produce_ids, run_sink
from tests.support.emulators import Server
from tests.support.store_buckets import AzureContainer, GcsBucket, StoreBucket

pytestmark = [pytest.mark.integration]

TOKEN_LIFETIME_S = 226
"""google-auth counts a token invalid 225 s before it expires: these are renewed after about 1 s."""


class TokenEndpoint:
    """An OAuth2 token endpoint on 127.0.0.1 answering every JWT bearer assertion with a fresh token."""

    def __init__(self) -> None:
        self.scopes: list[str] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
                claims = form["assertion"][0].split(".")[1]
                endpoint.scopes.append(json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))["scope"])
                body = json.dumps({"access_token": f"token-{len(endpoint.scopes)}", "expires_in": TOKEN_LIFETIME_S,
                                   "token_type": "Bearer"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/token"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def token_endpoint() -> Iterator[TokenEndpoint]:
    endpoint = TokenEndpoint()
    yield endpoint
    endpoint.stop()


def _service_account(token_uri: str) -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return json.dumps({
        "type": "service_account", "project_id": "test", "private_key_id": "k1", "private_key": pem.decode(),
        "client_email": "sink@test.iam.gserviceaccount.com", "client_id": "1", "token_uri": token_uri,
    })


def _sink_props(kafka: EmbeddedKafka, topic: str, tmp_path: Path, bucket: StoreBucket, url: str) -> dict[str, str]:
    return {
        "name": unique_name("sink"),
        "topics": topic,
        "bootstrap.servers": kafka.bootstrap_servers,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        f"{bucket.prefix}.kcql": (
            f"INSERT INTO {bucket.name}:lake/orders SELECT * FROM {topic} STOREAS `PARQUET` "
            "PROPERTIES('flush.count'=5, 'table.format'='ICEBERG', 'table.name'='shop.orders')"
        ),
        f"{bucket.prefix}.table.catalog.uri": f"sqlite:///{tmp_path}/catalog.db",
        **bucket.connector_settings(url),
    }


def _assert_table(props: dict[str, str], tmp_path: Path, bucket: StoreBucket, ids: range, scheme: str) -> None:
    settings = ConnectorSettings.from_properties(props)
    location = table_location(settings.backend, settings.storage, bucket.name, "lake/orders")
    assert location.uri == f"{scheme}://{bucket.name}/lake/orders"
    table = SqlCatalog("lakesink", uri=f"sqlite:///{tmp_path}/catalog.db", **location.iceberg_io).load_table("shop.orders")
    read = table.scan(selected_fields=("id",)).to_arrow().column("id").to_pylist()
    mark = mark_of(props["name"], table.current_snapshot().summary.additional_properties)  # type: ignore[union-attr]
    assert mark is not None and sum(offset + 1 for offset in mark.offsets.values()) == len(ids)
    assert {partition for _, partition in mark.offsets} == set(range(PARTITIONS))
    assert_exactly_once(read, ids)
    files = table.inspect.all_data_files().column("file_path").to_pylist()
    assert files and set(files) <= {f"{scheme}://{bucket.name}/{key}" for key in bucket.keys() if key.startswith("lake/orders/")}


@pytest.mark.parametrize("store", [pytest.param("azure", marks=pytest.mark.azure), pytest.param("gcs", marks=pytest.mark.gcs)])
def test_a_topic_lands_in_an_iceberg_table_once_with_the_locks_offsets(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, request: pytest.FixtureRequest, store: str,
    token_endpoint: TokenEndpoint,
) -> None:
    """Azure with the account's key; GCS with a service-account key, whose tokens the table's FileIO
    asks for with its own scope."""
    server: Server = request.getfixturevalue("azurite" if store == "azure" else "fake_gcs")
    bucket = (AzureContainer if store == "azure" else GcsBucket)(server.url, unique_name("tables"))
    props = _sink_props(kafka, topic, tmp_path, bucket, server.url)
    if store == "gcs":
        props.update({"connect.gcpstorage.gcp.auth.mode": "Credentials",
                      "connect.gcpstorage.gcp.credentials": _service_account(token_endpoint.url)})
    produce_ids(kafka, topic, range(30))
    run_sink(spark, props, tmp_path / "ck")
    produce_ids(kafka, topic, range(30, 44))
    run_sink(spark, props, tmp_path / "ck")
    assert (SCOPE in token_endpoint.scopes) == (store == "gcs")
    _assert_table(props, tmp_path, bucket, range(44), "abfs" if store == "azure" else "gs")


@pytest.mark.gcs
def test_the_file_io_mints_a_new_token_before_the_old_one_expires_and_reaches_the_bucket_with_it(
    fake_gcs: Server, token_endpoint: TokenEndpoint, tmp_path: Path
) -> None:
    """And with auth mode None the FileIO reads the bucket anonymously, asking for no token."""
    bucket = GcsBucket(fake_gcs.url, unique_name("tables"))
    (tmp_path / "key.json").write_text(_service_account(token_endpoint.url))
    io = LakesinkFileIO({"lakesink.gcs.auth-mode": "File", "lakesink.gcs.credentials-file": str(tmp_path / "key.json"),
                    "gcs.service.host": fake_gcs.url})
    with io.new_output(f"gs://{bucket.name}/lake/a.bin").create() as out:
        out.write(b"first")
    first = io.fs_by_scheme("gs", bucket.name)
    assert io.fs_by_scheme("gs", bucket.name) is first and token_endpoint.scopes == [SCOPE]
    time.sleep(TOKEN_LIFETIME_S - 225 + 1)
    with io.new_input(f"gs://{bucket.name}/lake/a.bin").open() as stream:
        assert stream.read() == b"first"
    assert io.fs_by_scheme("gs", bucket.name) is not first and token_endpoint.scopes == [SCOPE, SCOPE]
    anonymous = LakesinkFileIO({"lakesink.gcs.auth-mode": "None", "gcs.service.host": fake_gcs.url})
    with anonymous.new_input(f"gs://{bucket.name}/lake/a.bin").open() as stream:
        assert stream.read() == b"first"
    assert token_endpoint.scopes == [SCOPE, SCOPE]
