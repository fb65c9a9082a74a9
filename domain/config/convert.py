"""``lakesink config convert``: which converter a config goes to, by its ``connector.class``.

Each source dialect has its own converter (:mod:`lakesink.domain.config.confluent_convert`,
:mod:`lakesink.domain.config.aiven_convert`); the command only knows this function, so a new
dialect is one more branch here.
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.config.aiven_convert import convert_aiven
from lakesink.domain.config.aiven_sink import AIVEN_S3_SINK, is_aiven_sink
from lakesink.domain.config.confluent_convert import convert_confluent
from lakesink.domain.config.confluent_sink import CONFLUENT_S3_SINK, is_confluent_sink
from lakesink.domain.config.convert_secrets import secrets_as_references
from lakesink.domain.config.lenses_conversion import Conversion, other_dialect_error


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
    if is_aiven_sink(resolved):
        return secrets_as_references(convert_aiven(raw, resolved, provided))
    if is_confluent_sink(resolved):
        return secrets_as_references(convert_confluent(raw, resolved, provided))
    raise other_dialect_error(
        raw,
        f"a Confluent S3 sink config (connector.class={CONFLUENT_S3_SINK}) "
        f"or an Aiven S3 sink config (connector.class={AIVEN_S3_SINK})",
    )
