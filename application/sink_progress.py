"""The sink's progress lines: one per committed batch, and a summary when the run ends.

Another adapter of the run's metrics port (:class:`~.sink_metrics.SinkMetrics`), beside Prometheus:
the use case knows nothing of terminals. The composition root (:func:`~.bootstrap.sink.run_sink`)
hands it the CLI's :data:`~lakesink.domain.progress.ProgressOutput` (stderr, nothing under ``--quiet``)
and shows the summary however the run ends. The lines' formats are stable, to be grepped:
see docs/operations.md, "What a run prints".
"""

from __future__ import annotations

import time
from collections.abc import Callable

from lakesink.domain.ports import CommittedBatch
from lakesink.domain.progress import ProgressOutput, human_size, rate


def batch_line(report: CommittedBatch) -> str:
    """One committed batch, as the progress line shows it."""
    return (
        f"batch {report.batch_id}: {_written(report.records, len(report.files), report.bytes)}"
        f"{_lag(report.lag)}, {report.duration_ms / 1000:.1f} s"
    )


class SinkProgress:
    """Shows a line per committed batch and keeps the run's totals for :meth:`finish`'s summary."""

    def __init__(self, show: ProgressOutput, now: Callable[[], float] = time.monotonic) -> None:
        self._show = show
        self._now = now
        self._started = now()
        self.batches = 0
        self.records = 0
        self.objects = 0
        self.bytes = 0
        self.lag: int | None = None
        """The last batch's lag, when the broker told it."""

    def batch_committed(self, report: CommittedBatch) -> None:
        self.batches += 1
        self.records += report.records
        self.objects += len(report.files)
        self.bytes += report.bytes
        if report.lag is not None:
            self.lag = report.lag
        self._show(batch_line(report))

    def batch_failed(self, kind: str) -> None:
        del kind  # the failure itself is logged (and, when it ends the run, printed by the CLI)

    def waited(self) -> None:
        pass  # the wait is logged at WARNING

    def summary(self) -> str:
        """The run so far: batches, what they wrote, how long it took and how fast, the last lag."""
        seconds = self._now() - self._started
        return (
            f"sink summary: {self.batches:,} batches, {_written(self.records, self.objects, self.bytes)} "
            f"in {seconds:.1f} s ({rate(self.records, seconds)} records/s){_lag(self.lag)}"
        )

    def finish(self) -> None:
        """Show the summary (the run ended, whatever ended it)."""
        self._show(self.summary())


def _written(records: int, objects: int, size: int) -> str:
    return f"{records:,} records -> {objects:,} objects ({human_size(size)})"


def _lag(lag: int | None) -> str:
    return "" if lag is None else f", lag {lag:,}"
