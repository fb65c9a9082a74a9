"""Reading a connector config file: the one place the CLI commands touch the filesystem for it.

:func:`load_config` is what the commands use: the file's settings with their config provider
references (``${file:...}``, ``${dir:...}``, ``${env:...}``) resolved, and the keys that held one,
so the settings treat those values as secrets.
"""

from __future__ import annotations

from pathlib import Path

from lakesink.adapters.config_sources import LocalConfigSource
from lakesink.domain.config.properties_text import load_config_text
from lakesink.domain.config.providers import ConfigSource, ResolvedConfig, resolve_references
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


def load_config(path: str | Path, *, source: ConfigSource | None = None) -> ResolvedConfig:
    """A config file's settings with its config provider references resolved.

    Args:
        path: the ``.properties`` or Kafka Connect JSON file.
        source: where provider values come from; the local files and environment by default.

    Raises:
        ConfigError: the file cannot be read or parsed, or a reference cannot be resolved
            (naming the setting, never a resolved value).
    """
    return resolve_references(read_config_file(path), source or LocalConfigSource())
