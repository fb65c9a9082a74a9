"""Verify's metrics in Prometheus form (``lakesink verify --metrics-port N``).

The Prometheus adapter of :class:`~lakesink.application.verify_metrics.VerifyMetrics`: gauges of the
last run (partitions checked, problems by kind, duration, objects listed and opened) and a count of
runs. Names follow the sink's (``lakesink_verify_...``, a ``connector`` label); docs/operations.md lists them.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import Counter, Gauge

from lakesink.adapters.metrics.endpoint import MetricsEndpoint
from lakesink.domain.verify.report import VerifyReport


class PrometheusVerifyMetrics(MetricsEndpoint):
    """One verify run's metrics; ``hide`` masks a label value a config provider supplied."""

    def __init__(self, connector: str, *, hide: Callable[[str], str] = str) -> None:
        super().__init__(hide(connector))
        registry, by_connector = self.registry, ("connector",)
        self._runs = Counter("lakesink_verify_runs", "Verify runs that finished.", by_connector, registry=registry)
        self._partitions = Gauge(
            "lakesink_verify_partitions_checked", "Topic-partitions the last run checked.", by_connector,
            registry=registry,
        )
        self._problems = Gauge(
            "lakesink_verify_problems",
            "What the last run found, by kind: gaps, duplicates, orphans, pending (not a problem: a pending "
            "range the next sink run finishes), unreadable, mismatches.",
            ("connector", "kind"), registry=registry,
        )
        self._clean = Gauge(
            "lakesink_verify_clean", "1 when the last run found the store clean, else 0.", by_connector,
            registry=registry,
        )
        self._seconds = Gauge(
            "lakesink_verify_duration_seconds", "How long the last run took.", by_connector, registry=registry
        )
        self._listed = Gauge(
            "lakesink_verify_objects_listed", "Objects the last run listed.", by_connector, registry=registry
        )
        self._opened = Gauge(
            "lakesink_verify_objects_opened", "Objects the last run opened (footers, headers, envelopes).",
            by_connector, registry=registry,
        )

    def verified(self, report: VerifyReport) -> None:
        """Set the last run's figures."""
        name = self._connector
        self._runs.labels(name).inc()
        self._partitions.labels(name).set(len(report.partitions))
        for kind, count in report.problems().items():
            self._problems.labels(name, kind).set(count)
        self._clean.labels(name).set(1 if report.clean else 0)
        self._seconds.labels(name).set(report.seconds)
        self._listed.labels(name).set(report.listed)
        self._opened.labels(name).set(report.opened)
