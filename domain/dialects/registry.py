"""The Kafka Connect sinks whose own configs lakesink runs, found by ``connector.class``.

A Confluent or Aiven S3 sink config runs in its connector's dialect (its keys, names, files and
restore). Each dialect is one :class:`Dialect` (settings parser, key table, restore plan, converter):
a command asks :func:`sink_dialect` once, and a new dialect is one more entry of :data:`DIALECTS`.
Any other config is a Lenses config, the product's own model.
See docs/architecture.md, "Adding a dialect".
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Protocol

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.connector_classes import AIVEN_S3_SINK, CONFLUENT_S3_SINK
from lakesink.domain.config.lenses_conversion import Conversion
from lakesink.domain.dialects.aiven import keys as aiven_keys
from lakesink.domain.dialects.aiven.connector import connector_settings as aiven_connector_settings
from lakesink.domain.dialects.aiven.convert import convert_aiven
from lakesink.domain.dialects.aiven.restore_plan import aiven_sink_restore_plan
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.dialects.confluent import keys as confluent_keys
from lakesink.domain.dialects.confluent.connector import connector_settings as confluent_connector_settings
from lakesink.domain.dialects.confluent.convert import convert_confluent
from lakesink.domain.dialects.confluent.restore_plan import confluent_restore_plan
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.dialects.kafka_connect.key_policy import KeyPolicy
from lakesink.domain.restore.plan import RestorePlan


class RestorePlanner(Protocol):
    """The shape of a dialect's restore plan: its sink config (plus ``producer.*``) → the plan
    restoring what that sink wrote."""

    def __call__(
        self, props: Mapping[str, str], *, parallelism: int | None = None, provided: Collection[str] = frozenset()
    ) -> RestorePlan: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    """One Kafka Connect sink lakesink runs in its own configuration."""

    name: str
    """The dialect's one word (``confluent``, ``aiven``): metrics labels, explain's JSON, preflight."""
    connector_class: str
    title: str
    """How messages name its configs: ``Confluent S3 sink``."""
    keys: KeyPolicy
    settings: Callable[[Mapping[str, str], Collection[str]], ConnectorSettings]
    """Validate a config (its values, the keys a config provider filled) into the run's settings."""
    restore_plan: RestorePlanner
    convert: Callable[[Mapping[str, str], Mapping[str, str], frozenset[str]], Conversion]
    """``lakesink config convert``: (as written, resolved, provided keys) → the nearest Lenses config."""

    @property
    def described(self) -> str:
        """``a Confluent S3 sink config (connector.class=io.confluent.connect.s3.S3SinkConnector)``."""
        article = "an" if self.title[0] in "AEIOU" else "a"
        return f"{article} {self.title} config (connector.class={self.connector_class})"


def _confluent_settings(values: Mapping[str, str], provided: Collection[str]) -> ConnectorSettings:
    return confluent_connector_settings(ConfluentSinkConfig.from_properties(values, provided))


def _aiven_settings(values: Mapping[str, str], provided: Collection[str]) -> ConnectorSettings:
    return aiven_connector_settings(AivenSinkConfig.from_properties(values, provided))


CONFLUENT = Dialect("confluent", CONFLUENT_S3_SINK, "Confluent S3 sink", confluent_keys.POLICY, _confluent_settings,
                    confluent_restore_plan, convert_confluent)
AIVEN = Dialect("aiven", AIVEN_S3_SINK, "Aiven S3 sink", aiven_keys.POLICY, _aiven_settings, aiven_sink_restore_plan,
                convert_aiven)
DIALECTS: Mapping[str, Dialect] = {dialect.connector_class: dialect for dialect in (CONFLUENT, AIVEN)}


def sink_dialect(props: Mapping[str, str]) -> Dialect | None:
    """The dialect ``props``' ``connector.class`` names; None for a Lenses config (or any other class,
    which :func:`~lakesink.domain.config.connector_classes.check_connector_class` refuses)."""
    return DIALECTS.get(props.get("connector.class", "").strip())
