"""Backend detection and each backend's typed settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakesink.domain.config.backends import (
    AzureSettings,
    GcsSettings,
    LocalSettings,
    MemorySettings,
    S3Settings,
)
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from tests.support.backend_settings import parse_backend


@pytest.mark.parametrize(
    ("key", "backend"),
    [("connect.s3.kcql", "s3"), ("connect.gcpstorage.kcql", "gcs"), ("connect.datalake.kcql", "azure"),
     ("connect.memory.kcql", "memory")],
)
def test_backend_follows_the_key_prefix(key: str, backend: str) -> None:
    assert parse_backend({key: "x"})[0] == backend


@pytest.mark.parametrize(
    ("connector_class", "backend"),
    [
        ("io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector", "s3"),
        ("io.lenses.streamreactor.connect.aws.s3.source.S3SourceConnector", "s3"),
        ("io.lenses.streamreactor.connect.gcp.storage.sink.GCPStorageSinkConnector", "gcs"),
        ("io.lenses.streamreactor.connect.datalake.sink.DatalakeSinkConnector", "azure"),
    ],
)
def test_backend_follows_the_lenses_connector_class_when_no_prefix_is_used(
    connector_class: str, backend: str
) -> None:
    assert parse_backend({"connector.class": connector_class})[0] == backend


def test_mixed_prefixes_are_rejected() -> None:
    with pytest.raises(ConfigError, match="more than one storage backend"):
        parse_backend({"connect.s3.kcql": "x", "connect.gcpstorage.kcql": "y"})


def test_connector_class_disagreeing_with_the_prefix_is_rejected() -> None:
    with pytest.raises(ConfigError, match="is a gcs connector"):
        parse_backend({"connector.class": "x.GCPStorageSinkConnector", "connect.s3.kcql": "x"})


def test_no_prefix_and_no_known_class_is_rejected() -> None:
    with pytest.raises(ConfigError, match="Cannot tell the storage backend"):
        parse_backend({"connector.class": "io.aiven.Whatever", "topics": "t"})


def test_prefixed_keys_are_case_insensitive() -> None:
    _, s3 = parse_backend({"CONNECT.S3.AWS.Region": "eu-west-2", "connect.s3.AWS.AUTH.MODE": "credentials",
                           "connect.s3.aws.access.key": "a", "connect.s3.aws.secret.key": "b"})
    assert isinstance(s3, S3Settings) and s3.region == "eu-west-2" and s3.auth_mode == "Credentials"


def test_same_key_in_two_cases_is_rejected() -> None:
    with pytest.raises(ConfigError, match="given twice"):
        parse_backend({"connect.s3.aws.region": "a", "connect.s3.AWS.region": "b"})


def test_s3_credentials_mode_without_both_keys_uses_the_lenses_message() -> None:
    with pytest.raises(ConfigError, match="one or both of `AWS_ACCESS_KEY` or `AWS_SECRET_KEY` are missing"):
        parse_backend({"connect.s3.aws.auth.mode": "Credentials", "connect.s3.aws.access.key": "a"})


def test_s3_keys_with_default_mode_are_rejected_rather_than_silently_ignored() -> None:
    message = "connect.s3.aws.access.key set but connect.s3.aws.auth.mode is Default"
    with pytest.raises(ConfigError, match=message):
        parse_backend({"connect.s3.aws.access.key": "a"})


def test_s3_unknown_auth_mode_is_rejected() -> None:
    with pytest.raises(ConfigError, match="Unsupported auth mode `Iam` for connect.s3.aws.auth.mode"):
        parse_backend({"connect.s3.aws.auth.mode": "Iam"})


def test_s3_credentials_are_secrets() -> None:
    _, s3 = parse_backend({"connect.s3.aws.auth.mode": "CREDENTIALS", "connect.s3.aws.access.key": "a",
                           "connect.s3.aws.secret.key": "b"})
    assert isinstance(s3, S3Settings) and s3.access_key == Secret("a") and s3.secret_key == Secret("b")


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({}, False),
        ({"connect.s3.vhost.bucket": "true"}, True),
        ({"connect.s3.vhost.bucket": "true", "connect.s3.path.style.access": "false"}, False),
        ({"connect.s3.vhost.bucket": "false", "connect.s3.path.style.access": "true"}, True),
    ],
)
def test_path_style_access_wins_over_the_inverted_vhost_bucket(props: dict[str, str], expected: bool) -> None:
    _, s3 = parse_backend({"connect.s3.kcql": "x", **props})
    assert isinstance(s3, S3Settings) and s3.path_style_access is expected


@pytest.mark.parametrize(("raw", "expected"), [("-1", 50), ("7", 7)])
def test_s3_pool_size_minus_one_means_fifty(raw: str, expected: int) -> None:
    _, s3 = parse_backend({"connect.s3.pool.max.connections": raw})
    assert isinstance(s3, S3Settings) and s3.pool_max_connections == expected


@pytest.mark.parametrize(
    ("key", "raw", "message"),
    [
        ("connect.s3.pool.max.connections", "0", "use -1 or at least 1"),
        ("connect.s3.http.max.retries", "many", "expected an integer"),
        ("connect.s3.custom.endpoint", "localhost:9000", "expected an http:// or https:// URL"),
        ("connect.s3.path.style.access", "yes", "expected true or false"),
        ("connect.s3.multipart.part.size", "1024", "must be at least"),
        ("connect.s3.ca.bundle", "certs/ca.pem", "must be an absolute path"),
    ],
)
def test_bad_s3_values_name_the_key(key: str, raw: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_backend({key: raw})
    assert key in str(caught.value)


def test_s3_settings_are_typed() -> None:
    _, s3 = parse_backend({
        "connect.s3.custom.endpoint": "http://127.0.0.1:9000",
        "connect.s3.http.retry.interval": "9",
        "connect.s3.http.socket.timeout": "100",
        "connect.s3.http.connection.timeout": "200",
    })
    assert s3 == S3Settings(custom_endpoint="http://127.0.0.1:9000", http_retry_interval_ms=9,
                            http_socket_timeout_ms=100, http_connection_timeout_ms=200)


def test_s3_ca_bundle_is_an_absolute_path_handed_to_the_adapter() -> None:
    _, s3 = parse_backend({"connect.s3.ca.bundle": "/etc/ssl/private-ca.pem"})
    assert s3 == S3Settings(ca_bundle="/etc/ssl/private-ca.pem")


def test_gcs_modes_and_settings() -> None:
    _, gcs = parse_backend({
        "connect.gcpstorage.gcp.auth.mode": "file",
        "connect.gcpstorage.gcp.file": "/k.json",
        "connect.gcpstorage.gcp.project.id": "p",
        "connect.gcpstorage.endpoint": "http://h:1",
        "connect.gcpstorage.http.retry.timeout.multiplier": "1.5",
    })
    assert gcs == GcsSettings(
        auth_mode="File", credentials_file="/k.json", project_id="p", endpoint="http://h:1",
        http_retry_timeout_multiplier=1.5,
    )


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"connect.gcpstorage.gcp.auth.mode": "Credentials"}, "gcp.credentials is missing"),
        ({"connect.gcpstorage.gcp.auth.mode": "File"}, "gcp.file is missing"),
        ({"connect.gcpstorage.gcp.auth.mode": "None", "connect.gcpstorage.gcp.credentials": "{}"}, "ignored"),
        ({"connect.gcpstorage.gcp.auth.mode": "oauth"}, "Unsupported auth mode `oauth`"),
    ],
)
def test_gcs_auth_mode_rules(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_backend(props)


def test_azure_modes_and_settings() -> None:
    _, azure = parse_backend({
        "connect.datalake.azure.auth.mode": "connectionstring",
        "connect.datalake.azure.connection.string": "cs",
        "connect.datalake.pool.max.connections": "-1",
    })
    assert azure == AzureSettings(auth_mode="ConnectionString", connection_string=Secret("cs"))


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"connect.datalake.azure.auth.mode": "Credentials", "connect.datalake.azure.account.name": "a"},
         "one or both of connect.datalake.azure.account.name or connect.datalake.azure.account.key"),
        ({"connect.datalake.azure.auth.mode": "ConnectionString"}, "azure.connection.string is missing"),
        ({"connect.datalake.azure.account.key": "k"}, "would be ignored"),
    ],
)
def test_azure_auth_mode_rules(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_backend(props)


def test_local_needs_a_root_and_memory_has_a_default_name() -> None:
    with pytest.raises(ConfigError, match="connect.local.root is required"):
        parse_backend({"connect.local.kcql": "x"})
    assert parse_backend({"connect.local.root": "/data"}) == ("local", LocalSettings(root=Path("/data")))
    assert parse_backend({"connect.memory.kcql": "x"}) == ("memory", MemorySettings())
