"""``lakesink config convert FILE``: a Confluent or Aiven S3 sink config as the nearest Lenses-dialect config.

The file is read once, as written; its config provider references are then resolved for the
validation only. The converter is picked by ``connector.class``
(:func:`~lakesink.domain.config.convert.convert_config`). The converted ``.properties`` text goes
to stdout, the source keys that did not carry over to stderr (one line each), so
``lakesink config convert a.json > a.properties`` leaves a config ``lakesink sink --config a.properties`` runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.application.bootstrap.config_file import read_config_file, resolve_locally
from lakesink.domain.config.convert import convert_config


@dataclass(frozen=True, slots=True)
class ConvertOutput:
    """What the command prints: ``config`` on stdout, ``notes`` on stderr (one line per key)."""

    config: str
    notes: tuple[str, ...]


def run_convert(config_path: str) -> ConvertOutput:
    """Convert the Confluent or Aiven S3 sink config in ``config_path``.

    Raises:
        ConfigError: the file cannot be read, is not a valid Confluent or Aiven S3 sink config, or a
            reference cannot be resolved (one line; never a resolved value).
    """
    written = read_config_file(config_path)
    resolved = resolve_locally(written)
    conversion = convert_config(written, resolved.values, resolved.provided)
    return ConvertOutput(conversion.properties_text(), tuple(conversion.note_lines()))
