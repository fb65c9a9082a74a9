"""``lakesink config convert``: which converter a config goes to, by its ``connector.class``.

Each dialect of :mod:`lakesink.domain.dialects.registry` has its own converter; the command only
knows this function.
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.config.convert_secrets import secrets_as_references
from lakesink.domain.config.lenses_conversion import Conversion, other_dialect_error
from lakesink.domain.dialects.registry import DIALECTS, sink_dialect


def convert_config(
    raw: Mapping[str, str], resolved: Mapping[str, str], provided: frozenset[str] = frozenset()
) -> Conversion:
    """The nearest Lenses-dialect config for a Confluent or Aiven S3 sink config, with no secret in
    it (:func:`~lakesink.domain.config.convert_secrets.secrets_as_references`).

    The arguments are those of each converter (``raw`` printed, ``resolved`` read, ``provided``
    the keys that held a config provider reference).

    Raises:
        ConfigError: another ``connector.class``, or the converter's own refusal.
    """
    dialect = sink_dialect(resolved)
    if dialect is None:
        raise other_dialect_error(raw, " or ".join(known.described for known in DIALECTS.values()))
    return secrets_as_references(dialect.convert(raw, resolved, provided))
