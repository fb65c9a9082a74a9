"""``lakesink demo`` wired: its use case gets the real services, buckets, tables and sink here.

:class:`OnceSink` is ``lakesink sink --once`` in this process, one SparkSession for every config;
Spark and the sink are imported when the session starts, so importing the demo loads no Spark.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lakesink.application.demo.ports import DemoPorts
from lakesink.domain.extras import needs_extra


def demo_ports() -> DemoPorts:
    """Kafka and moto started by the demo, the local bucket, Iceberg and Delta read back, the sink.

    Raises:
        MissingExtraError: the install lacks the ``demo`` extra.
    """
    with needs_extra("demo"):
        from lakesink.adapters.demo.readback import LocalBucket
        from lakesink.adapters.demo.services import DemoServices
        from lakesink.adapters.demo.tables import DeltaReadback, IcebergReadback
    return DemoPorts(services=DemoServices, local_bucket=LocalBucket, once_sink=OnceSink,
                     iceberg_table=IcebergReadback, delta_table=DeltaReadback)


class OnceSink:
    """``lakesink sink --once`` in this process, on one SparkSession for every config.

    The same code path as the command (:func:`~lakesink.application.sink_settings.load_settings` and
    :func:`~lakesink.application.bootstrap.sink.sink_run`), minus a Spark start per config.
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
        from lakesink.application.bootstrap.config_file import load_settings
        from lakesink.application.bootstrap.sink import sink_run

        sink_run(load_settings(config), self._spark, checkpoint_dir=str(checkpoint), once=True).run()
