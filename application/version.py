"""What ``lakesink --version`` prints: read from the installed distributions' metadata.

Nothing is imported to find a version (PySpark's import alone takes a second), so the flag answers
at once, also in a core install without the data path, where it says which extra brings Spark.
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version


def version_line() -> str:
    """``lakesink <version> (Python <x.y.z>, PySpark <version>)``; PySpark is named as missing in
    a core install, since it decides which commands run."""
    pyspark = _installed("pyspark")
    spark = f"PySpark {pyspark}" if pyspark else "no PySpark: pip install 'lakesink[spark]'"
    return f"lakesink {_installed('lakesink') or 'unknown'} (Python {platform.python_version()}, {spark})"


def _installed(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None
