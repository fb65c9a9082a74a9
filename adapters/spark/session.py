"""The one place a SparkSession is built: master, small defaults, interpreter, data sources, worker check.

The user's Spark settings win; lakesink's defaults fill only the gaps (:mod:`.user_settings`).
Secrets never go into the Spark conf (the UI and event log list it): credentials travel as data
source options under ``secret.<key>``, and :func:`create_session` refuses a redaction regex that
would not mask them and :class:`~lakesink.domain.config.secret.Secret` values in ``conf``.
See docs/operations.md, "spark-submit and lakesink's defaults", and docs/kafka.md.
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
from lakesink.adapters.spark.user_settings import APP_NAME, resolve_master, start_jvm
from lakesink.adapters.spark.worker_check import check_workers
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError

logger = logging.getLogger(__name__)

REDACTION_REGEX = "spark.redaction.regex"
SPARK_DEFAULT_REDACTION = r"(?i)secret|password|token|access[.]key"

_DEFAULTS = {
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.showConsoleProgress": "false",
    REDACTION_REGEX: SPARK_DEFAULT_REDACTION,
}
"""lakesink's defaults on any master; each applies only where the user set nothing (:mod:`.user_settings`)."""
QUIET_LOG4J = Path(__file__).with_name("log4j2-quiet.properties")
"""Spark's logging without its banner and the start-up warnings a user cannot act on."""
_LOCAL_ONLY = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.default.parallelism": "4",  # on a cluster Spark's own default (all executor cores) applies
}
UI_ENABLED = "spark.ui.enabled"
PYTHON = "spark.pyspark.python"
TASK_ATTEMPTS = 4
"""Attempts of a task on a local master: Spark's cluster default (``spark.task.maxFailures``)."""
_LOCAL_WITHOUT_ATTEMPTS = re.compile(r"local(?:\[([^,\]]+)\])?")


def create_session(
    master: str | None = None,
    app_name: str = "lakesink",
    conf: Mapping[str, str] | None = None,
    *,
    ui_enabled: bool = True,
    default_master: str = "local[2]",
) -> SparkSession:
    """A SparkSession with lakesink's data sources registered and its Python workers checked.

    What the user gave Spark wins over lakesink's defaults: spark-submit's flags and ``--conf``,
    ``spark-defaults.conf``, ``PYSPARK_SUBMIT_ARGS`` (:mod:`.user_settings`); lakesink sets
    :data:`_DEFAULTS` (and on a local master :data:`_LOCAL_ONLY`, its JVM and daemon settings) only
    where the user set nothing.

    Args:
        master: the master named on lakesink's command line: wins over the Spark configuration's,
            refused under spark-submit when it differs from spark-submit's. ``local[N]`` binds the
            driver to 127.0.0.1 and retries a failed task as a cluster does (:func:`with_task_attempts`).
        app_name: shown in the UI and logs, unless the user named the application.
        conf: the user's Spark settings (lakesink's ``--conf``), applied last; never credentials.
        ui_enabled: False turns the UI off unless the user turned it on (tests: no web server).
        default_master: the master when neither ``master`` nor the Spark configuration names one.

    Raises:
        ConfigError: ``conf`` holds a Secret, its redaction regex would show ``secret.*`` options,
            ``master`` conflicts with spark-submit's, or the Python workers cannot import lakesink.
    """
    user = dict(conf or {})
    for key, value in user.items():
        if isinstance(value, Secret):
            raise ConfigError(f"Spark setting {key} holds a secret; pass credentials as data source options.")
    planned = with_task_attempts(master or default_master)
    launch = {**(_local_jvm_settings() if _is_local(planned) else {}), **user}
    given = start_jvm(launch, planned)
    resolved = resolve_master(master or None, given, planned)
    final_master = with_task_attempts(resolved) if master and not given.under_submit else resolved
    local = _is_local(final_master)
    user = {**given.values, **user}
    defaults = {**_DEFAULTS, **(_LOCAL_ONLY | daemon_settings() if local else {})}
    if not ui_enabled:
        defaults[UI_ENABLED] = "false"
    applied = {key: value for key, value in defaults.items() if key not in user}
    settings = {**applied, **user}
    _check_redaction(settings[REDACTION_REGEX])
    _use_interpreter(local, user.get(PYTHON))

    builder = SparkSession.builder
    if not given.under_submit:
        builder = builder.master(final_master)
    if APP_NAME not in user:
        builder = builder.appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    try:
        check_workers(session)
    except ConfigError:
        session.stop()  # nobody gets a session whose workers cannot run lakesink
        raise
    register_data_sources(session)
    logger.info(
        "Spark session %s on %s (Spark %s, default parallelism %s; lakesink's defaults applied: %s)",
        session.sparkContext.appName, session.sparkContext.master, session.version,
        session.sparkContext.defaultParallelism, ", ".join(sorted(applied)) or "none",
    )
    return session


def _is_local(master: str) -> bool:
    return master.startswith("local")


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


def _use_interpreter(local: bool, chosen: str | None) -> None:
    """Python workers must run an interpreter that has lakesink installed: the user's
    ``spark.pyspark.python`` (which PySpark itself honours only under spark-submit), else on a local
    master this one, else the user's ``PYSPARK_PYTHON`` or this one (:mod:`.worker_check` checks it)."""
    if chosen:
        os.environ["PYSPARK_PYTHON"] = chosen
    elif local or "PYSPARK_PYTHON" not in os.environ:
        os.environ["PYSPARK_PYTHON"] = sys.executable
    if local or "PYSPARK_DRIVER_PYTHON" not in os.environ:
        os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
