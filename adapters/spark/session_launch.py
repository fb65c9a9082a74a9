"""A SparkSession started on a thread, so the driver's own start-up runs while the JVM starts.

Start it only once the configuration is valid: a config error must not cost a JVM. Leaving the
``with`` block always stops the session; Ctrl-C raises KeyboardInterrupt in the caller (PySpark's
SIGINT handler needs the main thread), and that stop cancels the jobs.
See docs/operations.md, "Start-up and stop of a ``--once`` run".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING

from lakesink.domain.extras import needs_extra

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

logger = logging.getLogger(__name__)

THREAD_NAME = "lakesink-spark-launch"
SessionFactory = Callable[[], "SparkSession"]


def _create(
    master: str | None, app_name: str, conf: Mapping[str, str] | None, ui_enabled: bool, default_master: str
) -> SparkSession:
    """Imports pyspark (~0.1 s) on the launching thread too, not the caller's."""
    with needs_extra("spark"):
        from lakesink.adapters.spark.session import create_session

    return create_session(master, app_name, conf, ui_enabled=ui_enabled, default_master=default_master)


class SessionLaunch:
    """:func:`.session.create_session` running on a thread from construction on.

    ``factory`` replaces the session's creation (tests pass a fake); by default it is
    ``create_session(master, app_name, conf, ui_enabled=ui_enabled, default_master=default_master)``.
    """

    def __init__(
        self,
        master: str | None = None,
        app_name: str = "lakesink",
        conf: Mapping[str, str] | None = None,
        *,
        ui_enabled: bool = True,
        default_master: str = "local[2]",
        factory: SessionFactory | None = None,
    ) -> None:
        self._factory = factory or (lambda: _create(master, app_name, conf, ui_enabled, default_master))
        self._session: SparkSession | None = None
        self._error: BaseException | None = None
        self._stopped = False
        self._taken = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._launch, name=THREAD_NAME, daemon=True)
        self._thread.start()

    def _launch(self) -> None:
        try:
            session = self._factory()
        except BaseException as error:  # handed to the caller by session()
            self._error = error
            return
        with self._lock:
            self._session = session
            abandoned = self._stopped
        if abandoned:  # stopped before anyone took it (see stop())
            session.stop()

    def session(self) -> SparkSession:
        """The session, once started (waits for the launch).

        Raises:
            RuntimeError: the launch was stopped.
            Exception: whatever creating the session raised (PySpark's error when the JVM failed).
        """
        self._taken = True
        self._thread.join()
        if self._error is not None:
            raise self._error
        if self._stopped or self._session is None:
            raise RuntimeError("this Spark session launch was stopped")
        return self._session

    def stop(self) -> None:
        """Stop the session; idempotent.

        Once :meth:`session` was asked for, this waits for the launch. A launch nobody took a session
        from (a run that found nothing to write) is not waited for: the launching thread stops the
        session when it is up, and a process that exits first takes the JVM with it (a PySpark
        gateway JVM exits when its stdin, a pipe from this process, closes).
        """
        if self._taken:
            self._thread.join()
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            session = self._session
        if session is not None:
            session.stop()

    def __enter__(self) -> SessionLaunch:
        return self

    def __exit__(
        self,
        _kind: type[BaseException] | None,
        error: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        if error is not None and self._error is not None and self._error is not error:
            logger.debug("The Spark session did not start either", exc_info=self._error)
        self.stop()
