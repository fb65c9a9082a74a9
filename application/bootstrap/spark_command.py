"""The flags every command that starts Spark takes (``lakesink sink``, ``lakesink restore``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class SparkCommand:
    """``--config FILE [--once] [--master URL] [--conf KEY=VALUE ...] [--metrics-port N [--metrics-host H]]``.

    ``master`` None: the Spark configuration's, else the command's default master.
    """

    config_path: str
    once: bool = False
    master: str | None = None
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    metrics_port: int | None = None
    metrics_host: str | None = None
