"""With plain ``python`` (lakesink launches the JVM) the user's Spark settings win over lakesink's defaults.

One child process, because the settings are read when its JVM starts: ``spark-defaults.conf`` names a
master and a shuffle width, ``PYSPARK_SUBMIT_ARGS`` a parallelism, and the ``conf`` lakesink's ``--conf``
passes a time zone; lakesink's own defaults fill only what none of them set. A second session in the
same JVM is given lakesink's ``--master``, which wins over ``spark-defaults.conf``'s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = """
import json
from lakesink.adapters.spark.session import create_session
for master in (None, "local[1]"):
    spark = create_session(master, "settings-check", {"spark.sql.session.timeZone": "Europe/Paris"}, ui_enabled=False)
    context = spark.sparkContext
    print("SETTINGS " + json.dumps({
        "master": context.master, "parallelism": context.defaultParallelism,
        "shuffle": spark.conf.get("spark.sql.shuffle.partitions"), "zone": spark.conf.get("spark.sql.session.timeZone"),
        "progress": spark.conf.get("spark.ui.showConsoleProgress"), "name": context.appName}))
    spark.stop()
"""
EXPECTED = {
    "parallelism": 7,  # PYSPARK_SUBMIT_ARGS, not lakesink's 4
    "shuffle": "9",  # spark-defaults.conf, not lakesink's 4
    "zone": "Europe/Paris",  # the conf lakesink's --conf passes, not lakesink's UTC
    "progress": "false",  # lakesink's default: PySpark's shell launcher turned it on
    "name": "settings-check",  # lakesink's: nobody named the application
}


def test_spark_defaults_conf_submit_args_and_conf_win_and_lakesinks_defaults_fill_the_rest(tmp_path: Path) -> None:
    (tmp_path / "spark-defaults.conf").write_text("spark.master local[3]\nspark.sql.shuffle.partitions 9\n")
    environment = {**os.environ, "SPARK_CONF_DIR": str(tmp_path), "SPARK_LOCAL_IP": "127.0.0.1",
                   "PYSPARK_SUBMIT_ARGS": "--conf spark.default.parallelism=7 pyspark-shell"}

    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120,
                            env=environment)

    sessions = [json.loads(line.removeprefix("SETTINGS ")) for line in result.stdout.splitlines()
                if line.startswith("SETTINGS ")]
    assert result.returncode == 0, result.stderr[-3000:]
    assert sessions == [
        {"master": "local[3]", **EXPECTED},  # spark-defaults.conf's, not lakesink's default local[2,4]
        {"master": "local[1,4]", **EXPECTED},  # lakesink's --master wins over spark-defaults.conf's
    ]
