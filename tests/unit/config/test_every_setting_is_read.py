"""No ignored settings: every key of every dialect is read by code, or rejected naming the key.

For each key of the settings catalog (every backend prefix, sink and source scope) and of the
Aiven S3 source dialect, a config sets it to a valid value other than its default and the test
checks what happens:

* a read key changes the typed result (ConnectorSettings, its SourceSettings, the sink's
  StatementPlans, the Aiven RestorePlan); and every field it changes is used by code outside
  ``domain/config`` (a field only the loader fills is a setting nobody reads);
* a rejected key raises a ConfigError whose message names the key;
* the few keys accepted for compatibility without any effect are listed in
  :data:`ACCEPTED_WITHOUT_EFFECT` with the reason; a key that is neither read nor rejected and
  not on that list fails the test.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from lakesink.domain.config import framework_keys
from lakesink.domain.config.backends import BACKEND_PREFIXES
from lakesink.domain.config.catalog import CATALOG
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.keyspec import KeySpec, Kind, Scope
from lakesink.domain.config.keyspec import ValueType as T
from lakesink.domain.config.providers import resolve_references
from lakesink.domain.dialects.aiven import source_config as aiven_source
from lakesink.domain.errors import ConfigError
from lakesink.domain.statement_plan import plan_sink

ROOT = Path(__file__).resolve().parents[3]
PRODUCTION = ("domain", "adapters", "application")

SINK_KCQL = "INSERT INTO bucket:prefix SELECT * FROM orders STOREAS `AVRO`"
SOURCE_KCQL = "INSERT INTO orders SELECT * FROM bucket:prefix STOREAS `AVRO`"

#: Keys accepted on purpose with no effect, and why (the catalog's IGNORED entries).
ACCEPTED_WITHOUT_EFFECT = {
    "connector.class": "read only to pick the backend and check the role (a sink class in a source config fails)",
    "errors.deadletterqueue.topic.replication.factor": "checked only: lakesink does not create the dead-letter topic",
    "task.index": "injected per task by Lenses' connector; Spark assigns the work",
    "seek.max.files": "vestigial in Lenses too (v1 indexes)",
    # Kafka Connect's framework keys, each listed with its reason where it is accepted.
    **framework_keys.NO_EFFECT_KEYS,
    **{prefix + "*": why for prefix, why in framework_keys.NO_EFFECT_PREFIXES.items()},
}

#: Aiven keys accepted with no effect (aiven_source.NO_EFFECT), and why.
AIVEN_ACCEPTED_WITHOUT_EFFECT = {
    "aws.credentials.provider": "the default chain is used when no keys are given",
    "aws.s3.fetch.buffer.size": "deprecated in Aiven too",
    "aws.s3.backoff.max.delay.ms": "the S3 client's own retry backoff is used",
    "aws.s3.api.call.timeout": "the S3 client's own timeouts are used",
    "aws.s3.backoff.delay.ms": "botocore's retry base delay cannot be configured (docs/storage.md, Retries)",
    "ring.buffer.size": "progress is exact (Kafka transactions), no ring buffer",
    "distribution.type": "Spark spreads the origins",
    "task.id": "Spark spreads the origins",
    "file.max.records": "a sink setting Aiven shares with the source; nothing to do when reading",
    "file.prefix.template": "a sink setting; the source reads file.name.template",
    "file.name.timestamp.timezone": "a sink setting; the source reads file.name.template",
    "file.name.timestamp.source": "a sink setting; the source reads file.name.template",
    "kafka.retry.backoff.ms": "the producer's own retry backoff is used",
}

_TOMBSTONE = "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone"

#: A valid value other than the default, and any companion keys it needs (prefixed names
#: without the prefix when they start with "."). Keys not listed get one from their type.
VALUES: dict[str, tuple[str, dict[str, str]]] = {
    "name": ("other", {}),
    "topics": ("orders,payments", {".kcql": SINK_KCQL + "; INSERT INTO bucket:p2 SELECT * FROM payments"}),
    "topics.regex": ("ord.*", {"topics": ""}),
    "bootstrap.servers": ("broker:9092", {}),
    "key.converter": ("org.apache.kafka.connect.storage.StringConverter", {}),
    "value.converter": ("org.apache.kafka.connect.storage.StringConverter", {}),
    "header.converter": ("org.apache.kafka.connect.storage.StringConverter", {}),
    "kcql": ("INSERT INTO bucket:other SELECT * FROM orders STOREAS `AVRO`", {}),
    "error.policy": ("RETRY", {}),
    "compression.codec": ("SNAPPY", {}),
    "compression.level": ("5", {}),
    "delete.mode": ("SeparateDelete", {}),
    "local.tmp.directory": ("/tmp/lakesink-walk", {}),
    "padding.strategy": ("RightPad", {}),
    "padding.length": ("10", {".padding.strategy": "LeftPad"}),
    "indexes.name": (".other-indexes", {}),
    "metrics.host": ("0.0.0.0", {}),
    "table.catalog.type": ("rest", {".table.catalog.uri": "http://127.0.0.1:8181"}),
    "table.catalog.name": ("prod", {}),
    "table.catalog.uri": ("sqlite:////tmp/walk-catalog.db", {}),
    "table.catalog.warehouse": ("s3://warehouse/", {}),
    "table.maintenance.every.batches": ("5", {}),
    "table.maintenance.interval": ("1h", {}),
    "table.maintenance.snapshots.keep": ("7", {}),
    "table.maintenance.snapshots.max.age": ("2d", {}),
    "table.maintenance.compaction.target.file.size": ("1000", {}),
    "table.maintenance.compaction.closed.after": ("10m", {}),
    "table.maintenance.orphans.enable": ("false", {}),
    "table.maintenance.orphans.older.than": ("1d", {}),
    "schema.change.detector": ("compatibility", {}),
    "ordering.type": ("LastModified", {}),
    "errors.tolerance": ("all", {}),
    "errors.deadletterqueue.topic.name": ("dead-letters", {".error.policy": "NOOP"}),
    "errors.deadletterqueue.topic.replication.factor": ("1", {}),
    "source.partition.search.excludes": (".indexes,.tmp", {}),
    "source.extension.includes": ("avro", {}),
    "source.extension.excludes": ("tmp", {}),
    "source.partition.extractor.type": ("hierarchical", {}),
    "source.partition.extractor.regex": ("(\\d+)", {".source.partition.extractor.type": "regex"}),
    "source.partition.remap": ("modulo", {}),
    "source.transaction.timeout.ms": ("120000", {}),
    "aws.auth.mode": ("Credentials", {".aws.access.key": "a", ".aws.secret.key": "s"}),
    "aws.access.key": ("a", {".aws.auth.mode": "Credentials", ".aws.secret.key": "s"}),
    "aws.secret.key": ("s", {".aws.auth.mode": "Credentials", ".aws.access.key": "a"}),
    "aws.region": ("eu-west-1", {}),
    "custom.endpoint": ("http://127.0.0.1:9000", {}),
    "ca.bundle": ("/etc/ssl/private-ca.pem", {}),
    "multipart.threshold": (str(32 << 20), {}),
    "multipart.part.size": (str(16 << 20), {}),
    "checksum.calculation": ("when_required", {}),
    "gcp.auth.mode": ("None", {}),
    "gcp.credentials": ("{}", {".gcp.auth.mode": "Credentials"}),
    "gcp.file": ("/tmp/sa.json", {".gcp.auth.mode": "File"}),
    "gcp.project.id": ("project", {}),
    "gcp.quota.project.id": ("quota", {}),
    "endpoint": ("http://127.0.0.1:4443", {}),
    "azure.auth.mode": ("ConnectionString", {".azure.connection.string": "UseDevelopmentStorage=true"}),
    "azure.account.name": ("account", {".azure.auth.mode": "Credentials", ".azure.account.key": "a2V5"}),
    "azure.account.key": ("a2V5", {".azure.auth.mode": "Credentials", ".azure.account.name": "account"}),
    "azure.connection.string": ("UseDevelopmentStorage=true", {".azure.auth.mode": "ConnectionString"}),
    "root": ("/tmp/other-root", {}),
    # families: one representative key each
    "key.converter.*": ("false", {"key.converter": "org.apache.kafka.connect.json.JsonConverter"}),
    "value.converter.*": ("false", {"value.converter": "org.apache.kafka.connect.json.JsonConverter"}),
    "header.converter.*": ("false", {"header.converter": "org.apache.kafka.connect.json.JsonConverter"}),
    "consumer.*": ("1024", {}),
    "producer.*": ("1024", {}),
    "security.protocol": ("SSL", {}),
    "sasl.*": ("PLAIN", {}),
    "ssl.*": ("/tmp/ca.pem", {}),
    "transforms": ("drop", {"transforms.drop.type": "org.apache.kafka.connect.transforms.Filter"}),
    "transforms.*": ("org.apache.kafka.connect.transforms.Filter", {"transforms": "drop"}),
    "predicates": ("tomb", {"predicates.tomb.type": _TOMBSTONE}),
    "predicates.*": (_TOMBSTONE, {"predicates": "tomb"}),
    "table.catalog.*": ("a-token", {}),
}
FAMILY_KEYS = {
    "transforms.*": "transforms.drop.type",
    "predicates.*": "predicates.tomb.type",
    "key.converter.*": "key.converter.schemas.enable",
    "value.converter.*": "value.converter.schemas.enable",
    "consumer.*": "consumer.fetch.min.bytes",
    "producer.*": "producer.batch.size",
    "sasl.*": "sasl.mechanism",
    "ssl.*": "ssl.ca.location",
    "header.converter.*": "header.converter.schemas.enable",
    "config.providers.*": "config.providers.vault.class",
    "table.catalog.*": "table.catalog.token",
}


def _base(prefix: str, backend: str, role: str) -> dict[str, str]:
    props = {"name": "walk", f"{prefix}.kcql": SINK_KCQL if role == "sink" else SOURCE_KCQL}
    if role == "sink":
        props["topics"] = "orders"
    if backend == "local":
        props[f"{prefix}.root"] = "/tmp/walk-root"
    return props


def _value(spec: KeySpec) -> tuple[str, dict[str, str]]:
    if spec.name in VALUES:
        return VALUES[spec.name]
    if spec.type is T.BOOLEAN:
        return ("false" if spec.default == "true" else "true"), {}
    if spec.type in (T.INT, T.LONG):
        return str(int(spec.default or "0") + 7), {}
    if spec.type is T.DOUBLE:
        return str(float(spec.default or "1") + 1.5), {}
    raise AssertionError(f"give {spec.name} a non-default value in VALUES")


def _cases() -> Iterator[Any]:
    for prefix, backend in BACKEND_PREFIXES.items():
        for spec in CATALOG:
            if not spec.applies_to(backend):
                continue
            for role in ("sink", "source"):
                if spec.scope is not Scope.BOTH and spec.scope.value != role:
                    continue
                if spec.scope is Scope.BOTH and role == "source" and backend not in ("s3", "local"):
                    continue  # keys valid in both roles: the source side checked on two backends is enough
                yield pytest.param(prefix, backend, role, spec, id=f"{backend}-{role}-{spec.name}")


def _load(props: Mapping[str, str], role: str) -> tuple[dict[str, Any], Any]:
    settings = ConnectorSettings.from_properties(props, role=role)
    plans = plan_sink(settings) if role == "sink" else None
    return settings.describe(), plans


def _changed_leaves(before: Any, after: Any, path: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[str] = []
        for key in before.keys() | after.keys():
            out += _changed_leaves(before.get(key), after.get(key), f"{path}.{key}" if path else str(key))
        return out
    return [] if before == after else [path]


@cache
def _production_text_outside_config() -> str:
    texts = []
    for package in PRODUCTION:
        for path in (ROOT / package).rglob("*.py"):
            if path.parent.name == "config" and path.parent.parent.name == "domain":
                continue
            texts.append(path.read_text())
    return "\n".join(texts)


def _used_outside_config(field: str) -> bool:
    """Whether production code outside the loader reads ``field`` (``.field`` or ``["field"]``)."""
    text = _production_text_outside_config()
    return re.search(rf"\.{re.escape(field)}\b|\[\"{re.escape(field)}\"\]", text) is not None


def _facts(value: Any) -> Any:
    """Every field of a (nested) dataclass, repr=False ones included, as plain data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _facts(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_facts(item) for item in value]
    if isinstance(value, Mapping):
        return {str(k): _facts(v) for k, v in value.items()}
    return repr(value)


