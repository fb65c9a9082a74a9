"""The files and environment variables Kafka config providers read (``${file:...}``, ``${dir:...}``, ``${env:...}``).

:class:`LocalConfigSource` is the real :class:`~lakesink.domain.config.providers.ConfigSource`:
the process's filesystem and environment. Errors name the path and the operating system's
reason, never what a file holds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from lakesink.domain.config.properties_text import parse_properties
from lakesink.domain.config.providers import ConfigSourceError
from lakesink.domain.errors import ConfigError


class LocalConfigSource:
    """Reads provider values from local files and ``os.environ`` (UTF-8, as Kafka's providers)."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = os.environ if environ is None else environ

    def read_properties(self, path: str) -> Mapping[str, str]:
        """Every entry of the ``.properties`` file at ``path``."""
        text = _read_text(Path(path))
        try:
            return parse_properties(text)
        except ConfigError as error:  # names a line, never a value
            raise ConfigSourceError(f"{path} is not a valid .properties file: {error}") from None

    def read_file(self, directory: str, name: str) -> str:
        """The content of the regular file ``name`` in ``directory`` (symbolic links followed)."""
        folder = Path(directory)
        if not folder.is_dir():
            raise ConfigSourceError(f"{directory} is not a directory.")
        entry = folder / name
        if not entry.is_file():
            raise ConfigSourceError(f"{directory} has no file {name!r}.")
        return _read_text(entry)

    def environment(self, name: str) -> str | None:
        """The variable ``name``, or None when it is not set."""
        return self._environ.get(name)

    def path_exists(self, path: str) -> bool:
        """Whether ``path`` exists."""
        return Path(path).exists()


def _read_text(path: Path) -> str:
    try:
        # newline="" keeps the bytes as they are: a DirectoryConfigProvider value is the whole file.
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except OSError as error:
        raise ConfigSourceError(f"cannot read {path}: {error.strerror or type(error).__name__}.") from None
    except UnicodeDecodeError as error:
        raise ConfigSourceError(f"{path} is not UTF-8 text: {error.reason}.") from None
