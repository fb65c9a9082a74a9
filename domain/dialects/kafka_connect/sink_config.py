"""What every Kafka Connect S3 sink config holds besides its connector's own rules (Confluent's,
Aiven's): how it is read (its keys against the connector's key table and its ``connector.class``
checked first, provided values never shown), the framework's settings (converters, transforms, the
Kafka client, ``errors.*``), read the same way for every connector, its S3 store's settings, and
whether it skips poison records."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar, Self

from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.connector import tolerates_errors
from lakesink.domain.config.hidden import HiddenValues, HidingSettings, parse_hiding
from lakesink.domain.config.passthrough import parse_converter, parse_kafka_client
from lakesink.domain.config.secret import Secret
from lakesink.domain.dialects.kafka_connect.connector_settings import framework_errors
from lakesink.domain.dialects.kafka_connect.key_policy import HELD, KeyPolicy
from lakesink.domain.errors import ConfigError


class ConnectSinkConfig(HidingSettings):
    """A mixin for a Kafka Connect S3 sink config dataclass: how a connector config becomes one, its
    store's settings and error tolerance. A dialect's class names its ``connector_class`` and its key
    table (``policy``) and reads the connector's own settings in :meth:`_parse`."""

    __slots__ = ()
    connector_class: ClassVar[str]
    policy: ClassVar[KeyPolicy]
    access_key: Secret | None
    secret_key: Secret | None
    region: str
    endpoint: str | None
    error_handling: Mapping[str, str]

    def s3_settings(self, *, path_style_access: bool, http_max_retries: int | None = None) -> S3Settings:
        """The S3 store's settings: static credentials, or the default chain without them."""
        retries = {} if http_max_retries is None else {"http_max_retries": http_max_retries}
        return S3Settings(
            auth_mode="Credentials" if self.access_key is not None else "Default",
            access_key=self.access_key,
            secret_key=self.secret_key,
            region=self.region,
            custom_endpoint=self.endpoint,
            path_style_access=path_style_access,
            **retries,
        )

    @classmethod
    def matches(cls, props: Mapping[str, str]) -> bool:
        """Whether ``props`` is a config of this connector (its ``connector.class``)."""
        return props.get("connector.class", "").strip() == cls.connector_class

    @classmethod
    def from_properties(cls, props: Mapping[str, str], provided: Collection[str] = frozenset()) -> Self:
        """Validate a config of this connector: every key by its key table, its ``connector.class``,
        then the connector's own settings.

        ``provided`` names the keys a config provider filled: their values never appear in an
        error or ``repr``.

        Raises:
            ConfigError: one line naming the key at fault (unknown, unsupported or invalid).
        """
        return parse_hiding(props, provided, cls._parse_checked)

    @classmethod
    def _parse_checked(cls, props: Mapping[str, str], hidden: HiddenValues) -> Self:
        cls.policy.check_keys(props, hidden.keys)
        if not cls.matches(props):
            title = cls.policy.connector
            article = "an" if title[0] in "AEIOU" else "a"
            raise ConfigError(f"connector.class must be {cls.connector_class} for {article} {title} config.")
        return cls._parse(props, hidden)

    @classmethod
    def _parse(cls, props: Mapping[str, str], hidden: HiddenValues) -> Self:
        """The connector's own settings of ``props``, whose keys and class are checked."""
        raise NotImplementedError

    @property
    def skips_poison(self) -> bool:
        """``errors.tolerance=all``: a record that cannot be converted or written is skipped (and sent to
        the dead-letter topic, if one is set)."""
        return tolerates_errors(self.error_handling)


def framework_settings(
    props: Mapping[str, str],
    hidden: HiddenValues,
    policy: KeyPolicy,
    transforms: Mapping[str, str],
    topics: tuple[str, ...],
    topics_regex: str | None,
) -> dict[str, Any]:
    """The framework's fields of a connector config (``key_converter`` … ``error_handling``), as its
    dataclass takes them: converters, the validated ``transforms``, the consumer's client settings and
    the ``errors.*`` keys its policy holds."""
    return {
        "key_converter": parse_converter(props, "key", hidden=hidden.keys),
        "value_converter": parse_converter(props, "value", hidden=hidden.keys),
        "header_converter": parse_converter(props, "header", hidden=hidden.keys),
        "transforms": transforms,
        "kafka_client": parse_kafka_client(props, "sink", hidden=hidden.keys),
        "error_handling": framework_errors(props, lambda key: policy.key_class(key) == HELD, topics, topics_regex),
    }