def _full_key(spec: KeySpec, prefix: str) -> str:
    key = FAMILY_KEYS.get(spec.name, spec.name) if spec.is_family else spec.name
    return f"{prefix}.{key}" if spec.prefixed else key


@pytest.mark.parametrize(("prefix", "backend", "role", "spec"), list(_cases()))
def test_every_catalog_key_is_read_or_rejected_naming_it(prefix: str, backend: str, role: str, spec: KeySpec) -> None:
    key = _full_key(spec, prefix)
    base = _base(prefix, backend, role)
    if spec.kind is Kind.DEPRECATED:
        with pytest.raises(ConfigError) as caught:
            _load({**base, key: "x"}, role)
        message = str(caught.value)
        assert key in message and ("not supported" in message or "deprecated" in message), message
        return
    if spec.kind is Kind.NOT_YET:
        value, _ = _value(spec)
        assert ConnectorSettings.from_properties({**base, key: spec.default or ""}, role=role)
        with pytest.raises(ConfigError) as caught:
            _load({**base, key: value}, role)
        assert f"{key}={value} is not supported yet" in str(caught.value)
        return
    if spec.kind is Kind.PROVIDER:
        # Read before the settings are parsed (what they do: test_config_providers.py); the
        # settings accept them, and the provider step reads them: an unusable one is named.
        assert ConnectorSettings.from_properties({**base, key: "x"}, role=role)
        with pytest.raises(ConfigError) as caught:
            resolve_references({**base, key: "x"}, source=None)  # type: ignore[arg-type]  # never reached
        assert key in str(caught.value)
        return
    if spec.kind is Kind.IGNORED:
        assert spec.name in ACCEPTED_WITHOUT_EFFECT, f"{key} is accepted but read by nothing: read it or reject it"
        return
    value, companions = _value(spec)
    extra = {(f"{prefix}{name}" if name.startswith(".") else name): v for name, v in companions.items()}
    before_props = dict(base)
    after_props = {k: v for k, v in {**base, **extra, key: value}.items() if v != ""}
    if spec.name == "kcql":
        after_props[key] = value if role == "sink" else "INSERT INTO orders SELECT * FROM bucket:other STOREAS `AVRO`"
    before_settings, before_plans = _load(before_props, role)
    after_settings, after_plans = _load(after_props, role)
    changed = _changed_leaves(before_settings, after_settings)
    assert changed or before_plans != after_plans, f"{key}={value} changes nothing: read it or reject it"
    fields = {leaf for path in changed for leaf in path.split(".")[-1:] if not leaf.isdigit()}
    if spec.kind is Kind.PASSTHROUGH or spec.name in ("kcql", "name", "root"):
        fields = {path.split(".")[0] for path in changed}
    unread = sorted(field for field in fields if not _used_outside_config(field))
    assert not unread, f"{key} fills {unread}, which no code outside domain/config reads"


