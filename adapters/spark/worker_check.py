"""One tiny job per Spark context proving its Python workers can import lakesink, before real work.

Workers run ``PYSPARK_PYTHON`` (``python3`` from the PATH when unset; spark-submit sets it from
``spark.pyspark.python``), not the driver's interpreter; without lakesink there the first task died
with ``ModuleNotFoundError`` in a JVM stack trace. :func:`check_workers` runs one one-partition task
and says in one line which interpreter and which setting picks it.
"""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from lakesink.domain.errors import ConfigError

if TYPE_CHECKING:
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

logger = logging.getLogger(__name__)

_CHECKED: weakref.WeakSet[SparkContext] = weakref.WeakSet()
"""Contexts whose workers imported lakesink (a context's interpreter is fixed when it starts)."""
MISSING = "No module named 'lakesink'"
HOW_TO = (
    "set PYSPARK_PYTHON (or spark.pyspark.python) to a Python that has lakesink installed on every "
    "machine that runs executors (docs/operations.md, \"Executors need lakesink and its dependencies\")"
)


def check_workers(session: SparkSession) -> None:
    """Run the check once per Spark context (a few tens of ms once the workers are up).

    Raises:
        ConfigError: the workers cannot import lakesink; one line naming their interpreter.
    """
    context = session.sparkContext
    if context in _CHECKED:
        return
    try:
        with _spark_log_muted(context):
            executable, error = context.parallelize([0], 1).map(_worker_python()).first()
    except Exception as failure:  # the worker could not even start: its daemon imports lakesink
        if MISSING not in str(failure):
            raise
        logger.debug("Python workers failed to start", exc_info=True)
        raise ConfigError(
            f"Spark's Python workers cannot import lakesink: they run {configured_python(context)}; {HOW_TO}."
        ) from None
    if error:
        raise ConfigError(f"Spark's Python workers cannot import lakesink ({error}): they run {executable}; {HOW_TO}.")
    _CHECKED.add(context)


def configured_python(context: SparkContext) -> str:
    """The interpreter the workers were told to run, and which setting said so."""
    if context.getConf().get("spark.pyspark.python") == context.pythonExec:
        return f"{context.pythonExec} (spark.pyspark.python)"
    if "PYSPARK_PYTHON" in os.environ:
        return f"{context.pythonExec} (PYSPARK_PYTHON)"
    return f"{context.pythonExec} (PySpark's default: no PYSPARK_PYTHON)"


@contextmanager
def _spark_log_muted(context: SparkContext) -> Iterator[None]:
    """The driver JVM's log off while the check runs: a worker that cannot start makes Spark log the failed
    task's stack trace (~50 lines from the executor and the scheduler) before the one line that says what
    to do; the exception still carries it (logged at DEBUG). Nothing else runs while a session starts."""
    log4j = context._jvm.org.apache.logging.log4j  # type: ignore[union-attr]
    level = log4j.LogManager.getRootLogger().getLevel()
    log4j.core.config.Configurator.setRootLevel(log4j.Level.OFF)
    try:
        yield
    finally:
        log4j.core.config.Configurator.setRootLevel(level)


def _worker_python() -> Callable[[object], tuple[str, str]]:
    """The task: defined inside a function so it is shipped by value, not imported from lakesink by name
    (which would fail in exactly the worker it is meant to diagnose)."""

    def probe(_: object) -> tuple[str, str]:
        import importlib
        import sys

        try:
            importlib.import_module("lakesink.adapters")
        except ImportError as error:
            return sys.executable, str(error)
        return sys.executable, ""

    return probe
