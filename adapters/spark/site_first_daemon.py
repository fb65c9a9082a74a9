"""PySpark's worker daemon, importing pyspark from its installed package instead of ``pyspark.zip``.

Only with a pip-installed PySpark, whose zip sits inside the installed package (the same release),
are the zip entries moved behind it; :func:`daemon_settings` selects this module for the sessions
lakesink launches. It also imports the task modules before forking its first worker.
See docs/operations.md, "Python worker start-up".
"""

from __future__ import annotations

import gc
import importlib
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

DAEMON_MODULE = "spark.python.daemon.module"
PRELOADED = ("lakesink.adapters.spark.sink_task", "lakesink.adapters.restore.spark_job", "pyspark.worker")


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
    arguments, same behaviour).

    The task modules are :data:`PRELOADED`: adapter modules only (an adapter never imports the
    application layer, not even by name), so the restore's use case (``application.bootstrap.restore``,
    ~0.2 s) is still imported by each worker that unpickles it. polars is left to the workers that
    read Avro: it starts thread pools when imported, and a fork after that can deadlock.
    """
    site = [entry for entry in sys.path if entry.endswith("site-packages")]
    sys.path[:] = site_first(sys.path, installed_lib(site))
    preload()
    runpy.run_module("pyspark.daemon", run_name="__main__", alter_sys=True)


def preload() -> None:
    """Import :data:`PRELOADED`, then freeze every object so far out of the cyclic collector's reach.

    The imported modules (pyarrow, pandas, botocore, PySpark's worker) are a heap of about a million
    objects that live as long as the process. Unfrozen, every full collection in a worker walked them
    all: 58 ms of CPU for each task, even a task that does nothing (1.2 ms frozen, 256 tasks on
    ``local[2]``). Frozen before the first fork, they also stay shared with the daemon instead of
    being copied on the collector's first write (Python's documented use of :func:`gc.freeze`).
    """
    for module in PRELOADED:
        importlib.import_module(module)
    gc.freeze()


if __name__ == "__main__":
    main()
