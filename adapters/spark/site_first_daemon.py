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
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

DAEMON_MODULE = "spark.python.daemon.module"


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
    """Reorder ``sys.path``, then run PySpark's own daemon (same arguments, same behaviour)."""
    site = [entry for entry in sys.path if entry.endswith("site-packages")]
    sys.path[:] = site_first(sys.path, installed_lib(site))
    runpy.run_module("pyspark.daemon", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
