"""The restore's metrics in Prometheus form (``lakesink restore --metrics-port N``).

The Prometheus adapter of :class:`~lakesink.application.restore_metrics.RestoreMetrics`: counters of
what the restore produced and committed, and the backlog of the poll in progress. Names follow the
sink's (``lakesink_...``, a ``connector`` label: the restore's name); docs/operations.md lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prometheus_client import Counter, Gauge

from lakesink.adapters.metrics.endpoint import MetricsEndpoint
from lakesink.domain.restore.results import OriginResult


class PrometheusRestoreMetrics(MetricsEndpoint):
    """One restore run's metrics; ``hide`` masks a label value a config provider supplied."""

    def __init__(self, connector: str, *, hide: Callable[[str], str] = str) -> None:
        super().__init__(hide(connector))
        registry, by_connector = self.registry, ("connector",)
        self._objects = Counter(
            "lakesink_restore_objects", "Objects restored (their records produced and committed).", by_connector,
            registry=registry,
        )
        self._skipped = Counter(
            "lakesink_restore_objects_skipped", "Objects skipped as unreadable (errors tolerated).", by_connector,
            registry=registry,
        )
        self._records = Counter(
            "lakesink_restore_records", "Records produced and committed.", by_connector, registry=registry
        )
        self._bytes = Counter(
            "lakesink_restore_bytes", "Bytes of the objects restored.", by_connector, registry=registry
        )
        self._transactions = Counter(
            "lakesink_restore_transactions", "Kafka transactions committed.", by_connector, registry=registry
        )
        self._polls = Counter("lakesink_restore_polls", "Listings of the buckets.", by_connector, registry=registry)
        self._failed = Counter(
            "lakesink_restore_failures",
            "Restore runs that failed, by lakesink error class (kind); Other: not a lakesink error.",
            ("connector", "kind"), registry=registry,
        )
        self._backlog = Gauge(
            "lakesink_restore_objects_pending",
            "Objects the poll in progress found to restore and has not restored yet (0 between polls).",
            by_connector, registry=registry,
        )
        for metric in (self._objects, self._skipped, self._records, self._bytes, self._transactions, self._polls,
                       self._backlog):
            metric.labels(self._connector)

    def poll_started(self, objects: int) -> None:
        """Set the backlog to the objects the poll found."""
        self._backlog.labels(self._connector).set(objects)

    def poll_finished(self, results: Sequence[OriginResult]) -> None:
        """Count what the poll's origins restored; the backlog is what they did not get through."""
        name = self._connector
        done = sum(result.objects for result in results)
        self._objects.labels(name).inc(done - sum(result.skipped_objects for result in results))
        self._skipped.labels(name).inc(sum(result.skipped_objects for result in results))
        self._records.labels(name).inc(sum(result.records for result in results))
        self._bytes.labels(name).inc(sum(result.bytes for result in results))
        self._transactions.labels(name).inc(sum(result.transactions for result in results))
        self._polls.labels(name).inc()
        self._backlog.labels(name).set(0)

    def failed(self, kind: str) -> None:
        """Count a failed run."""
        self._failed.labels(self._connector, kind).inc()
