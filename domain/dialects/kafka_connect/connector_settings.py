"""A Confluent or Aiven sink config as the settings the sink runs on: what the two dialects share.

The sink runs on :class:`~lakesink.domain.config.connector.ConnectorSettings`: a dialect config
becomes one KCQL statement taking every subscribed topic into its bucket (flush properties are the
dialect's admission rule), with the dialect's writing in place of the KCQL layout; subscription,
converters, transforms, Kafka client settings, error tolerance and reporting are the config's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.connector import ConnectorSettings, tolerates_errors
from lakesink.domain.config.enums import ErrorPolicy
from lakesink.domain.config.error_reporting import ErrorReporting, parse_error_reporting
from lakesink.domain.config.hidden import HiddenValues
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.dialects.kafka_connect.config_def import one_of
from lakesink.domain.kcql import parse


class DialectConfig(Protocol):
    """What a validated Confluent or Aiven sink config offers the sink run (and the restore of what
    that sink wrote, :mod:`lakesink.domain.restore.sink_restore`)."""

    @property
    def name(self) -> str: ...
    @property
    def bucket(self) -> str: ...
    @property
    def storage(self) -> S3Settings: ...
    @property
    def topics(self) -> tuple[str, ...]: ...
    @property
    def topics_regex(self) -> str | None: ...
    @property
    def bootstrap_servers(self) -> str | None: ...
    @property
    def key_converter(self) -> ConverterSettings: ...
    @property
    def value_converter(self) -> ConverterSettings: ...
    @property
    def header_converter(self) -> ConverterSettings: ...
    @property
    def kafka_client(self) -> Mapping[str, object]: ...
    @property
    def transforms(self) -> Mapping[str, str]: ...
    @property
    def skips_poison(self) -> bool: ...
    @property
    def error_handling(self) -> Mapping[str, str]: ...
    @property
    def hidden(self) -> HiddenValues: ...


def dialect_settings(config: DialectConfig, flush_properties: str, **writing: Any) -> ConnectorSettings:
    """The settings of a sink run of ``config``.

    ``flush_properties`` are the KCQL flush properties that admit partitions into micro-batches
    (e.g. ``'flush.count'=1000, 'flush.interval'=60``); ``writing`` sets the dialect's fields
    (``writing=…``, and what else differs from the defaults).
    """
    kcql = f"INSERT INTO `{config.bucket}` SELECT * FROM `*` STOREAS `JSON` PROPERTIES({flush_properties})"
    return ConnectorSettings(
        role="sink",
        name=config.name,
        backend="s3",
        prefix="connect.s3",
        storage=config.storage,
        kcql=kcql,
        statements=tuple(parse(kcql)),
        topics=config.topics,
        topics_regex=config.topics_regex,
        bootstrap_servers=config.bootstrap_servers,
        key_converter=config.key_converter,
        value_converter=config.value_converter,
        header_converter=config.header_converter,
        kafka_client=config.kafka_client,
        error_policy=ErrorPolicy.NOOP if config.skips_poison else ErrorPolicy.THROW,
        tolerate_record_errors=config.skips_poison,
        error_reporting=dialect_error_reporting(config.error_handling, config.topics, config.topics_regex),
        range_split_offsets=0,
        transforms=config.transforms,
        hidden=config.hidden,
        **writing,
    )


def dialect_error_reporting(
    props: Mapping[str, str], topics: tuple[str, ...], topics_regex: str | None
) -> ErrorReporting:
    """The error reporting of a Confluent or Aiven config's ``errors.*`` keys, where
    ``errors.tolerance=all`` is what lets a record go to the dead-letter queue.

    Raises:
        ConfigError: an invalid ``errors.*`` value (:func:`parse_error_reporting`).
    """
    return parse_error_reporting(
        props,
        skips_poison=tolerates_errors(props),
        skip_setting="errors.tolerance=all",
        topics=topics,
        topics_regex=topics_regex,
    )


def framework_errors(
    props: Mapping[str, str], held: Callable[[str], bool], topics: tuple[str, ...], topics_regex: str | None
) -> dict[str, str]:
    """The Kafka Connect ``errors.*`` keys of a Confluent or Aiven config (those ``held`` says the
    framework keeps), validated where the config is loaded: ``errors.tolerance`` in Kafka's words,
    the rest by :func:`dialect_error_reporting`.

    Raises:
        ConfigError: naming the ``errors.*`` key at fault.
    """
    kept = {key: value for key, value in props.items() if held(key)}
    one_of(props, "errors.tolerance", ("none", "all"), "none", lower=True)
    dialect_error_reporting(kept, topics, topics_regex)
    return kept
