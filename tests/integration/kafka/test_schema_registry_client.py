"""The Avro converter's registry client over TLS, mutual TLS and a bearer token, against the
registry double (behind a TLS terminator for TLS) on 127.0.0.1."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lakesink.adapters.kafka.converters import create_converter
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError, RecordError
from tests.support.schema_registry_double import SchemaRegistryDouble, confluent_avro
from tests.support.tls import Certificates, TlsTerminator, make_certificates

pytestmark = pytest.mark.integration

SCHEMA = {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"}]}
RECORD = "orders-0@1"
TOKEN = "eyJ-bearer-token-6c1f"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("registry-tls"))


@pytest.fixture
def mutual_tls_registry(certificates: Certificates) -> Iterator[tuple[str, int, TlsTerminator]]:
    """An HTTPS registry that asks for a client certificate; its URL, a schema id, the terminator."""
    with SchemaRegistryDouble() as registry:
        schema_id = registry.register(SCHEMA)
        port = int(registry.url.rsplit(":", 1)[1])
        with TlsTerminator(certificates, ("127.0.0.1", port), mutual=True) as terminator:
            yield f"https://127.0.0.1:{terminator.port}", schema_id, terminator


def decode(settings: dict[str, str | Secret], schema_id: int) -> object:
    converter = create_converter("io.confluent.connect.avro.AvroConverter", settings, setting="value.converter")
    return converter.decode(confluent_avro(schema_id, SCHEMA, {"id": 7}), record=RECORD)[0]


def test_mutual_tls_with_the_ca_and_a_client_certificate_in_pem_files(
    certificates: Certificates, mutual_tls_registry: tuple[str, int, TlsTerminator]
) -> None:
    url, schema_id, _ = mutual_tls_registry
    settings: dict[str, str | Secret] = {
        "schema.registry.url": url,
        "schema.registry.ssl.ca.location": str(certificates.ca),
        "schema.registry.ssl.certificate.location": str(certificates.client_certificate),
        "schema.registry.ssl.key.location": str(certificates.client_key),
    }
    assert decode(settings, schema_id) == {"id": 7}


def test_java_pem_trust_and_key_stores_are_read_as_the_same_files(
    certificates: Certificates, mutual_tls_registry: tuple[str, int, TlsTerminator], tmp_path: Path
) -> None:
    url, schema_id, _ = mutual_tls_registry
    keystore = tmp_path / "client-chain.pem"  # a PEM key store: the certificate and its key in one file
    keystore.write_bytes(certificates.client_certificate.read_bytes() + certificates.client_key.read_bytes())
    settings: dict[str, str | Secret] = {
        "schema.registry.url": url,
        "schema.registry.ssl.truststore.type": "PEM",
        "schema.registry.ssl.truststore.location": str(certificates.ca),
        "schema.registry.ssl.keystore.type": "PEM",
        "schema.registry.ssl.keystore.location": str(keystore),
    }
    assert decode(settings, schema_id) == {"id": 7}


def test_without_the_client_certificate_the_handshake_fails_after_the_configured_retries(
    certificates: Certificates, mutual_tls_registry: tuple[str, int, TlsTerminator]
) -> None:
    url, schema_id, terminator = mutual_tls_registry
    settings: dict[str, str | Secret] = {
        "schema.registry.url": url, "schema.registry.ssl.ca.location": str(certificates.ca),
        "max.retries": "1", "retries.wait.ms": "10",
    }
    with pytest.raises(RecordError, match=f"{RECORD}.*No Schema Registry answered for schema id {schema_id} at {url}"):
        decode(settings, schema_id)
    # The terminator counts a refused handshake on its own thread, which may run after the client gave
    # up (under TLS 1.3 the client learns of the refusal from the server's alert): wait for the count.
    deadline = time.monotonic() + 5
    while terminator.handshake_failures < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert terminator.handshake_failures == 2  # the first try and the one retry


def test_a_static_bearer_token_and_logical_cluster_reach_the_registry() -> None:
    with SchemaRegistryDouble(bearer=(TOKEN, "lsrc-42")) as registry:
        schema_id = registry.register(SCHEMA)
        settings: dict[str, str | Secret] = {
            "schema.registry.url": registry.url, "bearer.auth.credentials.source": "STATIC_TOKEN",
            "bearer.auth.token": Secret(TOKEN), "bearer.auth.logical.cluster": "lsrc-42",
        }
        assert decode(settings, schema_id) == {"id": 7}
        wrong = {**settings, "bearer.auth.token": Secret("not-the-token")}
        with pytest.raises(RecordError, match="HTTP 401") as refused:
            decode(wrong, schema_id)
        assert "not-the-token" not in str(refused.value)


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"schema.registry.ssl.truststore.location": "/etc/ssl/registry.jks"}, "schema.registry.ssl.truststore.type=JKS"),
        ({"schema.registry.ssl.keystore.type": "PKCS12"}, "schema.registry.ssl.keystore.type=PKCS12"),
        ({"schema.registry.ssl.protocol": "TLSv1.3"}, "schema.registry.ssl.protocol"),
        ({"schema.registry.ssl.key.location": "/nowhere.key"}, "ssl.certificate.location required"),
        ({"bearer.auth.credentials.source": "SASL_OAUTHBEARER_INHERIT"}, "bearer.auth.credentials.source"),
    ],
)
def test_settings_the_client_cannot_use_fail_at_start_naming_the_setting(settings: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=named.replace(".", r"\.")):
        create_converter("avro", {"schema.registry.url": "https://127.0.0.1:1", **settings}, setting="value.converter")
