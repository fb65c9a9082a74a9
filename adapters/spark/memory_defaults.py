"""Memory defaults of the JVM that lakesink launches for a ``local[N]`` master, unless the user chose.

In local mode one JVM is Spark's driver *and* its executor, and with the sink's ``rangesOnly``
source no record passes through it: it plans, schedules, and holds a few rows per batch. Spark's
and Java's defaults size it for a shared server instead: a 1 GiB maximum heap (Spark's
``spark.driver.memory``), an initial heap of 1/64 of the machine's RAM (376 MB on a 23.5 GiB
machine), G1's bookkeeping, and two JIT tiers. Measured on the sink-memory benchmark
(BENCHMARKS.md, "Memory"): 440-510 MB of JVM RSS with Java's defaults, 353-375 MB with these.

* ``-Xms32m`` and the free ratios let the heap start small and give memory back after a GC;
* ``-XX:+UseSerialGC``: one core's worth of GC work is plenty for this heap, and it has no
  per-region bookkeeping (G1's ~45 MB);
* ``-XX:TieredStopAtLevel=1``: the C1 compiler only, a smaller code cache and no C2 threads;
  the JVM's hot code here is query planning, not record processing;
* 512 MiB of maximum heap: room for planning and results, a ceiling for a leak.

Only where lakesink starts the JVM: under ``spark-submit`` (``PYSPARK_GATEWAY_PORT`` is set)
the JVM already runs with what the user submitted. A setting the user made anywhere Spark reads
it (``spark-defaults.conf``, ``PYSPARK_SUBMIT_ARGS``, ``SPARK_DRIVER_MEMORY``, or the ``conf``
given to :func:`~lakesink.adapters.spark.session.create_session`, which is applied last) wins:
this module leaves that key alone.
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
