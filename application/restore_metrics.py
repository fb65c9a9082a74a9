"""What a restore run tells its metrics: the port :func:`~.restore.driver.run_restore` reports to, once per poll.

As :mod:`.sink_metrics` for the sink: the use case knows nothing of Prometheus; the command picks
the adapter (:mod:`lakesink.adapters.metrics.restore_prometheus` with ``--metrics-port``), else
:data:`NO_RESTORE_METRICS`. Calls happen on the driver, per poll and per origin, never per record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from lakesink.domain.restore.results import OriginResult


class RestoreMetrics(Protocol):
    """Where a restore run reports its numbers."""

    def poll_started(self, objects: int) -> None:
        """A poll found ``objects`` objects to restore: the restore's backlog until they are done."""

    def poll_finished(self, results: Sequence[OriginResult]) -> None:
        """A poll restored its origins: their objects, records, bytes and transactions."""

    def failed(self, kind: str) -> None:
        """The run failed with an error of ``kind`` (:func:`~.sink_metrics.error_kind`)."""


class _NoRestoreMetrics:
    """Reports nowhere: a restore without a metrics port."""

    def poll_started(self, objects: int) -> None:
        del objects

    def poll_finished(self, results: Sequence[OriginResult]) -> None:
        del results

    def failed(self, kind: str) -> None:
        del kind


NO_RESTORE_METRICS: RestoreMetrics = _NoRestoreMetrics()