@pytest.mark.parametrize("key", ["key.converter", "value.converter", "header.converter"])
def test_aiven_converters_other_than_bytes_are_rejected_naming_the_key(key: str) -> None:
    aiven_source.aiven_restore_plan({**AIVEN_BASE, key: "org.apache.kafka.connect.converters.ByteArrayConverter"})
    with pytest.raises(ConfigError, match=f"{key}=io.confluent.connect.avro.AvroConverter is not supported yet"):
        aiven_source.aiven_restore_plan({**AIVEN_BASE, key: "io.confluent.connect.avro.AvroConverter"})


@pytest.mark.parametrize("key", ["schema.registry.url", "value.converter.schema.registry.url"])
def test_aiven_schema_registry_urls_are_rejected_naming_the_key(key: str) -> None:
    with pytest.raises(ConfigError, match=f"{key} is not supported yet"):
        aiven_source.aiven_restore_plan({**AIVEN_BASE, key: "http://registry:8081"})


@pytest.mark.parametrize("key", sorted(aiven_source.NO_EFFECT))
def test_aiven_keys_without_effect_are_the_reviewed_ones(key: str) -> None:
    assert key in AIVEN_ACCEPTED_WITHOUT_EFFECT, f"Aiven key {key} is accepted but read by nothing: read it or reject it"


