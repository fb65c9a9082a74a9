"""What the user told Spark, so lakesink's defaults fill only the gaps (spark-submit, then lakesink).

Settings on ``SparkSession.builder`` win over spark-submit's flags, ``--conf`` and
``spark-defaults.conf``, so lakesink reads what the user set (:func:`given_settings`) and adds its
defaults only where nothing was set. See docs/operations.md, "spark-submit and lakesink's defaults".
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lakesink.domain.errors import ConfigError

logger = logging.getLogger(__name__)

MASTER = "spark.master"
APP_NAME = "spark.app.name"
SHOW_PROGRESS = "spark.ui.showConsoleProgress"
_LAUNCHER_KEYS = frozenset({"spark.app.submitTime", "spark.submit.deployMode", "spark.submit.pyFiles"})
"""What spark-submit records about the submission itself, never a choice of the user's."""
_SHELL = "pyspark-shell"
"""The primary resource of a JVM PySpark launches itself: spark-submit names the application after
it and, as for any shell, turns the console progress bar on."""


@dataclass(frozen=True, slots=True)
class GivenSettings:
    """The Spark settings the user made, and where the driver JVM came from.

    Attributes:
        values: every ``spark.*`` setting the user made but the master (the application name included).
        master: the master the JVM was started for: the user's, else the one lakesink passed.
        under_submit: the JVM was started by the user's spark-submit, not by lakesink.
    """

    values: dict[str, str]
    master: str
    under_submit: bool


def under_spark_submit(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this driver was started by spark-submit (which left its JVM's gateway port here)."""
    return "PYSPARK_GATEWAY_PORT" in (os.environ if environ is None else environ)


def start_jvm(launch: Mapping[str, str], master: str) -> GivenSettings:
    """Start the driver's JVM gateway (unless it runs) with ``launch`` and ``master`` as lakesink's
    choices, then read back what the user set.

    ``launch`` holds what only takes effect when the JVM starts (its memory, the user's ``--conf``).
    ``master`` goes in as ``MASTER``, so spark-submit's flags, ``PYSPARK_SUBMIT_ARGS`` and
    ``spark-defaults.conf`` win over it; a ``MASTER`` the user exported wins too.
    """
    from pyspark import SparkConf, SparkContext

    submitted = under_spark_submit()
    if SparkContext._gateway is None and not submitted:
        exported = "MASTER" in os.environ
        os.environ.setdefault("MASTER", master)
        try:
            SparkContext._ensure_initialized(conf=SparkConf(loadDefaults=False).setAll(launch.items()))
        finally:
            if not exported:
                os.environ.pop("MASTER", None)
    else:
        SparkContext._ensure_initialized()
    properties = dict(SparkConf().getAll())
    return given_settings(properties, launch, under_submit=submitted, script=Path(_script()).name)


def given_settings(
    properties: Mapping[str, str], launch: Mapping[str, str], *, under_submit: bool, script: str
) -> GivenSettings:
    """The user's settings among the driver JVM's ``spark.*`` system ``properties``.

    Left out: the master (:func:`resolve_master` decides it), spark-submit's records of the submission,
    the application name it makes up (the
    script's file name, or ``pyspark-shell``), the progress bar it turns on for the shell PySpark
    launches, and what lakesink itself passed at ``launch`` (unless the user's value replaced it).

    spark-submit hands every setting it resolved to the driver JVM as a system property, and
    ``SparkConf()`` reads them once the JVM gateway is up (measured under spark-submit and with plain
    ``python``, where PySpark launches the JVM through spark-submit with ``PYSPARK_SUBMIT_ARGS``,
    ``SPARK_CONF_DIR``/``SPARK_HOME/conf`` and the ``MASTER`` variable): hence :func:`start_jvm` first.
    """
    made_up_names = {script, _SHELL}
    values = {
        key: value
        for key, value in properties.items()
        if key not in _LAUNCHER_KEYS
        and key != MASTER
        and not (key == APP_NAME and value in made_up_names)
        and not (key == SHOW_PROGRESS and not under_submit)
        and launch.get(key) != value
    }
    return GivenSettings(values=values, master=properties.get(MASTER, ""), under_submit=under_submit)


def resolve_master(chosen: str | None, given: GivenSettings, passed: str) -> str:
    """The master to run on, as named (:func:`~.session.with_task_attempts` is the caller's).

    Under spark-submit its master is final (the JVM was submitted for it): a different ``--master`` on
    lakesink's command line (``chosen``) is refused. Otherwise ``chosen`` wins over a master of the Spark
    configuration (a warning names both), which wins over the one lakesink ``passed`` to the JVM.

    spark-submit always sets ``spark.master`` (``local[*]`` when nobody named one). When lakesink
    launches the JVM it passes its own master as ``MASTER``, the lowest-ranked place spark-submit
    reads it from, so a master found there that differs is the user's.

    Raises:
        ConfigError: ``chosen`` differs from the master spark-submit was given.
    """
    if given.under_submit:
        if chosen is not None and chosen != given.master:
            raise ConfigError(
                f"--master {chosen} conflicts with spark-submit's master {given.master} (its --master, else "
                "spark.master from --conf or spark-defaults.conf, else local[*]): give the master to spark-submit only."
            )
        return given.master
    configured = given.master if given.master and given.master != passed else None
    if chosen is not None and configured not in (None, chosen):
        logger.warning("--master %s overrides spark.master %s of the Spark configuration", chosen, configured)
    return chosen or configured or passed


def _script() -> str:
    """The script spark-submit ran (its name is the made-up application name); '' in an embedded interpreter."""
    return sys.argv[0] if sys.argv else ""
