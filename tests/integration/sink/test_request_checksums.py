"""A store that refuses boto3's default checksums: found out at start, then every client leaves them out.

The store is moto behind :class:`~tests.support.checksum_rejecting_s3.ChecksumRejectingS3`, which
answers a request carrying ``x-amz-checksum-*`` / ``x-amz-sdk-checksum-algorithm`` the way Backblaze
B2 or Cloudflare R2 did after boto3 1.36.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.storage import settled_storage
from lakesink.adapters.storage.s3 import S3ObjectStore
from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import StorageError
from tests.integration.sink.conftest import MotoS3, assert_exactly_once, produce_ids, run_sink, s3_props
from tests.support.boto_bucket import BotoBucket
from tests.support.checksum_rejecting_s3 import ChecksumRejectingS3

pytestmark = [pytest.mark.integration]


@pytest.fixture(params=["b2", "r2"])
def rejecting(request: pytest.FixtureRequest, moto_s3: MotoS3) -> Iterator[ChecksumRejectingS3]:
    proxy = ChecksumRejectingS3(moto_s3.url, request.param).start()
    yield proxy
    proxy.stop()


def _bucket(moto: MotoS3) -> BotoBucket:
    return BotoBucket(moto.url, f"ck-{uuid.uuid4().hex[:12]}")


def _settings(endpoint: str, **extra: str) -> S3Settings:
    props = {
        "name": "checksums",
        "topics": "t",
        "connect.s3.kcql": "INSERT INTO b SELECT * FROM t",
        "connect.s3.aws.auth.mode": "Credentials",
        "connect.s3.aws.access.key": "testing",
        "connect.s3.aws.secret.key": "testing",
        "connect.s3.aws.region": "us-east-1",
        "connect.s3.custom.endpoint": endpoint,
        "connect.s3.path.style.access": "true",
        **extra,
    }
    storage = ConnectorSettings.from_properties(props).storage
    assert isinstance(storage, S3Settings)
    return storage


def test_a_store_refusing_the_default_checksums_gets_when_required_said_in_one_info_line(
    rejecting: ChecksumRejectingS3, moto_s3: MotoS3, caplog: pytest.LogCaptureFixture
) -> None:
    bucket = _bucket(moto_s3)
    settings = _settings(rejecting.url)
    with pytest.raises(StorageError, match="x-amz-"):  # what boto3's default meets there
        S3ObjectStore(dataclasses.replace(settings, checksum_calculation="when_supported")).put(bucket.name, "k", b"x")

    with caplog.at_level(logging.INFO, logger="lakesink.adapters.storage.s3_checksums"):
        settled = settled_storage(settings, bucket.name, ".indexes/s/.probes/run.checksums", writes=True)

    assert isinstance(settled, S3Settings) and settled.checksum_calculation == "when_required"
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert "refused boto3's default request checksums" in caplog.text and "when_required" in caplog.text
    S3ObjectStore(settled).put(bucket.name, "k", b"x")  # every later client leaves the checksums out
    assert bucket.keys() == ["k"]  # the probe object is gone


def test_a_store_taking_the_checksums_keeps_the_default_and_an_explicit_setting_is_not_probed(
    rejecting: ChecksumRejectingS3, moto_s3: MotoS3
) -> None:
    bucket = _bucket(moto_s3)
    settled = settled_storage(_settings(moto_s3.url), bucket.name, "probe", writes=True)
    assert isinstance(settled, S3Settings) and settled.checksum_calculation == "when_supported"

    explicit = _settings(rejecting.url, **{"connect.s3.checksum.calculation": "WHEN_REQUIRED"})
    assert settled_storage(explicit, bucket.name, "probe", writes=True) is explicit
    assert rejecting.refused == []


def test_a_restore_probes_with_a_read_only(rejecting: ChecksumRejectingS3, moto_s3: MotoS3) -> None:
    bucket = _bucket(moto_s3)
    settled = settled_storage(_settings(rejecting.url), bucket.name, ".indexes/r/.probes/x.checksums", writes=False)

    assert isinstance(settled, S3Settings) and settled.checksum_calculation == "when_required"
    assert rejecting.refused == [f"GET /{bucket.name}/.indexes/r/.probes/x.checksums"]  # x-amz-checksum-mode


def test_a_store_refusing_something_else_fails_with_its_answer_to_the_probe_without_checksums(
    rejecting: ChecksumRejectingS3, moto_s3: MotoS3
) -> None:
    with pytest.raises(StorageError, match="does not exist") as caught:
        settled_storage(_settings(rejecting.url), "no-such-bucket-here", "probe", writes=True)
    assert "x-amz-" not in str(caught.value)
    with pytest.raises(StorageError, match="does not exist"):
        settled_storage(_settings(moto_s3.url), "no-such-bucket-here", "probe", writes=True)


@pytest.mark.slow
def test_a_sink_on_a_store_refusing_the_checksums_writes_exactly_once(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path, moto_s3: MotoS3
) -> None:
    """The executors' clients carry the decision: one refused probe PUT, then no refusal at all."""
    proxy = ChecksumRejectingS3(moto_s3.url).start()
    try:
        bucket = _bucket(moto_s3)
        kcql = f"INSERT INTO {bucket.name}:out SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=3)"
        props = s3_props(MotoS3(proxy.url, moto_s3.process), kcql, topic, kafka)
        produce_ids(kafka, topic, range(20))

        run_sink(spark, props, tmp_path / "ck")
    finally:
        proxy.stop()

    assert len(proxy.refused) == 1 and proxy.refused[0].startswith("PUT ")
    ids = [json.loads(line)["id"] for key in bucket.keys() for line in bucket.read(key).splitlines()]
    assert_exactly_once(ids, range(20))
