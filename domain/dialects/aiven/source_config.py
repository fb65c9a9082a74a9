"""An Aiven S3 source connector config as a :class:`RestorePlan`.

Users moving from Aiven's ``io.aiven.kafka.connect.s3.source.S3SourceConnector`` keep their config:
its keys become the plan a Lenses config gives (:func:`aiven_restore_plan`).
See docs/restore.md, "Config forms".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.connector_classes import AIVEN_S3_SOURCE as AIVEN_CONNECTOR_CLASS
from lakesink.domain.config.framework_keys import framework_no_effect
from lakesink.domain.config.hidden import HiddenValues
from lakesink.domain.config.passthrough import parse_kafka_client
from lakesink.domain.config.providers import is_provider_key
from lakesink.domain.config.secret import Secret
from lakesink.domain.config.values import as_int
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.restore.lenses_plan import producer_settings
from lakesink.domain.restore.plan import (
    DETECT,
    PartitionMode,
    PartitionRule,
    RestorePlan,
    RestoreRoot,
    page_size,
)
from lakesink.domain.restore.template import TEMPLATE_KEY, KeyTemplate

_FORMATS = {"bytes": Format.BYTES, "jsonl": Format.JSON, "avro": Format.AVRO, "parquet": Format.PARQUET}
_COMPRESSIONS = {"none": None, "gzip": "gzip", "zstd": "zstd"}

_LEGACY = {
    "aws_s3_bucket": "aws.s3.bucket.name",
    "aws_s3_endpoint": "aws.s3.endpoint",
    "aws_s3_region": "aws.s3.region",
    "aws_s3_prefix": "aws.s3.prefix",
}
_USED = frozenset(
    {
        "name", "connector.class", "bootstrap.servers", "topic", "topics",
        "aws.access.key.id", "aws.secret.access.key", "aws.s3.bucket.name", "aws.s3.region",
        "aws.s3.endpoint", "aws.s3.prefix", "aws.s3.fetch.page.size", "aws.s3.backoff.max.retries", "file.name.template", "file.compression.type", "input.format",
        "transformer.max.buffer.size", "tasks.max", "errors.tolerance", "error.tolerance",
        "poll.interval.ms", "max.poll.records", "native.start.key",
    }
)
#: Keys accepted for compatibility that change nothing here (why: docs/restore.md).
NO_EFFECT = frozenset(
    {
        "aws.credentials.provider", "aws.s3.fetch.buffer.size", "aws.s3.backoff.delay.ms",
        "aws.s3.backoff.max.delay.ms",
        "aws.s3.api.call.timeout", "ring.buffer.size", "distribution.type", "task.id",
        "file.max.records", "file.prefix.template",
        "file.name.timestamp.timezone", "file.name.timestamp.source", "kafka.retry.backoff.ms",
    }
)
#: Converters: records are produced as the stored bytes, so only ByteArrayConverter says what happens.
_CONVERTERS = ("key.converter", "value.converter", "header.converter")
_BYTES_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
_REGISTRY_KEYS = ("schema.registry.url", "value.converter.schema.registry.url")
_CLIENT_PREFIXES = ("producer.", "sasl.", "ssl.")
_CLIENT_KEYS = ("security.protocol",)


def is_aiven_source_config(props: Mapping[str, str]) -> bool:
    """Whether ``props`` is an Aiven S3 source config (its class, or its bucket key)."""
    return props.get("connector.class", "").strip() == AIVEN_CONNECTOR_CLASS or any(
        key in props for key in ("aws.s3.bucket.name", "aws_s3_bucket")
    )


def aiven_restore_plan(
    props: Mapping[str, str], *, parallelism: int | None = None, provided: Collection[str] = frozenset()
) -> RestorePlan:
    """Translate an Aiven S3 source config.

    ``provided`` names the keys a config provider filled: their values never appear in an error
    and become secrets among the producer settings.

    Every key is used, accepted as having no effect (:data:`NO_EFFECT`, reasons in docs/restore.md)
    or an error naming it; legacy ``aws_s3_*`` spellings are accepted (the dotted name wins).
    Deliberate differences from Aiven: the template is matched anchored
    (:mod:`lakesink.domain.restore.template`); ``aws.s3.fetch.page.size`` defaults to 1000, not 10
    (one listing call per 10 keys is needlessly slow); progress lives in Kafka transactions, so
    ``ring.buffer.size`` has nothing to do.

    Raises:
        ConfigError: unknown or unsupported keys (all named), a missing bucket, template or
            brokers, or an invalid value (naming its key).
    """
    hidden = HiddenValues.of(props, provided)
    try:
        return _plan(props, parallelism, hidden)
    except ConfigError as error:
        raise hidden.scrub_error(error) from None


def _plan(props: Mapping[str, str], parallelism: int | None, hidden: HiddenValues) -> RestorePlan:
    config = _with_legacy_names(props)
    _reject_unknown(config)
    template = KeyTemplate.compile(_required(config, TEMPLATE_KEY))
    topic = _topic(config)
    if topic is None and "topic" not in template.variables:
        raise ConfigError(f"Set topic, or put {{{{topic}}}} in {TEMPLATE_KEY}: the target topic is unknown.")
    fmt = _choice(config, "input.format", _FORMATS, "bytes")
    tolerance = _choice(config, _tolerance_key(config), {"none": False, "all": True}, "none")
    root = RestoreRoot(
        number=0,
        bucket=_required(config, "aws.s3.bucket.name"),
        list_prefix=config.get("aws.s3.prefix", "").strip(),
        topic=topic,
        format=fmt,
        page_size=page_size(_int(config, "aws.s3.fetch.page.size", 1000, minimum=1)),
        limit=_int(config, "max.poll.records", 500, minimum=1),
        template=template,
        key_from_object_key=True,
        bytes_chunk_size=_int(config, "transformer.max.buffer.size", 4096, minimum=1) if fmt is Format.BYTES else None,
        compression=_compression(config, fmt),
    )
    client = parse_kafka_client(
        {k: v for k, v in config.items() if k not in _USED and k not in NO_EFFECT and not is_provider_key(k)},
        "source",
        hidden=hidden.keys,
    )
    return RestorePlan(
        name=_required(config, "name"),
        backend="s3",
        storage=_s3_settings(config),
        roots=(root,),
        producer=producer_settings(config.get("bootstrap.servers", "").strip() or None, client),
        partition_rule=PartitionRule(PartitionMode.LAYOUT if template.has_partition else PartitionMode.NONE),
        poll_interval_ms=_int(config, "poll.interval.ms", 5000, minimum=1),
        tolerate_errors=bool(tolerance),
        parallelism=parallelism or _int(config, "tasks.max", 0, minimum=1) or None,
        start_after=config.get("native.start.key", "").strip() or None,
    )


def _with_legacy_names(props: Mapping[str, str]) -> dict[str, str]:
    config = {key: value for key, value in props.items() if key not in _LEGACY}
    for legacy, name in _LEGACY.items():
        if legacy in props and not config.get(name, "").strip():
            config[name] = props[legacy]
    return config


def _reject_unknown(config: Mapping[str, str]) -> None:
    for key in _CONVERTERS:
        name = config.get(key, "").strip()
        if name and name != _BYTES_CONVERTER:
            raise ConfigError(
                f"{key}={name} is not supported yet: the restore produces the stored bytes; "
                f"remove the key or set it to {_BYTES_CONVERTER}."
            )
    for key in (*_REGISTRY_KEYS, *(k for k in config if k.startswith(("key.converter.", "value.converter.", "header.converter.")))):
        if key in config:
            raise ConfigError(f"{key} is not supported yet: the restore runs no converter (it produces the stored bytes).")
    unknown = sorted(
        key
        for key in config
        if key not in _USED
        and key not in NO_EFFECT
        and key not in _CONVERTERS
        and key not in _CLIENT_KEYS
        and not key.startswith(_CLIENT_PREFIXES)
        and not is_provider_key(key)
        and framework_no_effect(key) is None
    )
    if any(key.startswith("aws.sts.") for key in unknown):
        raise ConfigError("aws.sts.* (STS role assumption) is not supported; give aws.access.key.id/aws.secret.access.key or use the default credential chain.")
    if unknown:
        raise ConfigError(f"Unknown Aiven S3 source settings: {', '.join(unknown)}.")
    if config.get("connector.class", AIVEN_CONNECTOR_CLASS).strip() != AIVEN_CONNECTOR_CLASS:
        raise ConfigError(f"connector.class {config['connector.class']!r} is not {AIVEN_CONNECTOR_CLASS}.")


def _required(config: Mapping[str, str], key: str) -> str:
    value = config.get(key, "").strip()
    if not value:
        raise ConfigError(f"{key} is required.")
    return config[key] if key == TEMPLATE_KEY else value


def _topic(config: Mapping[str, str]) -> str | None:
    topic = config.get("topic", "").strip()
    topics = [t.strip() for t in config.get("topics", "").split(",") if t.strip()]
    if topic and topics and topics != [topic]:
        raise ConfigError("topic and topics disagree; set only topic (the one target topic).")
    if len(topics) > 1:
        raise ConfigError(f"topics names {len(topics)} topics; a restore writes to one: set topic.")
    return topic or (topics[0] if topics else None)


def _compression(config: Mapping[str, str], fmt: Format) -> str | None:
    """``file.compression.type`` as given; unset: detected per object (never for Parquet, as in Aiven).

    Detection fixes a known Aiven mismatch: its sink gzips by default, its source reads as stored by default.
    """
    if fmt is Format.PARQUET:
        return None
    if "file.compression.type" not in config:
        return DETECT
    return _choice(config, "file.compression.type", _COMPRESSIONS, "none")


def _tolerance_key(config: Mapping[str, str]) -> str:
    return "error.tolerance" if "error.tolerance" in config and "errors.tolerance" not in config else "errors.tolerance"


def _choice(config: Mapping[str, str], key: str, choices: Mapping[str, Any], default: str) -> Any:
    raw = config.get(key, "").strip().lower() or default
    if raw not in choices:
        raise ConfigError(f"Invalid value {config[key]!r} for {key}: expected one of {', '.join(choices)}.")
    return choices[raw]


def _int(config: Mapping[str, str], key: str, default: int, *, minimum: int) -> int:
    raw = config.get(key, "").strip()
    return as_int(key, raw, minimum=minimum) if raw else default


def _s3_settings(config: Mapping[str, str]) -> S3Settings:
    access, secret = config.get("aws.access.key.id", ""), config.get("aws.secret.access.key", "")
    if bool(access) != bool(secret):
        raise ConfigError("Set both aws.access.key.id and aws.secret.access.key, or neither (default credential chain).")
    endpoint = config.get("aws.s3.endpoint", "").strip() or None
    if endpoint is not None and "://" not in endpoint:
        endpoint = "https://" + endpoint  # Aiven assumes https when no scheme is given
    return S3Settings(
        auth_mode="Credentials" if access else "Default",
        access_key=Secret(access) if access else None,
        secret_key=Secret(secret) if secret else None,
        region=config.get("aws.s3.region", "").strip() or None,
        custom_endpoint=endpoint,
        path_style_access=endpoint is not None,
        http_max_retries=_int(config, "aws.s3.backoff.max.retries", 3, minimum=1),
    )
