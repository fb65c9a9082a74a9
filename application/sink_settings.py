"""A sink's connector settings validated without importing the data path.

Why a module of its own: :mod:`.bootstrap.sink` imports pyspark, pyarrow, pandas and
confluent-kafka (~0.5 s). ``lakesink sink`` validates the config with this module first, so a config
error is reported without starting a JVM (:mod:`.bootstrap.sink_command`).
"""

from __future__ import annotations

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.providers import ResolvedConfig
from lakesink.domain.dialects.registry import sink_dialect
from lakesink.domain.errors import ConfigError
from lakesink.domain.statement_plan import plan_sink


def runnable_sink_settings(config: ResolvedConfig) -> ConnectorSettings:
    """:func:`sink_settings` of a config ``lakesink sink`` can run: one that names its Kafka cluster.

    Raises:
        ConfigError: invalid settings or statements, or no ``bootstrap.servers``.
    """
    settings = sink_settings(config)
    if not settings.bootstrap_servers:
        raise ConfigError("bootstrap.servers is required for lakesink sink: the Kafka cluster to read.")
    return settings


def sink_settings(config: ResolvedConfig) -> ConnectorSettings:
    """Validate a sink's settings in the dialect its ``connector.class`` names, its KCQL plan included.

    Raises:
        ConfigError: invalid settings or statements.
    """
    dialect = sink_dialect(config.values)
    if dialect is not None:
        settings = dialect.settings(config.values, config.provided)
    else:
        settings = ConnectorSettings.from_properties(config.values, role="sink", provided=config.provided)
    plan_sink(settings)
    return settings


def sink_app_name(settings: ConnectorSettings) -> str:
    """The Spark application name of a sink run (UI, logs, event log)."""
    return f"lakesink-sink-{settings.name}"
