"""The key catalog, its generated reference, and its defaults against the Lenses documentation."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakesink.domain.config.catalog import CATALOG, find_spec, looks_secret, setting
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.keyspec import Kind, ValueType
from lakesink.domain.config.reference_doc import render_reference

DOC = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"
REGENERATE = ".venv/bin/python -m lakesink.domain.config.reference_doc > docs/configuration.md"

#: The "Option Reference" defaults of the Lenses S3 sink page (seed 000), transcribed.
SEED_DEFAULTS = {
    "aws.auth.mode": "Default",
    "vhost.bucket": "false",
    "error.policy": "THROW",
    "max.retries": "20",
    "retry.interval": "60000",
    "http.max.retries": "5",
    "http.retry.interval": "50",
    "compression.codec": "UNCOMPRESSED",
    "seek.max.files": "5",
    "indexes.name": ".indexes",
    "exactly.once.enable": "true",
    "schema.change.detector": "default",
    "skip.null.values": "false",
    "latest.schema.optimization.enabled": "false",
}
#: Seed keys documented with an empty default: not set unless given.
SEED_UNSET = ("aws.access.key", "aws.secret.key", "aws.region", "custom.endpoint", "path.style.access",
              "local.tmp.directory", "kcql")


def test_docs_configuration_md_is_generated_from_the_catalog() -> None:
    stale = f"docs/configuration.md is stale; regenerate it with: {REGENERATE}"
    assert DOC.read_text(encoding="utf-8") == render_reference(), stale


def test_every_catalog_name_is_unique_per_prefixing_and_backend() -> None:
    seen: set[tuple[str, bool, str]] = set()
    for spec in CATALOG:
        for backend in spec.backends or ("s3", "gcs", "azure", "local", "memory"):
            entry = (spec.name, spec.prefixed, backend)
            assert entry not in seen, entry
            seen.add(entry)


def test_password_keys_are_secret_and_deprecated_keys_name_a_replacement() -> None:
    for spec in CATALOG:
        assert (spec.type is ValueType.PASSWORD) == spec.secret, spec.name
        assert (spec.kind is Kind.DEPRECATED) == (spec.replacement is not None), spec.name


@pytest.mark.parametrize(("name", "default"), sorted(SEED_DEFAULTS.items()))
def test_catalog_defaults_match_the_lenses_option_reference(name: str, default: str) -> None:
    spec = find_spec(f"connect.s3.{name}", prefix="connect.s3", backend="s3")
    assert spec is not None and spec.default == default


@pytest.mark.parametrize("name", SEED_UNSET)
def test_keys_with_empty_lenses_default_are_unset_by_default(name: str) -> None:
    assert setting(name).default is None


def test_resolved_defaults_match_the_lenses_option_reference() -> None:
    settings = ConnectorSettings.from_properties(
        {"name": "n", "topics": "t", "connect.s3.kcql": "INSERT INTO b SELECT * FROM t"}
    )
    assert settings.storage.pool_max_connections == 50  # seed: -1 (undefined) → 50
    assert settings.storage.auth_mode == "Default"
    assert (settings.max_retries, settings.retry_interval_ms) == (20, 60_000)
    assert settings.exactly_once is True and settings.indexes_name == ".indexes"
    assert settings.compression_level is None


def test_exact_keys_win_over_families() -> None:
    exact = find_spec("key.converter", prefix="connect.s3", backend="s3")
    family = find_spec("key.converter.schemas.enable", prefix="connect.s3", backend="s3")
    assert exact is not None and exact.kind is Kind.SETTING
    assert family is not None and family.kind is Kind.PASSTHROUGH


def test_backend_specific_keys_are_unknown_for_other_backends() -> None:
    assert find_spec("connect.gcpstorage.aws.region", prefix="connect.gcpstorage", backend="gcs") is None
    assert find_spec("connect.gcpstorage.gcp.file", prefix="connect.gcpstorage", backend="gcs") is not None


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("sasl.password", True),
        ("sasl.jaas.config", True),
        ("ssl.key.pem", True),
        ("ssl.keystore.password", True),
        ("sasl.oauthbearer.client.secret", True),
        ("basic.auth.user.info", True),
        ("bearer.auth.token", True),
        ("credential", True),  # a REST catalog's client_id:client_secret (table.catalog.credential)
        ("gcs.service.account.credentials", True),
        ("schemas.enable", False),
        ("schema.registry.url", False),
        ("basic.auth.credentials.source", False),
        ("ssl.certificate.pem", False),
        ("key.subject.name.strategy", False),
        ("security.protocol", False),
    ],
)
def test_pass_through_names_holding_key_material_look_secret(name: str, secret: bool) -> None:
    assert looks_secret(name) is secret
