"""``lakesink sink`` wired: a wrong setting or an unreachable service is one line before the JVM starts.

The config is validated and the store and Kafka checked first (:mod:`.preflight`); then the JVM
starts while the data path (:mod:`.sink`, Spark and Arrow) is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.adapters.storage import backend_extra
from lakesink.application.bootstrap.config_file import load_settings
from lakesink.application.bootstrap.spark_command import SparkCommand
from lakesink.application.sink_settings import sink_app_name
from lakesink.domain.extras import needs_extra
from lakesink.domain.progress import ProgressOutput, silent


@dataclass(frozen=True, slots=True)
class SinkCommand(SparkCommand):
    """``lakesink sink``'s flags, ``--checkpoint DIR`` too; its default master is ``local[*]``."""

    checkpoint: str | None = None


def run_sink_command(command: SinkCommand, progress: ProgressOutput = silent) -> None:
    """Validate, check the environment, start Spark and run the sink until it ends (``once``) or is stopped.

    Raises:
        ConfigError: an invalid config, a missing bucket, refused credentials.
        MissingExtraError: the install lacks the store's extra.
    """
    settings = load_settings(command.config_path)
    with needs_extra(backend_extra(settings.backend)):  # a core install: the store's extra, in one line
        from lakesink.adapters.spark.session_launch import SessionLaunch
        from lakesink.application.bootstrap.preflight import check_sink_environment

        check_sink_environment(settings)  # one line naming the setting, before Spark prints anything
        with SessionLaunch(
            command.master, sink_app_name(settings), dict(command.spark_conf), default_master="local[*]"
        ) as launch:
            from lakesink.application.bootstrap.sink import run_sink

            run_sink(
                settings,
                launch,
                once=command.once,
                checkpoint=command.checkpoint,
                metrics_port=command.metrics_port,
                metrics_host=command.metrics_host,
                progress=progress,
            )
