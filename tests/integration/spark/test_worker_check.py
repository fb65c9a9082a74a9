"""A session whose Python workers cannot import lakesink stops before any work, with one line naming their interpreter.

The workers are pointed at this venv's base interpreter (same Python, no lakesink), as an operator
whose venv is not active on the executors would; the command must exit 2 with one ``lakesink: error``
line instead of failing inside the first task with a JVM stack trace, and Spark's own log of the failed
task must not bury that line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import unique_name

pytestmark = pytest.mark.integration

BASE_PYTHON = sys._base_executable  # the interpreter this venv was made from


def test_workers_without_lakesink_stop_the_restore_with_one_line_naming_their_interpreter(kafka, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    if subprocess.run([BASE_PYTHON, "-c", "import lakesink"], capture_output=True).returncode == 0:
        pytest.skip(f"{BASE_PYTHON} has lakesink installed")
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    config = tmp_path / "restore.properties"
    config.write_text(f"name={unique_name('worker-check')}\nconnect.local.root={tmp_path / 'store'}\n"
                      f"connect.local.kcql=INSERT INTO {unique_name('never')} SELECT * FROM bkt:x STOREAS `TEXT`\n"
                      f"bootstrap.servers={kafka.bootstrap_servers}\n")

    result = subprocess.run(
        [sys.executable, "-m", "lakesink.application.cli", "restore", "--config", str(config), "--once",
         "--master", "local[1,1]", "--conf", f"spark.pyspark.python={BASE_PYTHON}"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"},
    )

    assert result.returncode == 2, result.stderr[-3000:]
    # Only the JVM's own notice besides lakesink's line: Spark's log of the failed task is held back.
    lines = [line for line in result.stderr.splitlines() if not line.startswith("WARNING: Using incubator modules")]
    assert lines == [
        f"lakesink: error: Spark's Python workers cannot import lakesink: they run {BASE_PYTHON} (spark.pyspark.python); "
        "set PYSPARK_PYTHON (or spark.pyspark.python) to a Python that has lakesink installed on every machine that "
        "runs executors (docs/operations.md, \"Executors need lakesink and its dependencies\")."
    ]
