"""PySpark's worker daemon, importing pyspark from its installed package instead of ``pyspark.zip``.

Spark puts ``$SPARK_HOME/python/lib/pyspark.zip`` first on every Python worker's path, and
zipimport compiles each module it loads from a zip on every process start (it keeps no bytecode
cache): importing the worker modules took ~0.5 s a process from the zip against ~0.3 s from the
installed package with its cached bytecode (measured here), paid by every data-source planner and
task worker, much of it before a sink's first batch.

With a pip-installed PySpark the zip sits inside the installed package
(``<site-packages>/pyspark/python/lib/pyspark.zip``), so both are the same release; only then are
the zip entries moved behind the installed package. :func:`daemon_settings` selects this module
for the Spark sessions lakesink launches itself.

The daemon also imports the sink's and the restore's task modules (:data:`PRELOADED`) before it
forks its first worker, so every worker starts with them: importing the sink task's module tree
took 0.74 s of CPU a worker (pyarrow, pandas through pyarrow, the formats), and a `--once`
backfill forks about five workers. Only adapter modules are named (an adapter never imports the
application layer, not even by name): the restore's use case (``application.bootstrap.restore``, ~0.2 s)
is still imported by each worker that unpickles it. polars is left to the workers that read Avro: it
starts thread pools when imported, and a fork after that can deadlock (its own warning).
"""

from __future__ import annotations

import importlib
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

DAEMON_MODULE = "spark.python.daemon.module"
PRELOADED = ("lakesink.adapters.spark.sink_task", "lakesink.adapters.restore.spark_job")


def installed_lib(site_packages: Sequence[str]) -> Path | None:
    """``<site>/pyspark/python/lib`` of the pyspark installed on ``site_packages``, if any."""
    for entry in site_packages:
        lib = Path(entry) / "pyspark" / "python" / "lib"
        if (lib / "pyspark.zip").is_file():
            return lib
    return None


def site_first(path: Sequence[str], lib: Path | None) -> list[str]:
    """``path`` with the zips of ``lib`` (the installed pyspark's own) moved to the end."""
    if lib is None:
        return list(path)
    bundled = [entry for entry in path if Path(entry).parent == lib and entry.endswith(".zip")]
    return [entry for entry in path if entry not in bundled] + bundled


def daemon_settings() -> dict[str, str]:
    """The Spark setting that starts Python workers through this module."""
    return {DAEMON_MODULE: __name__}


def main() -> None:
    """Reorder ``sys.path``, import the task modules, then run PySpark's own daemon (same
    arguments, same behaviour)."""
    site = [entry for entry in sys.path if entry.endswith("site-packages")]
    sys.path[:] = site_first(sys.path, installed_lib(site))
    for module in PRELOADED:
        importlib.import_module(module)
    runpy.run_module("pyspark.daemon", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
