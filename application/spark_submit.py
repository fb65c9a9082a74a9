"""``spark-submit`` entry point of the sink: the same job as ``lakesink sink``.

    spark-submit --master spark://host:7077 application/spark_submit.py sink --config FILE [--once]

Arguments are those of the ``lakesink`` command line (the ``sink`` word may be left out). The
master given to spark-submit wins over ``--master``, because the session already exists.
"""

from __future__ import annotations

import sys

from lakesink.application.cli import main


def submit(argv: list[str]) -> int:
    """Run ``lakesink`` with ``argv``, inserting the ``sink`` command when it is missing."""
    if "sink" not in argv:
        argv = ["sink", *argv]
    return main(argv)


if __name__ == "__main__":
    sys.exit(submit(sys.argv[1:]))
