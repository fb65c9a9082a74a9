"""The settings a person edits to fix a store problem, named as the config in hand spells them.

An error that says "access denied" helps less than one that names ``connect.s3.aws.access.key``;
a Confluent or Aiven user must see their own key names (``store.url``, ``aws.s3.endpoint``), not
the Lenses ones the run is built from.
"""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.domain.config.connector import ConnectorSettings

_AWS_CA_BUNDLE = "the AWS_CA_BUNDLE environment variable"


@dataclass(frozen=True, slots=True)
class StoreKeys:
    """Where the endpoint, the credentials, the region, the bucket and the CAs that verify TLS are set."""

    endpoint: str
    credentials: str
    region: str | None
    bucket: str
    tls: str = ""


def store_keys(settings: ConnectorSettings) -> StoreKeys:
    """The store's setting names for a sink run of ``settings`` (its dialect and backend)."""
    dialect = "lenses" if settings.writing is None else settings.writing.dialect
    return keys_of(dialect, settings.backend, settings.prefix, role=settings.role)


def keys_of(dialect: str, backend: str, prefix: str, *, role: str = "sink") -> StoreKeys:
    """The store's setting names in ``dialect`` (``lenses``, ``aiven`` or ``confluent``); ``backend``,
    its key ``prefix`` (``connect.s3``...) and the ``role`` (where KCQL names the bucket) matter to
    the Lenses dialect only."""
    if dialect == "aiven":
        return StoreKeys(
            "aws.s3.endpoint",
            "aws.access.key.id / aws.secret.access.key",
            "aws.s3.region",
            "aws.s3.bucket.name",
            _AWS_CA_BUNDLE,
        )
    if dialect == "confluent":
        return StoreKeys(
            "store.url", "aws.access.key.id / aws.secret.access.key", "s3.region", "s3.bucket.name", _AWS_CA_BUNDLE
        )
    clause = "INSERT INTO" if role == "sink" else "SELECT ... FROM"
    bucket = f"the bucket of {clause} in {prefix}.kcql"
    if backend == "s3":
        return StoreKeys(
            f"{prefix}.custom.endpoint",
            f"{prefix}.aws.auth.mode, {prefix}.aws.access.key / {prefix}.aws.secret.key",
            f"{prefix}.aws.region",
            bucket,
            f"{prefix}.ca.bundle (or {_AWS_CA_BUNDLE})",
        )
    if backend == "gcs":
        return StoreKeys(
            f"{prefix}.endpoint",
            f"{prefix}.gcp.auth.mode, {prefix}.gcp.credentials / {prefix}.gcp.file",
            None,
            bucket,
        )
    if backend == "azure":
        return StoreKeys(
            f"{prefix}.endpoint",
            f"{prefix}.azure.auth.mode, {prefix}.azure.account.key / {prefix}.azure.connection.string",
            None,
            bucket,
        )
    return StoreKeys(
        f"{prefix}.root",
        f"{prefix}.root (file permissions)",
        None,
        f"{bucket} (a folder under {prefix}.root)",
    )
