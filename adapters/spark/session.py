"""The one place a SparkSession is built: interpreter, small defaults, data source registration.

Secrets never go into the Spark conf: the Environment tab of the UI and the event log list
every conf entry, and only keys matching ``spark.redaction.regex`` are masked. Credentials
travel as data source options under ``secret.<key>`` instead (see
:mod:`lakesink.adapters.kafka.source_options`); :func:`create_session` refuses a redaction
regex that would not mask them and refuses :class:`~lakesink.domain.config.secret.Secret`
values in ``conf``.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import weakref
from collections.abc import Mapping
from pathlib import Path

from pyspark.sql import SparkSession

from lakesink.adapters.kafka.source import KafkaDataSource
from lakesink.adapters.kafka.source_options import SECRET_PREFIX
from lakesink.adapters.spark.class_archive import archive_options
from lakesink.adapters.spark.memory_defaults import DRIVER_JAVA_OPTIONS, local_jvm_defaults
from lakesink.adapters.spark.site_first_daemon import daemon_settings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError

logger = logging.getLogger(__name__)

REDACTION_REGEX = "spark.redaction.regex"
SPARK_DEFAULT_REDACTION = r"(?i)secret|password|token|access[.]key"

_DEFAULTS = {
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "4",
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.showConsoleProgress": "false",
    REDACTION_REGEX: SPARK_DEFAULT_REDACTION,
}
QUIET_LOG4J = Path(__file__).with_name("log4j2-quiet.properties")
"""Spark's logging without its banner and the start-up warnings a user cannot act on."""
_LOCAL_ONLY = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
TASK_ATTEMPTS = 4
"""Attempts of a task on a local master: Spark's cluster default (``spark.task.maxFailures``)."""
_LOCAL_WITHOUT_ATTEMPTS = re.compile(r"local(?:\[([^,\]]+)\])?")


def create_session(
    master: str = "local[2]",
    app_name: str = "lakesink",
    conf: Mapping[str, str] | None = None,
    *,
    ui_enabled: bool = True,
) -> SparkSession:
    """A SparkSession with lakesink's data sources registered.

    Args:
        master: Spark master URL; ``local[N]`` binds the driver to 127.0.0.1 and retries a failed
            task as a cluster does (:func:`with_task_attempts`).
        app_name: shown in the UI and logs.
        conf: extra Spark settings, applied last (over lakesink's defaults, including the
            local JVM's memory settings of :mod:`.memory_defaults`); never credentials.
        ui_enabled: False in tests, so no web server is started.

    Raises:
        ConfigError: ``conf`` holds a Secret, or its redaction regex would show ``secret.*`` options.
    """
    settings = dict(_DEFAULTS)
    master = with_task_attempts(master)
    local = master.startswith("local")
    if local:
        settings.update(_LOCAL_ONLY)
        settings.update(_local_jvm_settings())
        settings.update(daemon_settings())
    settings["spark.ui.enabled"] = "true" if ui_enabled else "false"
    for key, value in (conf or {}).items():
        if isinstance(value, Secret):
            raise ConfigError(f"Spark setting {key} holds a secret; pass credentials as data source options.")
        settings[key] = value
    _check_redaction(settings[REDACTION_REGEX])
    _use_this_interpreter(local)

    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    register_data_sources(session)
    logger.info("Spark session %s on %s (Spark %s)", app_name, master, session.version)
    return session


def with_task_attempts(master: str) -> str:
    """``local`` and ``local[N]`` as ``local[N,4]``: every other master is returned as given.

    Spark gives a local master one attempt per task, so a Python worker killed by the kernel (out of
    memory) or by an operator fails the whole batch and stops the sink, where a cluster would run
    the task again; with ``local[N,4]`` a local sink rides through it as a cluster does (its ranges
    are deterministic and its uploads create-only, so a second attempt writes the same objects).
    ``local[N,F]`` keeps the F given (``local[N,1]``: Spark's local behaviour).
    """
    match = _LOCAL_WITHOUT_ATTEMPTS.fullmatch(master)
    if match is None:
        return master
    return f"local[{match.group(1) or 1},{TASK_ATTEMPTS}]"


def _local_jvm_settings() -> dict[str, str]:
    """lakesink's JVM defaults, with the class archive (:mod:`.class_archive`) when one was built
    and, at the default log level, the quiet logging profile (:data:`QUIET_LOG4J`)."""
    settings = local_jvm_defaults()
    if DRIVER_JAVA_OPTIONS in settings:
        extra = [archive_options()]
        if logging.getLogger().getEffectiveLevel() >= logging.WARNING:
            extra.append(f"-Dlog4j2.configurationFile={QUIET_LOG4J.as_uri()}")
        settings[DRIVER_JAVA_OPTIONS] = " ".join([settings[DRIVER_JAVA_OPTIONS], *filter(None, extra)])
    return settings


_REGISTERED: weakref.WeakSet[SparkSession] = weakref.WeakSet()
"""Sessions that have the data sources (Spark logs a WARN line each time one is registered again)."""


def register_data_sources(session: SparkSession) -> None:
    """Make ``format("lakesink-kafka")`` available in ``session`` (once per session)."""
    if session not in _REGISTERED:
        session.dataSource.register(KafkaDataSource)
        _REGISTERED.add(session)


def _check_redaction(regex: str) -> None:
    sample = SECRET_PREFIX + "kafka.sasl.jaas.config"
    try:
        masks_secrets = re.search(regex, sample) is not None
    except re.error:
        masks_secrets = True  # a Java-only construct; Spark validates it, we cannot
    if not masks_secrets:
        raise ConfigError(
            f"{REDACTION_REGEX} must match option keys starting with {SECRET_PREFIX!r} "
            "or credentials would show in query plans; add 'secret' to it."
        )


def _use_this_interpreter(local: bool) -> None:
    """Python workers must run the interpreter that has lakesink installed."""
    for variable in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"):
        if local or variable not in os.environ:
            os.environ[variable] = sys.executable
