"""A Confluent S3 sink config (``io.confluent.connect.s3.S3SinkConnector``), validated and typed.

Every key is used, held, accepted without effect or only at its default
(:mod:`lakesink.domain.dialects.confluent.keys`), anything else a one-line ConfigError; values are
parsed by ``ConfigDef``'s rules and checked as Confluent's validator does, in its words. Unlike
Confluent, ``flush.size`` must be at least 1 (Confluent takes 0 and negative values and then rotates
after every record). See docs/dialects.md, "Confluent S3 sink", "Keys".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.connector import UNREAD_CLOCK, described
from lakesink.domain.config.connector_classes import CONFLUENT_S3_SINK
from lakesink.domain.config.hidden import HiddenValues
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.config.values import as_bool
from lakesink.domain.dialects.confluent.keys import POLICY
from lakesink.domain.dialects.confluent.naming import ConfluentFormat, ConfluentKeyLayout, format_extension
from lakesink.domain.dialects.confluent.partitioners import TimeBasedPartitioner, partitioner_from_settings
from lakesink.domain.dialects.confluent.rotation import RotationRules
from lakesink.domain.dialects.confluent.schemas import SchemaCompatibility
from lakesink.domain.dialects.confluent.writing import (
    ConfluentWriting,
    NullValues,
    cycle_end,
    file_format,
    reads_clock,
)
from lakesink.domain.dialects.kafka_connect.config_def import (
    int_setting,
    long_setting,
    one_of,
    required,
    string_setting,
    subscription,
)
from lakesink.domain.dialects.kafka_connect.key_policy import KeyPolicy
from lakesink.domain.dialects.kafka_connect.sink_config import ConnectSinkConfig, framework_settings
from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.joda_zone import TIMEZONE_SETTING, resolve_joda_zone
from lakesink.domain.transforms.registry import build_chain, transform_keys

S3_STORAGE = "io.confluent.connect.s3.storage.S3Storage"
#: ``s3.credentials.provider.class`` values meaning the AWS default chain (SDK v1 and v2 names).
DEFAULT_CREDENTIAL_CHAINS = frozenset(
    {
        "com.amazonaws.auth.DefaultAWSCredentialsProviderChain",
        "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider",
    }
)
_NULL_BEHAVIOURS = ("fail", "ignore", "write")
_COMPATIBILITIES = ("NONE", "BACKWARD", "FORWARD", "FULL")
_AVRO_CODECS = ("null", "deflate", "snappy", "bzip2")


@dataclass(frozen=True, slots=True)
class StoredView:
    """A keys or headers view Confluent stores next to each value file: its format and extension."""

    format: ConfluentFormat
    extension: str


@dataclass(frozen=True, slots=True, repr=False)
class ConfluentSinkConfig(ConnectSinkConfig):
    """A validated Confluent S3 sink config; ``repr`` never shows a secret or a provided value.

    Attributes:
        region: ``s3.region`` (Confluent's default ``us-west-2``); endpoint: ``store.url``.
        access_key / secret_key: static credentials, or None for the default chain.
        extension: the value files' extension (``.snappy.parquet``, ``.json.gz``...).
        layout: topics.dir, delimiters, offset padding and the partitioner.
        rotate_interval_ms / rotate_schedule_interval_ms: -1 when disabled.
        keys / headers: the ``.keys`` / ``.headers`` views when stored, else None.
        error_handling: the ``errors.*`` / ``report.null.values.to.dlq`` keys as given (held: :mod:`lakesink.domain.dialects.confluent.keys`).
        kafka_client: ``consumer.*``, ``sasl.*``, ``ssl.*`` settings for the Kafka consumer.
    """

    connector_class: ClassVar[str] = CONFLUENT_S3_SINK
    policy: ClassVar[KeyPolicy] = POLICY

    name: str
    topics: tuple[str, ...]
    topics_regex: str | None
    bootstrap_servers: str | None
    bucket: str
    region: str
    endpoint: str | None
    path_style_access: bool
    access_key: Secret | None
    secret_key: Secret | None
    format: ConfluentFormat
    extension: str
    layout: ConfluentKeyLayout
    flush_size: int
    rotate_interval_ms: int
    rotate_schedule_interval_ms: int
    rotate_on_partition_change: bool
    schema_compatibility: str
    null_values: str
    tombstone_partition: str
    compression_level: int
    avro_codec: str
    keys: StoredView | None
    headers: StoredView | None
    key_converter: ConverterSettings
    value_converter: ConverterSettings
    header_converter: ConverterSettings
    transforms: Mapping[str, str]
    kafka_client: Mapping[str, object]
    error_handling: Mapping[str, str]
    writing: ConfluentWriting
    hidden: HiddenValues = field(default_factory=HiddenValues, compare=False)

    @property
    def storage(self) -> S3Settings:
        """The S3 store's settings (``s3.path.style.access.enabled``)."""
        return self.s3_settings(path_style_access=self.path_style_access)

    @classmethod
    def _parse(cls, props: Mapping[str, str], hidden: HiddenValues) -> ConfluentSinkConfig:
        storage = string_setting(props, "storage.class", "")
        if storage != S3_STORAGE:
            raise ConfigError(f"storage.class is required and must be {S3_STORAGE}, not {storage!r}.")
        topics, topics_regex = subscription(props)
        fmt = ConfluentFormat.from_settings(props)
        _check_compression(props, "data", fmt, "format.class")
        extension = format_extension(fmt, props)
        _check_time_settings(props)
        layout = ConfluentKeyLayout.from_settings(props, partitioner_from_settings(props))
        access, secret = _credentials(props)
        store_keys = as_bool("store.kafka.keys", props.get("store.kafka.keys", "false"))
        null_values = one_of(props, "behavior.on.null.values", _NULL_BEHAVIOURS, "fail", lower=True)
        if null_values == "write" and not store_keys:
            raise ConfigError(
                "Writing Kafka record keys to storage is mandatory when tombstone writing is enabled "
                "(behavior.on.null.values=write needs store.kafka.keys=true)."
            )
        schedule = long_setting(props, "rotate.schedule.interval.ms", -1)
        timezone = string_setting(props, TIMEZONE_SETTING, "")
        if schedule > 0 and not timezone:
            raise ConfigError("timezone configuration must be set when using rotate.schedule.interval.ms")
        if timezone:
            resolve_joda_zone(timezone)
        POLICY.check_bounds(props)
        transforms = transform_keys(props)
        build_chain(transforms, UNREAD_CLOCK)  # validation: an unknown class or option fails here
        views = (
            _view(props, "keys", stored=store_keys),
            _view(props, "headers", stored=as_bool("store.kafka.headers", props.get("store.kafka.headers", "false"))),
        )
        return cls(
            name=required(props, "name"),
            topics=topics,
            topics_regex=topics_regex,
            bootstrap_servers=string_setting(props, "bootstrap.servers", "") or None,
            bucket=required(props, "s3.bucket.name"),
            region=string_setting(props, "s3.region", "us-west-2") or "us-west-2",
            endpoint=string_setting(props, "store.url", "") or None,
            path_style_access=as_bool(
                "s3.path.style.access.enabled", props.get("s3.path.style.access.enabled", "true")
            ),
            access_key=access,
            secret_key=secret,
            format=fmt,
            extension=extension,
            layout=layout,
            flush_size=_flush_size(props),
            rotate_interval_ms=long_setting(props, "rotate.interval.ms", -1),
            rotate_schedule_interval_ms=schedule,
            rotate_on_partition_change=as_bool(
                "rotate.file.on.partition.change", props.get("rotate.file.on.partition.change", "true")
            ),
            schema_compatibility=one_of(props, "schema.compatibility", _COMPATIBILITIES, "NONE"),
            null_values=null_values,
            tombstone_partition=string_setting(props, "tombstone.encoded.partition", "tombstone") or "tombstone",
            compression_level=_compression_level(props),
            avro_codec=one_of(props, "avro.codec", _AVRO_CODECS, "null"),
            keys=views[0],
            headers=views[1],
            **framework_settings(props, hidden, POLICY, transforms, topics, topics_regex),
            writing=_writing(props, fmt, extension, layout, views),
            hidden=hidden,
        )

    def describe(self) -> dict[str, object]:
        """The resolved settings as plain JSON-able values (explain); secrets masked."""
        layout = self.layout
        summary = {
            "topics_dir": layout.topics_dir,
            "directory_delim": layout.directory_delim,
            "file_delim": layout.file_delim,
            "zero_pad_width": layout.zero_pad_width,
            "partitioner": type(layout.partitioner).__name__,
        }
        return described(self, {"layout": summary}, omitted=("writing",))


def _writing(
    props: Mapping[str, str],
    fmt: ConfluentFormat,
    extension: str,
    layout: ConfluentKeyLayout,
    views: tuple[StoredView | None, StoredView | None],
) -> ConfluentWriting:
    """How the sink writes this config's files: formats, rotation, schema and null rules."""
    avro_codec = one_of(props, "avro.codec", _AVRO_CODECS, "null")
    level = _compression_level(props)
    keys, headers = (
        None if view is None else file_format(view.format, view.extension, props, avro_codec=avro_codec, compression_level=level)
        for view in views
    )
    interval = long_setting(props, "rotate.interval.ms", -1)
    null_values = NullValues(one_of(props, "behavior.on.null.values", _NULL_BEHAVIOURS, "fail", lower=True))
    tombstone = string_setting(props, "tombstone.encoded.partition", "tombstone") or "tombstone"
    return ConfluentWriting(
        layout=layout,
        values=file_format(fmt, extension, props, avro_codec=avro_codec, compression_level=level),
        keys=keys,
        headers=headers,
        rotation=RotationRules(
            flush_size=_flush_size(props),
            rotate_interval_ms=interval,
            time_based=isinstance(layout.partitioner, TimeBasedPartitioner),
            on_partition_change=as_bool(
                "rotate.file.on.partition.change", props.get("rotate.file.on.partition.change", "true")
            ),
            tombstone_partition=tombstone if null_values is NullValues.WRITE else None,
            cycle_end=cycle_end(long_setting(props, "rotate.schedule.interval.ms", -1), interval, reads_clock(layout)),
        ),
        compatibility=SchemaCompatibility(one_of(props, "schema.compatibility", _COMPATIBILITIES, "NONE")),
        null_values=null_values,
    )


#: The settings each time-based partitioner needs and has no usable default for (Confluent's
#: ``TimeBasedPartitioner#configure`` refuses the defaults: duration -1, empty format, locale, timezone).
_TIME_SETTINGS = {
    "TimeBasedPartitioner": ("partition.duration.ms", "path.format", "locale", TIMEZONE_SETTING),
    "HourlyPartitioner": ("locale", TIMEZONE_SETTING),
    "DailyPartitioner": ("locale", TIMEZONE_SETTING),
}


def _check_time_settings(props: Mapping[str, str]) -> None:
    """One error naming every setting a time-based partitioner needs that the config leaves out.

    Without it the partitioner's own check names only the first, and as the value Confluent
    defaults it to ("Invalid value -1 for configuration partition.duration.ms"), which the user
    never wrote. Settings that are present keep the partitioner's checks of their values.

    Raises:
        ConfigError: naming the partitioner and each missing setting.
    """
    partitioner = string_setting(props, "partitioner.class", "")
    name = partitioner.rsplit(".", 1)[-1]
    needed = _TIME_SETTINGS.get(name) if partitioner == f"io.confluent.connect.storage.partitioner.{name}" else None
    missing = [key for key in needed or () if key not in props]
    if missing:
        raise ConfigError(
            f"partitioner.class={name} needs {', '.join(needed or ())}; this config does not set "
            f"{', '.join(missing)} (Confluent refuses it too: none of them has a usable default)."
        )


def _credentials(props: Mapping[str, str]) -> tuple[Secret | None, Secret | None]:
    provider = string_setting(
        props, "s3.credentials.provider.class", "com.amazonaws.auth.DefaultAWSCredentialsProviderChain"
    )
    if provider not in DEFAULT_CREDENTIAL_CHAINS:
        raise ConfigError(
            f"s3.credentials.provider.class {provider} is not supported: only the default chain "
            f"({', '.join(sorted(DEFAULT_CREDENTIAL_CHAINS))}) or aws.access.key.id/aws.secret.access.key."
        )
    access = string_setting(props, "aws.access.key.id", "")
    secret = string_setting(props, "aws.secret.access.key", "")
    if bool(access) != bool(secret):
        raise ConfigError(
            "Set both aws.access.key.id and aws.secret.access.key, or neither (default credential chain)."
        )
    return (Secret(access), Secret(secret)) if access else (None, None)


def _view(props: Mapping[str, str], which: str, *, stored: bool) -> StoredView | None:
    key = f"{which}.format.class"
    fmt = ConfluentFormat.from_settings(props, key, ConfluentFormat.AVRO.value)
    if which == "headers" and fmt is ConfluentFormat.BYTEARRAY:
        raise ConfigError(
            f"Invalid value {fmt.value} for configuration {key}: headers cannot be written as ByteArrayFormat."
        )
    if stored:
        _check_compression(props, which, fmt, key)
    return StoredView(fmt, format_extension(fmt, props)) if stored else None


def _check_compression(props: Mapping[str, str], which: str, fmt: ConfluentFormat, key: str) -> None:
    """Confluent's validator: gzip only for JsonFormat and ByteArrayFormat data, keys and headers."""
    compression = string_setting(props, "s3.compression.type", "none")
    if compression == "gzip" and fmt in (ConfluentFormat.AVRO, ConfluentFormat.PARQUET):
        raise ConfigError(
            f"Compression Type gzip not valid for {which} format class: ( {fmt.value} ) "
            f"(s3.compression.type=gzip needs JsonFormat or ByteArrayFormat as {key})."
        )


def _flush_size(props: Mapping[str, str]) -> int:
    if "flush.size" not in props:
        raise ConfigError('Missing required configuration "flush.size" which has no default value.')
    size = int_setting(props, "flush.size", 0)
    if size < 1:
        raise ConfigError(f"Invalid value {size} for configuration flush.size: must be at least 1.")
    return size


def _compression_level(props: Mapping[str, str]) -> int:
    level = int_setting(props, "s3.compression.level", -1)
    if not -1 <= level <= 9:
        raise ConfigError(
            f"Invalid value {level} for configuration s3.compression.level: must be between -1 and 9."
        )
    return level
