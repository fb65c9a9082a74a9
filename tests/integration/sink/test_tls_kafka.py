"""Kafka over SSL (``security.protocol=SSL``, ``ssl.ca.location``) to a broker whose certificate a private CA signed.

librdkafka's mock cluster speaks plaintext only and advertises its own port, so this runs on Tansu
(tests/support/tansu.py) behind a TLS terminator (tests/support/tls.py): Tansu advertises the
terminator's port, so every connection a client makes after reading the metadata goes through
TLS too. The sink's driver (metadata, offsets) and its executors (range reads), and the restore's
driver and transactional producers, all connect over SSL with the CA; without the CA the sink stops
before Spark starts with the preflight's one line naming the ssl.* settings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import boto3
import pytest
from confluent_kafka import Consumer, TopicPartition
from pyspark.sql import SparkSession

from lakesink.adapters.demo.s3 import free_port
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.application.bootstrap.restore import restore
from lakesink.application.restore import load_plan
from tests.integration.restore.conftest import local_restore_props
from tests.integration.sink.conftest import MotoS3, assert_exactly_once, run_sink, s3_props
from tests.support.tansu import produce, tansu
from tests.support.tls import Certificates, TlsTerminator, make_certificates

pytestmark = [pytest.mark.integration, pytest.mark.s3]

KCQL = "INSERT INTO {bucket}:ssl SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=5)"
RECORDS = 20


@dataclass(frozen=True)
class SslKafka:
    """Tansu, reachable only through TLS at ``bootstrap`` (it advertises the terminator's port)."""

    bootstrap: str
    certificates: Certificates
    terminator: TlsTerminator


@pytest.fixture(scope="module")
def ssl_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SslKafka]:
    certificates = make_certificates(tmp_path_factory.mktemp("kafka-tls"))
    tls_port = free_port()
    with tansu(advertised_port=tls_port) as plaintext:
        host, port = plaintext.split(":")
        with TlsTerminator(certificates, (host, int(port)), port=tls_port) as terminator:
            yield SslKafka(f"127.0.0.1:{tls_port}", certificates, terminator)


def _props(moto_s3: MotoS3, kafka: EmbeddedKafka, ssl_kafka: SslKafka, bucket: str, topic: str,
           **ssl: str) -> dict[str, str]:
    boto3.client("s3", endpoint_url=moto_s3.url, aws_access_key_id="testing", aws_secret_access_key="testing",
                 region_name="us-east-1").create_bucket(Bucket=bucket)
    return s3_props(moto_s3, KCQL.format(bucket=bucket, topic=topic), topic, kafka,
                    **{"bootstrap.servers": ssl_kafka.bootstrap, "security.protocol": "SSL", **ssl})


def test_the_sink_reads_kafka_over_ssl_with_the_ca_in_ssl_ca_location(
    spark: SparkSession, kafka: EmbeddedKafka, moto_s3: MotoS3, ssl_kafka: SslKafka, topic: str, tmp_path: Path
) -> None:
    ssl = {"security.protocol": "SSL", "ssl.ca.location": str(ssl_kafka.certificates.ca)}
    produce(ssl_kafka.bootstrap, topic, [json.dumps({"id": i}).encode() for i in range(RECORDS)], **ssl)
    bucket = f"ssl-{topic[-10:]}"
    props = _props(moto_s3, kafka, ssl_kafka, bucket, topic, **ssl)
    before = ssl_kafka.terminator.connections

    run_sink(spark, props, tmp_path / "checkpoint")

    plain = boto3.client("s3", endpoint_url=moto_s3.url, aws_access_key_id="testing",
                         aws_secret_access_key="testing", region_name="us-east-1")
    keys = [item["Key"] for item in plain.list_objects_v2(Bucket=bucket, Prefix="ssl/").get("Contents", [])]
    ids = [json.loads(line)["id"] for key in keys
           for line in plain.get_object(Bucket=bucket, Key=key)["Body"].read().splitlines()]
    assert_exactly_once(ids, range(RECORDS))
    assert ssl_kafka.terminator.connections > before  # every read went through TLS: nothing else reaches Tansu


def test_without_the_ca_the_sink_stops_with_one_line_naming_the_ssl_settings(
    kafka: EmbeddedKafka, moto_s3: MotoS3, ssl_kafka: SslKafka, topic: str, tmp_path: Path
) -> None:
    config = tmp_path / "sink.json"
    config.write_text(json.dumps(_props(moto_s3, kafka, ssl_kafka, f"ssl-{topic[-10:]}", topic)))
    environment = {key: value for key, value in os.environ.items() if key not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}

    done = subprocess.run([sys.executable, "-m", "lakesink.application.cli", "sink", "--once", "--config", str(config)],
                          capture_output=True, text=True, env=environment, timeout=120, check=False)

    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"lakesink: error: TLS to Kafka at bootstrap.servers={ssl_kafka.bootstrap} failed")
    assert "certificate verify failed" in done.stderr
    assert "ssl.ca.location" in done.stderr


def test_the_restore_produces_over_ssl_with_the_ca_in_ssl_ca_location(
    spark: SparkSession, ssl_kafka: SslKafka, topic: str, tmp_path: Path
) -> None:
    lines = [f"line-{i}".encode() for i in range(RECORDS)]
    backup = tmp_path / "store" / "bkt" / "backup" / "src" / "0"
    backup.mkdir(parents=True)
    (backup / f"{RECORDS - 1:012d}_1_1.text").write_bytes(b"\n".join(lines) + b"\n")
    ssl = {"security.protocol": "SSL", "ssl.ca.location": str(ssl_kafka.certificates.ca)}
    produce(ssl_kafka.bootstrap, topic, [b"before"], **ssl)  # creates the target topic (one partition)
    kcql = f"INSERT INTO {topic} SELECT * FROM bkt:backup STOREAS `TEXT`"

    restore(load_plan(local_restore_props(tmp_path / "store", ssl_kafka.bootstrap, kcql, f"r-{topic}", **ssl)),
            spark, once=True)

    consumer = Consumer({"bootstrap.servers": ssl_kafka.bootstrap, "group.id": f"check-{topic}",
                         "isolation.level": "read_committed", "enable.auto.commit": False, **ssl})
    try:
        consumer.assign([TopicPartition(topic, 0, 1)])
        values = [message.value() for message in consumer.consume(RECORDS, timeout=30) if not message.error()]
    finally:
        consumer.close()
    assert values == lines
