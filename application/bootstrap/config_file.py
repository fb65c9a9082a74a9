"""Reading a connector config file: the one place the commands touch the filesystem for it.

:func:`load_config` is what the commands use: the file's settings with their config provider
references (``${file:...}``, ``${dir:...}``, ``${env:...}``) resolved, and the keys that held one,
so the settings treat those values as secrets; :func:`load_settings` is a sink config's settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lakesink.adapters.config_sources import LocalConfigSource
from lakesink.application.sink_settings import runnable_sink_settings
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.properties_text import load_config_text
from lakesink.domain.config.providers import ResolvedConfig, resolve_references
from lakesink.domain.errors import ConfigError


def read_config_file(path: str | Path) -> dict[str, str]:
    """The flat settings of a ``.properties`` or Kafka Connect JSON file, as written.

    Raises:
        ConfigError: the file cannot be read (naming it), or its syntax is invalid.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"Cannot read the config file {path}: {error.strerror}.") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"The config file {path} is not UTF-8 text: {error.reason}.") from None
    return load_config_text(text, filename=path.name)


def load_config(path: str | Path) -> ResolvedConfig:
    """A config file's settings with its config provider references resolved (:func:`resolve_locally`).

    Raises:
        ConfigError: the file cannot be read or parsed, or a reference cannot be resolved
            (naming the setting, never a resolved value).
    """
    return resolve_locally(read_config_file(path))


def resolve_locally(written: Mapping[str, str]) -> ResolvedConfig:
    """``written`` with its config provider references resolved from this machine's files and environment.

    Raises:
        ConfigError: a reference cannot be resolved (naming the setting, never a resolved value).
    """
    return resolve_references(written, LocalConfigSource())


def load_settings(config_path: str | Path) -> ConnectorSettings:
    """Read and validate a connector config file for a sink, its KCQL plan included.

    A Confluent or Aiven S3 sink config (its ``connector.class``) is validated in its own dialect
    and runs with that connector's keys, files and rotation (:mod:`lakesink.domain.dialects.registry`).

    Raises:
        ConfigError: unreadable file, an unresolvable config provider reference, invalid settings
            or statements, or no ``bootstrap.servers``.
    """
    return runnable_sink_settings(load_config(config_path))
