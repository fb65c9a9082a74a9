"""Confluent's ``directory.delim``, the one setting of its storage sinks that every key layout reads.

It is read the way Kafka's ``ConfigDef`` reads a STRING (:mod:`lakesink.domain.dialects.kafka_connect.config_def`).
"""

from __future__ import annotations

from lakesink.domain.dialects.kafka_connect.config_def import Settings, string_setting
from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.key_segments import has_control_character

DIRECTORY_DELIM = "directory.delim"
DIRECTORY_DELIM_DEFAULT = "/"


def directory_delim(settings: Settings) -> str:
    """``directory.delim`` (default ``/``).

    Raises:
        ConfigError: the delimiter contains a control character (it is written into object keys).
    """
    delim = string_setting(settings, DIRECTORY_DELIM, DIRECTORY_DELIM_DEFAULT)
    reject_control_characters(DIRECTORY_DELIM, delim)
    return delim


def reject_control_characters(key: str, value: str) -> None:
    """Refuse a setting that ends up in object keys when it holds a control character.

    Raises:
        ConfigError: naming ``key``.
    """
    if has_control_character(value):
        raise ConfigError(
            f"Invalid value {value!r} for configuration {key}: "
            "control characters are not allowed in object keys."
        )
