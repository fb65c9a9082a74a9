"""The sink's Spark checkpoint: where it lives, and why a ``--once`` run removes it.

A continuous sink runs a streaming query whose checkpoint (offset log, commit log) decides
where the query resumes; the store's index (exactly-once) or the consumer group
(at-least-once) stays the source of truth. A ``--once`` run plans its batches on the driver
and reads neither. Once it has committed, an older checkpoint is behind the truth: a later
streaming run would resume from it and read again what the once run wrote (exactly-once: the
executors skip those records, wasted reading; at-least-once: the records are written again).
So a once run deletes the checkpoint after its first commit (or at its end when it had nothing
to write): the next streaming run then starts from the index or the group, as after a lost
checkpoint. Only a directory that holds a Spark streaming checkpoint (its ``metadata`` file or
its ``offsets`` directory) is deleted; anything else at that location is left alone.

Paths go through Hadoop's FileSystem, as Spark resolves ``checkpointLocation`` (a plain path
is on the cluster's default file system).
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from pyspark.sql import SparkSession

from lakesink.domain.config.connector import ConnectorSettings

logger = logging.getLogger(__name__)

STREAMING_MARKERS = ("metadata", "offsets")
"""What every Spark streaming checkpoint holds from its query's start."""


def default_checkpoint(settings: ConnectorSettings) -> str:
    """``<local tmp>/lakesink-checkpoints/<name>``."""
    root = settings.local_tmp_directory or tempfile.gettempdir()
    return str(Path(root) / "lakesink-checkpoints" / settings.name)


def forget_streaming_checkpoint(spark: SparkSession, location: str) -> bool:
    """Delete ``location`` if it is a Spark streaming checkpoint; True when something was deleted."""
    context = spark.sparkContext
    hadoop_path = context._jvm.org.apache.hadoop.fs.Path  # type: ignore[union-attr]
    path = hadoop_path(location)
    fs = path.getFileSystem(context._jsc.hadoopConfiguration())  # type: ignore[union-attr]
    if not any(fs.exists(hadoop_path(path, marker)) for marker in STREAMING_MARKERS):
        return False
    fs.delete(path, True)
    logger.info(
        "Removed the streaming checkpoint %s: this run committed from the index or consumer group, "
        "so the next streaming run starts from there", location,
    )
    return True
