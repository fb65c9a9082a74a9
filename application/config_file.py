"""Reading a connector config file: the one place the CLI commands touch the filesystem for it."""

from __future__ import annotations

from pathlib import Path

from lakesink.domain.config.properties_text import load_config_text
from lakesink.domain.errors import ConfigError


def read_config_file(path: str | Path) -> dict[str, str]:
    """The flat settings of a ``.properties`` or Kafka Connect JSON file.

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
