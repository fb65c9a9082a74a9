"""What a sink run tells its metrics: the port :class:`~.sink_run.SinkRun` reports to, once per batch.

The use case knows nothing of Prometheus: on the driver, never per record, it calls a
:class:`SinkMetrics` after each committed batch, after each failed attempt and before each wait
on a store. The composition root (:mod:`.bootstrap.sink`) picks the adapter; without a metrics
port the run reports to :data:`NO_METRICS`. See docs/operations.md, "Metrics".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.errors import LakesinkError
from lakesink.domain.ports import CommittedBatch

OTHER_ERROR = "Other"
"""The kind of a batch failure that is not a lakesink error (a bug, a Spark or Py4J failure)."""


class SinkMetrics(Protocol):
    """Where a sink run reports its numbers."""

    def batch_committed(self, report: CommittedBatch) -> None:
        """A batch was committed: its records, bytes, files, offsets, lag, durations and requests."""

    def batch_failed(self, kind: str) -> None:
        """An attempt of a batch failed with an error of ``kind`` (:func:`error_kind`); it may be run again."""

    def waited(self) -> None:
        """The run waits out a store's transient failure before running a step again."""


class _NoMetrics:
    """Reports nowhere: a run without a metrics port."""

    def batch_committed(self, report: CommittedBatch) -> None:
        del report

    def batch_failed(self, kind: str) -> None:
        del kind

    def waited(self) -> None:
        pass


NO_METRICS: SinkMetrics = _NoMetrics()


def error_kind(error: BaseException) -> str:
    """The ``kind`` label of a failure: the lakesink error class name (``CommitConflictError``,
    ``RecordError``, ``StorageError``...), else :data:`OTHER_ERROR` (a bounded set of label values)."""
    return type(error).__name__ if isinstance(error, LakesinkError) else OTHER_ERROR


def per_topic(results: Iterable[RangeResult]) -> tuple[Mapping[str, int], Mapping[str, int]]:
    """Records and bytes written per topic read (a range's topic; a router transform's renamed
    topics count under the topic read, as the index does)."""
    records: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for result in results:
        records[result.topic] = records.get(result.topic, 0) + result.records
        sizes[result.topic] = sizes.get(result.topic, 0) + result.bytes
    return records, sizes


class EveryMetrics:
    """Reports to each of several metrics in turn (Prometheus and the progress lines)."""

    def __init__(self, *each: SinkMetrics) -> None:
        self._each = each

    def batch_committed(self, report: CommittedBatch) -> None:
        for metrics in self._each:
            metrics.batch_committed(report)

    def batch_failed(self, kind: str) -> None:
        for metrics in self._each:
            metrics.batch_failed(kind)

    def waited(self) -> None:
        for metrics in self._each:
            metrics.waited()
