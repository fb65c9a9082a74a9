"""``spark-submit`` entry point of the sink and the restore: the same jobs as ``lakesink sink`` and ``restore``.

    spark-submit --master spark://host:7077 application/spark_submit.py sink --config FILE [--once]

Arguments are those of the ``lakesink`` command line (a missing command means ``sink``); what is
given to spark-submit wins over lakesink's Spark defaults.
See docs/operations.md, "Submitting" and "spark-submit and lakesink's defaults".
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
