"""A session lakesink launches: the user's Spark settings win over lakesink's defaults, and Python workers
that cannot import lakesink stop it with one line naming their interpreter.

One child process, because the settings are read when its JVM starts: ``spark-defaults.conf`` names a
master and a shuffle width, ``PYSPARK_SUBMIT_ARGS`` a parallelism, and the ``conf`` lakesink's ``--conf``
passes a time zone; lakesink's own defaults fill only what none of them set. A second session in the same
JVM is given lakesink's ``--master``, which wins over ``spark-defaults.conf``'s. A third points its workers
at this venv's base interpreter (same Python, no lakesink), as an operator whose venv is not active on the
executors would: it must fail before any work with lakesink's one line, and Spark's own log of the failed
task must not bury it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

BASE_PYTHON = sys._base_executable  # the interpreter this venv was made from
SCRIPT = """
import json, sys
from lakesink.adapters.spark.session import create_session
from lakesink.domain.errors import ConfigError
for master in (None, "local[1]"):
    spark = create_session(master, "settings-check", {"spark.sql.session.timeZone": "Europe/Paris"}, ui_enabled=False)
    context = spark.sparkContext
    print("SETTINGS " + json.dumps({
        "master": context.master, "parallelism": context.defaultParallelism,
        "shuffle": spark.conf.get("spark.sql.shuffle.partitions"), "zone": spark.conf.get("spark.sql.session.timeZone"),
        "progress": spark.conf.get("spark.ui.showConsoleProgress"), "name": context.appName}))
    spark.stop()
print("WORKERS", flush=True)
print("WORKERS", file=sys.stderr, flush=True)
try:
    create_session("local[1,1]", conf={"spark.pyspark.python": sys.argv[1]}, ui_enabled=False)
except ConfigError as error:
    print(f"ERROR {error}")
"""
EXPECTED = {
    "parallelism": 7,  # PYSPARK_SUBMIT_ARGS, not lakesink's 4
    "shuffle": "9",  # spark-defaults.conf, not lakesink's 4
    "zone": "Europe/Paris",  # the conf lakesink's --conf passes, not lakesink's UTC
    "progress": "false",  # lakesink's default: PySpark's shell launcher turned it on
    "name": "settings-check",  # lakesink's: nobody named the application
}


def test_the_users_settings_win_and_workers_without_lakesink_stop_the_session_with_one_line(tmp_path: Path) -> None:
    if subprocess.run([BASE_PYTHON, "-c", "import lakesink"], capture_output=True).returncode == 0:
        pytest.skip(f"{BASE_PYTHON} has lakesink installed")
    (tmp_path / "spark-defaults.conf").write_text("spark.master local[3]\nspark.sql.shuffle.partitions 9\n")
    environment = {**os.environ, "SPARK_CONF_DIR": str(tmp_path), "SPARK_LOCAL_IP": "127.0.0.1",
                   "PYSPARK_SUBMIT_ARGS": "--conf spark.default.parallelism=7 pyspark-shell"}

    result = subprocess.run([sys.executable, "-c", SCRIPT, BASE_PYTHON], capture_output=True, text=True,
                            timeout=120, env=environment)

    assert result.returncode == 0, result.stderr[-3000:]
    settings, _, checked = result.stdout.partition("WORKERS\n")
    sessions = [json.loads(line.removeprefix("SETTINGS ")) for line in settings.splitlines() if line.startswith("SETTINGS ")]
    assert sessions == [
        {"master": "local[3]", **EXPECTED},  # spark-defaults.conf's, not lakesink's default local[2,4]
        {"master": "local[1,4]", **EXPECTED},  # lakesink's --master wins over spark-defaults.conf's
    ]
    assert checked.splitlines() == [
        f"ERROR Spark's Python workers cannot import lakesink: they run {BASE_PYTHON} (spark.pyspark.python); "
        "set PYSPARK_PYTHON (or spark.pyspark.python) to a Python that has lakesink installed on every machine that "
        "runs executors (docs/operations.md, \"Executors need lakesink and its dependencies\")."
    ]
    # lakesink's warning about the master (spark-defaults.conf still names one) and nothing from Spark
    assert result.stderr.partition("WORKERS\n")[2].splitlines() == [
        "--master local[1,1] overrides spark.master local[3] of the Spark configuration"]
