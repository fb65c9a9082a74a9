"""TLS to an S3-compatible endpoint whose certificate a private CA signed (self-signed MinIO, a corporate CA).

moto's S3 sits behind a TLS terminator (tests/support/tls.py) whose certificate a throw-away CA
signed. Without that CA the sink stops before Spark starts with one ``lakesink: error:`` line that
names the TLS failure and ``connect.s3.ca.bundle``; with ``connect.s3.ca.bundle`` pointing at the CA
the sink writes over TLS (the driver and every executor verify the certificate) and the objects
read back; an Iceberg table's commits reach the endpoint through pyiceberg's file system, which lakesink
hands the same CA.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import boto3
import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.tables.locations import table_location
from lakesink.domain.config.connector import ConnectorSettings
from tests.integration.sink.conftest import MotoS3, assert_exactly_once, produce_ids, run_sink, s3_props
from tests.support.tls import Certificates, TlsTerminator, make_certificates

pytestmark = [pytest.mark.integration, pytest.mark.s3]

KCQL = "INSERT INTO {bucket}:tls SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=5)"


class TlsS3:
    """The TLS endpoint in front of moto, and the CA that signed its certificate."""

    def __init__(self, certificates: Certificates, terminator: TlsTerminator) -> None:
        self.certificates = certificates
        self.terminator = terminator
        self.url = f"https://127.0.0.1:{terminator.port}"


@pytest.fixture(scope="module")
def tls_s3(moto_s3: MotoS3, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsS3]:
    certificates = make_certificates(tmp_path_factory.mktemp("tls"))
    upstream = urlsplit(moto_s3.url)
    with TlsTerminator(certificates, (upstream.hostname or "127.0.0.1", upstream.port or 80)) as terminator:
        yield TlsS3(certificates, terminator)


def _plain_client(moto_s3: MotoS3):  # type: ignore[no-untyped-def]
    return boto3.client("s3", endpoint_url=moto_s3.url, aws_access_key_id="testing", aws_secret_access_key="testing",
                        region_name="us-east-1")


def test_without_the_ca_the_sink_stops_with_one_line_naming_the_tls_failure_and_the_setting(
    kafka: EmbeddedKafka, moto_s3: MotoS3, tls_s3: TlsS3, topic: str, tmp_path: Path
) -> None:
    bucket = f"tls-{topic[-10:]}"
    _plain_client(moto_s3).create_bucket(Bucket=bucket)
    props = s3_props(moto_s3, KCQL.format(bucket=bucket, topic=topic), topic, kafka,
                     **{"connect.s3.custom.endpoint": tls_s3.url, "connect.s3.http.max.retries": "1"})
    config = tmp_path / "sink.json"
    config.write_text(json.dumps(props))
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AWS_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")}
    before = tls_s3.terminator.handshake_failures

    done = subprocess.run([sys.executable, "-m", "lakesink.application.cli", "sink", "--once", "--config", str(config)],
                          capture_output=True, text=True, env=environment, timeout=120, check=False)

    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("lakesink: error: TLS to the S3 endpoint"), done.stderr
    assert "certificate verify failed" in done.stderr
    assert "connect.s3.custom.endpoint and connect.s3.ca.bundle" in done.stderr
    assert tls_s3.terminator.handshake_failures > before  # it was our server's certificate it refused


def test_with_the_ca_bundle_the_sink_writes_over_tls_and_the_objects_read_back(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, tls_s3: TlsS3, topic: str, tmp_path: Path
) -> None:
    bucket = f"tls-{topic[-10:]}"
    plain = _plain_client(moto_s3)
    plain.create_bucket(Bucket=bucket)
    produce_ids(kafka, topic, range(20))
    props = s3_props(moto_s3, KCQL.format(bucket=bucket, topic=topic), topic, kafka,
                     **{"connect.s3.custom.endpoint": tls_s3.url,
                        "connect.s3.ca.bundle": str(tls_s3.certificates.ca)})

    run_sink(spark, props, tmp_path / "checkpoint")

    keys = [item["Key"] for item in plain.list_objects_v2(Bucket=bucket, Prefix="tls/").get("Contents", [])]
    ids = [json.loads(line)["id"] for key in keys
           for line in plain.get_object(Bucket=bucket, Key=key)["Body"].read().splitlines()]
    assert_exactly_once(ids, range(20))


def test_with_the_ca_bundle_an_iceberg_table_commits_over_tls_and_reads_back_through_the_same_ca(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, tls_s3: TlsS3, topic: str, tmp_path: Path
) -> None:
    bucket = f"tlt-{topic[-10:]}"
    _plain_client(moto_s3).create_bucket(Bucket=bucket)
    produce_ids(kafka, topic, range(20))
    kcql = (f"INSERT INTO {bucket}:lake/orders SELECT * FROM {topic} STOREAS `PARQUET` "
            "PROPERTIES('flush.count'=5, 'table.format'='ICEBERG', 'table.name'='shop.orders')")
    catalog = f"sqlite:///{tmp_path}/catalog.db"
    props = s3_props(moto_s3, kcql, topic, kafka, **{"connect.s3.custom.endpoint": tls_s3.url,
                                                     "connect.s3.ca.bundle": str(tls_s3.certificates.ca),
                                                     "connect.s3.table.catalog.uri": catalog})
    before = tls_s3.terminator.handshake_failures

    run_sink(spark, props, tmp_path / "checkpoint")

    from pyiceberg.catalog.sql import SqlCatalog

    location = table_location("s3", ConnectorSettings.from_properties(props).storage, bucket, "lake/orders")
    table = SqlCatalog("lakesink", uri=catalog, **location.iceberg_io).load_table("shop.orders")
    assert_exactly_once(table.scan(selected_fields=("id",)).to_arrow().column("id").to_pylist(), range(20))
    assert tls_s3.terminator.handshake_failures == before  # every client trusted the endpoint
