"""Memory defaults of the JVM that lakesink launches for a ``local[N]`` master, unless the user chose.

In local mode the one JVM plans and schedules; no record passes through it, so Spark's and
Java's server-sized defaults waste memory (440-510 MB of RSS against 353-375 MB with these,
BENCHMARKS.md, "Memory"). Not under ``spark-submit``, and a key the user set anywhere Spark reads
it wins. See docs/operations.md, "Defaults lakesink sets, and how to override them".
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DRIVER_MEMORY = "spark.driver.memory"
DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"
LOCAL_JVM_DEFAULTS = {
    DRIVER_MEMORY: "512m",
    DRIVER_JAVA_OPTIONS: "-Xms32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 -XX:+UseSerialGC "
    "-XX:TieredStopAtLevel=1",
}
_SUBMIT_FLAGS = {DRIVER_MEMORY: "--driver-memory", DRIVER_JAVA_OPTIONS: "--driver-java-options"}
_ENVIRONMENT = {DRIVER_MEMORY: "SPARK_DRIVER_MEMORY"}


def local_jvm_defaults(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The :data:`LOCAL_JVM_DEFAULTS` that apply: none under spark-submit, none the user set."""
    environ = os.environ if environ is None else environ
    if "PYSPARK_GATEWAY_PORT" in environ:
        return {}
    from_file = _spark_defaults_keys(environ)
    submit_args = environ.get("PYSPARK_SUBMIT_ARGS", "")
    return {
        key: value
        for key, value in LOCAL_JVM_DEFAULTS.items()
        if key not in from_file
        and key not in submit_args
        and _SUBMIT_FLAGS[key] not in submit_args
        and not environ.get(_ENVIRONMENT.get(key, ""))
    }


def _spark_defaults_keys(environ: Mapping[str, str]) -> set[str]:
    """Keys set in the ``spark-defaults.conf`` Spark would read (SPARK_CONF_DIR, else SPARK_HOME/conf)."""
    directory = environ.get("SPARK_CONF_DIR") or (
        str(Path(environ["SPARK_HOME"]) / "conf") if environ.get("SPARK_HOME") else None
    )
    if directory is None:
        return set()
    try:
        lines = (Path(directory) / "spark-defaults.conf").read_text().splitlines()
    except OSError:
        return set()
    return {line.split(None, 1)[0].split("=", 1)[0] for line in lines if line.strip() and not line.lstrip().startswith("#")}
