"""The sink's old Spark checkpoint: where it lives, and why a run removes it.

No run reads one now (the index or the consumer group says where a run starts), and an older
lakesink started on one would read again what a newer run wrote, so a run removes it
(:func:`forget_streaming_checkpoint`). See docs/sink.md, "Running it".
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
    """Delete ``location`` if it is a Spark streaming checkpoint; True when something was deleted.

    A checkpoint an older query left at ``--checkpoint`` is behind once a run has committed: an older
    lakesink started on it would read again what the newer one wrote (exactly-once: wasted reading;
    at-least-once: the records written again). So a run deletes it after its first commit (or,
    ``--once``, at its end when it had nothing to write). Only a directory that holds a Spark
    streaming checkpoint (its ``metadata`` file or its ``offsets`` directory) is deleted; paths go
    through Hadoop's FileSystem, as Spark resolves ``checkpointLocation``.
    """
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
