"""One child of :func:`~lakesink.adapters.spark.class_archive.build`: a JVM that trains or probes the archive.

``python -m lakesink.adapters.spark.class_archive_run train|probe PATH`` starts a session through
:func:`~lakesink.adapters.spark.session.create_session`, which itself looks archives up in
:mod:`.class_archive`; living apart keeps the two modules free of an import cycle.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from lakesink.adapters.spark.class_archive import QUIET, TRAIN_TIMEOUT_S
from lakesink.adapters.spark.memory_defaults import DRIVER_JAVA_OPTIONS, LOCAL_JVM_DEFAULTS


def _run_jvm(role: str, archive: Path) -> dict[str, float]:
    """One JVM: start a session with ``archive`` written at exit (train) or mapped (probe), run the
    workload, stop it and wait until the JVM has exited (which is when it writes the archive)."""
    from pyspark import SparkContext

    from lakesink.adapters.spark.session import create_session

    flag = "ArchiveClassesAtExit" if role == "train" else "SharedArchiveFile"
    options = f"{LOCAL_JVM_DEFAULTS[DRIVER_JAVA_OPTIONS]} -XX:{flag}={archive} {QUIET}"
    started = time.perf_counter()
    spark = create_session("local[2]", app_name=f"lakesink-jvm-archive-{role}", ui_enabled=False,
                           conf={DRIVER_JAVA_OPTIONS: options})
    seconds = {"session": time.perf_counter() - started}
    started = time.perf_counter()
    _workload(spark)
    seconds["first_job"] = time.perf_counter() - started
    gateway = SparkContext._gateway
    java_pid = gateway.proc.pid
    if role == "probe":
        seconds["mapped"] = float(str(archive) in Path(f"/proc/{java_pid}/maps").read_text())
    spark.stop()
    gateway.proc.stdin.close()  # the JVM exits when its stdin closes, and archives on the way out
    gateway.proc.wait(timeout=TRAIN_TIMEOUT_S)
    return seconds


def _workload(spark: object) -> None:
    """What a sink run makes the JVM load: range ids through ``mapPartitions`` (the command's write
    tasks), a ``mapInArrow`` (a library DataFrame's), and a streaming query with ``foreachBatch``
    (a library stream)."""
    from pyspark.sql import SparkSession

    assert isinstance(spark, SparkSession)
    spark.sparkContext.parallelize(range(4), 4).mapPartitions(_identity).collect()
    spark.range(0, 4, 1, 4).mapInArrow(_identity, "id long").collect()
    stream = spark.readStream.format("rate").option("rowsPerSecond", 10).load()
    query = stream.writeStream.foreachBatch(lambda batch, _id: batch.count()).trigger(availableNow=True).start()
    query.awaitTermination(60)
    query.stop()


def _identity(batches: object) -> object:
    yield from batches  # type: ignore[misc]


def main(argv: list[str]) -> int:
    """``python -m lakesink.adapters.spark.class_archive_run train|probe PATH``."""
    role, archive = argv
    print(json.dumps(_run_jvm(role, Path(archive))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
