"""An Aiven S3 sink config (``io.aiven.kafka.connect.s3.AivenKafkaConnectS3SinkConnector``), validated and typed.

Validated as strictly as the other dialects: every key is used, held, accepted without effect,
accepted only at its default, or refused with the reason (:mod:`lakesink.domain.dialects.aiven.keys`);
anything else is a one-line ConfigError naming the key. See docs/dialects.md, "Aiven S3 sink", "Keys".
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.connector import UNREAD_CLOCK, described
from lakesink.domain.config.connector_classes import AIVEN_S3_SINK
from lakesink.domain.config.hidden import HiddenValues
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.config.values import as_bool
from lakesink.domain.dialects.aiven.keys import LEGACY, POLICY
from lakesink.domain.dialects.aiven.naming import (
    COMPRESSION,
    AivenCompression,
    AivenFormat,
    AivenNaming,
    content_compression,
)
from lakesink.domain.dialects.aiven.output import AivenOutput, OutputField
from lakesink.domain.dialects.aiven.writing import AivenWriting
from lakesink.domain.dialects.kafka_connect.config_def import (
    int_setting,
    list_setting,
    long_setting,
    one_of,
    required,
    string_setting,
    subscription,
)
from lakesink.domain.dialects.kafka_connect.key_policy import KeyPolicy
from lakesink.domain.dialects.kafka_connect.sink_config import ConnectSinkConfig, framework_settings
from lakesink.domain.errors import ConfigError
from lakesink.domain.transforms.registry import build_chain, transform_keys

_FIELDS = ("key", "value", "offset", "timestamp", "headers")
_ENCODINGS = ("none", "base64")
_AVRO_CODECS = ("null", "deflate", "snappy", "bzip2", "xz", "zstandard")
_ALIASES = frozenset({"aws_s3_bucket", "aws_s3_endpoint", "aws_s3_region"})
_REGION = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]+|aws-global|aws-(cn|us-gov|iso[a-z-]*)-global")


@dataclass(frozen=True, slots=True, repr=False)
class AivenSinkConfig(ConnectSinkConfig):
    """A validated Aiven S3 sink config; ``repr`` never shows a secret or a provided value.

    Attributes:
        naming: the file name template, prefix mode, grouping and timestamp sources.
        compression: the stream compression of csv/json/jsonl/avro files (gzip by default);
            parquet_codec: the Parquet codec (``file.compression.type``, default none).
        output_fields: the fields written per record, in config order, with their encoding.
        flush_interval_ms: ``offset.flush.interval.ms``, the period of Aiven's flushes (one file
            per group each), so of the micro-batches.
        error_handling: the ``errors.*`` keys as given (held).
        kafka_client: ``consumer.*``, ``sasl.*``, ``ssl.*`` settings for the Kafka consumer.
    """

    connector_class: ClassVar[str] = AIVEN_S3_SINK
    policy: ClassVar[KeyPolicy] = POLICY

    name: str
    topics: tuple[str, ...]
    topics_regex: str | None
    bootstrap_servers: str | None
    bucket: str
    region: str
    endpoint: str | None
    access_key: Secret | None
    secret_key: Secret | None
    http_max_retries: int
    naming: AivenNaming
    format: AivenFormat
    compression: AivenCompression
    parquet_codec: AivenCompression
    output_fields: tuple[OutputField, ...]
    envelope: bool
    avro_codec: str
    flush_interval_ms: int
    key_converter: ConverterSettings
    value_converter: ConverterSettings
    header_converter: ConverterSettings
    transforms: Mapping[str, str]
    kafka_client: Mapping[str, object]
    error_handling: Mapping[str, str]
    hidden: HiddenValues = field(default_factory=HiddenValues, compare=False)

    @property
    def storage(self) -> S3Settings:
        """The S3 store's settings (path-style addressing with a custom endpoint, as Aiven's client)."""
        return self.s3_settings(path_style_access=self.endpoint is not None, http_max_retries=self.http_max_retries)

    @property
    def output(self) -> AivenOutput:
        """What its files hold and how they are compressed."""
        parquet = self.format is AivenFormat.PARQUET
        return AivenOutput(
            format=self.format,
            fields=self.output_fields,
            envelope=self.envelope,
            compression=AivenCompression.NONE if parquet else self.compression,
            parquet_codec=self.parquet_codec,
            avro_codec=self.avro_codec,
        )

    @property
    def writing(self) -> AivenWriting:
        """How a sink run of this config names, groups and writes its files."""
        return AivenWriting(self.naming, self.output)

    @classmethod
    def _parse(cls, raw: Mapping[str, str], hidden: HiddenValues) -> AivenSinkConfig:
        """An Aiven S3 sink config's own settings (``from_properties`` checked its keys and class).

        Values are parsed by Kafka's ``ConfigDef`` rules and checked as Aiven's ``S3SinkConfig`` checks
        them, in its words where it has them; the defaults are those of Aiven's code:
        ``format.output.type`` csv; ``format.output.fields`` unset means ``value`` in base64 (the
        ``value.encoding`` key is then ignored, ``S3SinkConfig#getOutputFields``), the encoding applying
        to key and value; compression gzip when neither ``file.compression.type`` nor
        ``output_compression`` is set (while the default file name gets no ``.gz``), Parquet reading only
        ``file.compression.type`` as its codec (default none) and never wrapped; ``aws.s3.region``
        us-east-1; an ``aws.s3.endpoint`` without scheme gets ``https://`` and turns on path-style
        access. Refused where Aiven silently does something else: only one of ``aws.access.key.id`` /
        ``aws.secret.access.key`` (Aiven then uses the default chain), and the template checks of
        :mod:`lakesink.domain.dialects.aiven.naming`.
        """
        props = _with_legacy_names(raw)
        topics, topics_regex = subscription(props)
        fmt = AivenFormat.from_settings(props)
        naming = AivenNaming.from_settings(props)
        access, secret = _credentials(props)
        POLICY.check_bounds(props)
        retries = int_setting(props, "aws.s3.backoff.max.retries", 3)
        if not 1 <= retries <= 30:
            bound = "at least 1" if retries < 1 else "no more than 30"
            raise ConfigError(f"Invalid value {retries} for configuration aws.s3.backoff.max.retries: Value must be {bound}")
        transforms = transform_keys(props)
        build_chain(transforms, UNREAD_CLOCK)  # validation: an unknown class or option fails here
        return cls(
            name=required(props, "name"),
            topics=topics,
            topics_regex=topics_regex,
            bootstrap_servers=string_setting(props, "bootstrap.servers", "") or None,
            bucket=_bucket(props),
            region=_region(props),
            endpoint=_endpoint(props),
            access_key=access,
            secret_key=secret,
            http_max_retries=retries,
            naming=naming,
            format=fmt,
            compression=content_compression(props),
            parquet_codec=AivenCompression.named(props, COMPRESSION) or AivenCompression.NONE,
            output_fields=_output_fields(props),
            envelope=_envelope(props),
            avro_codec=one_of(props, "avro.codec", _AVRO_CODECS, "null"),
            flush_interval_ms=_flush_interval(props),
            **framework_settings(props, hidden, POLICY, transforms, topics, topics_regex),
            hidden=hidden,
        )

    def describe(self) -> dict[str, object]:
        """The resolved settings as plain JSON-able values (explain); secrets masked."""
        naming = self.naming
        return described(
            self,
            {
                "output_fields": [f"{item.name} ({item.encoding})" for item in self.output_fields],
                "naming": {
                    "file_name_template": naming.template,
                    "aws_s3_prefix": naming.prefix,
                    "grouping": naming.grouping.value,
                    "file_max_records": naming.max_records,
                    "timestamp_source": naming.timestamps.kind,
                    "timestamp_timezone": naming.timestamps.zone.id,
                },
            },
        )


def _flush_interval(props: Mapping[str, str]) -> int:
    """Kafka Connect's ``offset.flush.interval.ms`` (a worker setting, default a minute): how often
    Aiven's sink flushes, so how often lakesink's micro-batches take each partition's records."""
    interval = long_setting(props, "offset.flush.interval.ms", 60_000)
    if interval < 1:
        raise ConfigError(f"Invalid value {interval} for configuration offset.flush.interval.ms: Value must be at least 1")
    return interval


def _with_legacy_names(props: Mapping[str, str]) -> dict[str, str]:
    """Aiven's deprecated bucket, endpoint and region spellings under their new names (the new wins).

    The other legacy keys are not plain aliases in Aiven and are read where they matter:
    ``aws_s3_prefix`` by :class:`AivenNaming`, ``output_compression`` only for the contents (not
    the default file name), ``output_fields`` by :func:`_output_fields`.
    """
    config = dict(props)
    for legacy, name in LEGACY.items():
        if legacy in props and legacy in _ALIASES:
            value = config.pop(legacy)
            config.setdefault(name, value)
    return config


def _credentials(props: Mapping[str, str]) -> tuple[Secret | None, Secret | None]:
    values = {}
    for key in ("aws.access.key.id", "aws.secret.access.key"):
        if key in props and not props[key].strip():
            raise ConfigError(f"Invalid value [hidden] for configuration {key}: Password must be non-empty")
        values[key] = props.get(key, "").strip()
    access, secret = values["aws.access.key.id"], values["aws.secret.access.key"]
    if bool(access) != bool(secret):
        raise ConfigError(
            "Set both aws.access.key.id and aws.secret.access.key, or neither (default credential chain): "
            "with one of them Aiven silently uses the default chain."
        )
    return (Secret(access), Secret(secret)) if access else (None, None)


def _bucket(props: Mapping[str, str]) -> str:
    """``aws.s3.bucket.name`` with the DNS bucket rules of Aiven's ``BucketNameValidator``."""
    if "aws.s3.bucket.name" not in props:
        raise ConfigError("Neither aws.s3.bucket.name nor aws_s3_bucket properties have been set")
    name = string_setting(props, "aws.s3.bucket.name", "")
    problem = None
    if not 3 <= len(name) <= 63:
        problem = "Bucket name should be between 3 and 63 characters long"
    elif not re.fullmatch(r"[a-z0-9.-]+", name):
        problem = "Bucket name should not contain uppercase characters, white space or characters other than a-z, 0-9, '.' and '-'"
    elif name[0] in ".-" or name[-1] in ".-":
        problem = "Bucket name should not begin or end with a period or a dash"
    elif ".." in name or ".-" in name or "-." in name:
        problem = "Bucket name should not contain two adjacent periods or a dash next to a period"
    elif _is_ip_address(name):
        problem = "Bucket name must not be formatted as an IP Address"
    if problem:
        raise ConfigError(f"Illegal bucket name: {problem} (aws.s3.bucket.name={name!r}).")
    return name


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        return False
    return True


def _region(props: Mapping[str, str]) -> str:
    region = string_setting(props, "aws.s3.region", "")
    if "aws.s3.region" in props and not _REGION.fullmatch(region):
        raise ConfigError(
            f"Invalid value {region} for configuration aws.s3.region: expected an AWS region id such as us-east-1."
        )
    return region or "us-east-1"


def _endpoint(props: Mapping[str, str]) -> str | None:
    if "aws.s3.endpoint" not in props:
        return None
    endpoint = string_setting(props, "aws.s3.endpoint", "")
    if not endpoint:
        raise ConfigError("Invalid value  for configuration aws.s3.endpoint: String must be non-empty")
    url = endpoint if "://" in endpoint else "https://" + endpoint  # Aiven assumes https without a scheme
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+(/[^\s]*)?", url):
        raise ConfigError(f"Invalid value {endpoint} for configuration aws.s3.endpoint: should be valid URL")
    return url


def _output_fields(props: Mapping[str, str]) -> tuple[OutputField, ...]:
    """``S3SinkConfig#getOutputFields``: the new key, else ``output_fields``, else value in base64."""
    encoding = _aiven_choice(props, "format.output.fields.value.encoding", _ENCODINGS, "base64")
    key = next((name for name in ("format.output.fields", "output_fields") if name in props), None)
    if key is None:
        return (OutputField("value", "base64"),)
    names = list_setting(props, key)
    if not names:
        raise ConfigError(f"Invalid value [] for configuration {key}: cannot be empty")
    for name in names:
        if name.lower() not in _FIELDS:
            supported = ", ".join(f"'{item}'" for item in _FIELDS)
            raise ConfigError(
                f"Invalid value [{', '.join(names)}] for configuration {key}: supported values are: {supported}"
            )
    return tuple(
        OutputField(name.lower(), encoding if name.lower() in ("key", "value") else "none") for name in names
    )


def _envelope(props: Mapping[str, str]) -> bool:
    envelope = as_bool("format.output.envelope", props.get("format.output.envelope", "true"))
    count = len(list_setting(props, "format.output.fields")) if "format.output.fields" in props else 0
    if not envelope and count != 1:
        raise ConfigError(
            "When format.output.envelope is false, format.output.fields must contain only one field"
        )
    return envelope


def _aiven_choice(props: Mapping[str, str], key: str, allowed: tuple[str, ...], default: str) -> str:
    """A STRING setting Aiven validates with its own words (``supported values are: 'a', 'b'``)."""
    value = string_setting(props, key, default)
    if value not in allowed:
        listed = ", ".join(f"'{item}'" for item in allowed)
        raise ConfigError(f"Invalid value {value} for configuration {key}: supported values are: {listed}")
    return value
