"""``spark-submit`` entry point of the sink and the restore: the same jobs as ``lakesink sink`` and ``restore``.

    spark-submit --master spark://host:7077 --conf spark.pyspark.python=/opt/venv/bin/python \
        application/spark_submit.py sink --config FILE [--once]
    spark-submit --master spark://host:7077 … application/spark_submit.py restore --config FILE [--once]

Arguments are those of the ``lakesink`` command line (a missing command means ``sink``). Everything
given to spark-submit wins: its master (a different ``--master`` after the command is refused),
its ``--conf`` and ``spark-defaults.conf``; lakesink's Spark defaults fill only the settings nobody
made (docs/operations.md, "spark-submit and lakesink's defaults").
"""

from __future__ import annotations

import sys

from lakesink.application.cli import main

SPARK_COMMANDS = ("sink", "restore")
"""The commands that run on Spark, and so make sense under spark-submit."""


def submit(argv: list[str]) -> int:
    """Run ``lakesink`` with ``argv``, inserting the ``sink`` command when no Spark command is named."""
    if not any(word in SPARK_COMMANDS for word in argv):
        argv = ["sink", *argv]
    return main(argv)


if __name__ == "__main__":
    sys.exit(submit(sys.argv[1:]))
