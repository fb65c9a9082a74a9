"""Key families handed on untouched: converter settings and Kafka client settings.

lakesink does not interpret these; the converter and Kafka adapters do. What matters here is
routing them (prefixes stripped as Kafka Connect does) and wrapping secret-looking values so
they never print. Values a config provider supplied (``hidden`` keys) are wrapped too.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from lakesink.domain.config.catalog import looks_secret
from lakesink.domain.config.converter_classes import check_converter
from lakesink.domain.config.framework_keys import framework_no_effect
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError

ClientValue = str | Secret

#: Top-level keys both the consumer and the producer get (Kafka Connect worker style).
_SHARED_CLIENT_PREFIXES = ("sasl.", "ssl.")
_SHARED_CLIENT_KEYS = ("security.protocol",)
_ROLE_CLIENT_PREFIX = {"sink": "consumer.", "source": "producer."}


@dataclass(frozen=True, slots=True)
class ConverterSettings:
    """``key.converter`` / ``value.converter`` / ``header.converter``: class name and sub-settings."""

    class_name: str | None = None
    settings: Mapping[str, ClientValue] = field(default_factory=dict)


def _wrap(name: str, value: str, *, provided: bool = False) -> ClientValue:
    return Secret(value) if provided or looks_secret(name) else value


def parse_converter(
    props: Mapping[str, str], which: str, *, hidden: Collection[str] = frozenset(), applied: bool = True
) -> ConverterSettings:
    """The converter called ``which`` (``key``, ``value`` or ``header``); ``hidden`` keys' values become secrets.

    An ``applied`` converter is checked now (:func:`check_converter`), so a class lakesink does not
    have is refused before Spark starts; a restore's key and value converters have no effect and
    are not.
    """
    base = f"{which}.converter"
    class_name = props.get(base, "").strip() or None
    sub_prefix = base + "."
    settings = {
        key[len(sub_prefix) :]: _wrap(key[len(sub_prefix) :], value, provided=key in hidden)
        for key, value in props.items()
        if key.startswith(sub_prefix) and framework_no_effect(key) is None
    }
    if settings and class_name is None:
        first = sub_prefix + sorted(settings)[0]
        raise ConfigError(
            f"{first} is set but {base} is not: name the converter class these settings are for."
        )
    if applied:
        check_converter(which, class_name, settings)
    return ConverterSettings(class_name=class_name, settings=settings)


def parse_kafka_client(
    props: Mapping[str, str], role: str, *, hidden: Collection[str] = frozenset()
) -> dict[str, ClientValue]:
    """librdkafka settings for the role's client; ``consumer.``/``producer.`` entries win over shared ones.

    ``hidden`` keys' values (from a config provider) become secrets whatever their name.
    """
    shared: dict[str, ClientValue] = {
        key: _wrap(key, value, provided=key in hidden)
        for key, value in props.items()
        if key in _SHARED_CLIENT_KEYS or key.startswith(_SHARED_CLIENT_PREFIXES)
    }
    prefix = _ROLE_CLIENT_PREFIX[role]
    override = prefix + "override."
    specific: dict[str, ClientValue] = {}
    origin: dict[str, str] = {}
    for key, value in props.items():
        if not key.startswith(prefix):
            continue
        name = key[len(override) :] if key.startswith(override) else key[len(prefix) :]
        if name in origin:
            raise ConfigError(f"{origin[name]} and {key} set the same client setting; keep one.")
        origin[name] = key
        specific[name] = _wrap(name, value, provided=key in hidden)
    return {**shared, **specific}
