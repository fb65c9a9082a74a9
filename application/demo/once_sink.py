"""The sink side of the demo: ``lakesink sink --once`` in this process, one SparkSession for every config.

The CLI hands :class:`OnceSink` to :func:`~lakesink.application.demo.run.run_demo` as its
:class:`~lakesink.application.demo.ports.OnceRunner`. It composes the sink use case with the
Spark session adapter, both imported when the session starts, so importing the demo package
loads no Spark.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class OnceSink:
    """``lakesink sink --once`` in this process, on one SparkSession for every config.

    The same code path as the command (:func:`~lakesink.application.sink_settings.load_settings` and
    :func:`~lakesink.application.compose.sink_run`), minus a Spark start per config.
    """

    def __init__(self, master: str) -> None:
        self._master = master
        self._spark: Any = None

    def __enter__(self) -> OnceSink:
        from lakesink.adapters.spark.session import create_session

        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # executors and block managers bind loopback too
        self._spark = create_session(self._master, app_name="lakesink-demo", ui_enabled=False)
        self._spark.sparkContext.setLogLevel("ERROR")  # the demo's own output is the point
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self._spark.stop()

    def run(self, config: Path, checkpoint: Path) -> None:
        from lakesink.application.compose import sink_run
        from lakesink.application.sink_settings import load_settings

        sink_run(load_settings(config), self._spark, checkpoint_dir=str(checkpoint), once=True).run()