AIVEN_BASE = {
    "name": "aiven",
    "connector.class": aiven_source.AIVEN_CONNECTOR_CLASS,
    "aws.s3.bucket.name": "bucket",
    "file.name.template": "{{topic}}-{{partition}}-{{start_offset}}",
    "bootstrap.servers": "broker:9092",
}
AIVEN_VALUES = {
    "name": "other",
    "connector.class": None,  # only checked (must be the Aiven class)
    "bootstrap.servers": "other:9092",
    "topic": "orders",
    "topics": "orders",
    "aws.access.key.id": "a",
    "aws.secret.access.key": "s",
    "aws.s3.bucket.name": "other",
    "aws.s3.region": "eu-west-1",
    "aws.s3.endpoint": "http://127.0.0.1:9000",
    "aws.s3.prefix": "p/",
    "aws.s3.fetch.page.size": "50",
    "aws.s3.backoff.delay.ms": "500",
    "aws.s3.backoff.max.retries": "9",
    "file.name.template": "{{topic}}/{{partition}}-{{start_offset}}",
    "file.compression.type": "gzip",
    "input.format": "jsonl",
    "transformer.max.buffer.size": "100",
    "tasks.max": "3",
    "errors.tolerance": "all",
    "error.tolerance": "all",
    "poll.interval.ms": "100",
    "max.poll.records": "7",
    "native.start.key": "a/b",
}
AIVEN_COMPANIONS = {
    "aws.access.key.id": {"aws.secret.access.key": "s"},
    "aws.secret.access.key": {"aws.access.key.id": "a"},
    "transformer.max.buffer.size": {},
}


@pytest.mark.parametrize("key", sorted(aiven_source._USED))
def test_every_aiven_key_used_changes_the_restore_plan(key: str) -> None:
    value = AIVEN_VALUES[key]
    if value is None:
        return
    before = {**AIVEN_BASE, **({"input.format": "bytes"} if key == "transformer.max.buffer.size" else {})}
    after = {**before, **AIVEN_COMPANIONS.get(key, {}), key: value}
    before = {k: v for k, v in before.items() if k not in AIVEN_COMPANIONS.get(key, {})}
    facts = _facts(aiven_source.aiven_restore_plan(before)), _facts(aiven_source.aiven_restore_plan(after))
    assert facts[0] != facts[1], (
        f"Aiven key {key}={value} changes nothing: read it or reject it"
    )
