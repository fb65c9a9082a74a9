"""A SparkSession started on a thread, so the driver's own start-up runs while the JVM starts.

Why: a local ``lakesink sink --once`` spends about 3 s in :func:`.session.create_session`, most of
it waiting for another process (``spark-submit`` launching the JVM, the JVM loading Spark, the
gateway answering), while the driver's Python start-up (pyarrow, pandas, confluent-kafka, the sink's
modules: ~0.5 s) waited its turn. :class:`SessionLaunch` begins the session and returns at once; the
caller imports and builds what it needs, then takes :meth:`SessionLaunch.session`.

Rules that keep it honest:

* Start it only once the configuration is known to be valid: a config error must not cost (or
  leave behind) a JVM.
* :meth:`SessionLaunch.session` raises PySpark's own error when the JVM could not start.
* Leaving the ``with`` block always stops the session: a failure of the caller's work stops the
  JVM too and is what propagates. It waits for a launch still under way only when the caller
  asked for the session; one nobody used is stopped by its own thread (``--once`` on an empty
  topic exits without waiting for a JVM: ~6 s → see CHANGELOG).
* PySpark installs its SIGINT handler (cancel the running jobs) only when the SparkContext is
  made on the main thread; here Ctrl-C raises KeyboardInterrupt in the caller instead, and the
  ``with`` block's stop cancels the jobs.
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
