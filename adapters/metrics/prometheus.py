"""The sink's metrics in Prometheus form, served over HTTP (``lakesink sink --metrics-port N``).

:class:`PrometheusSinkMetrics` is the Prometheus adapter of the sink run's metrics port
(:class:`~lakesink.application.sink_metrics.SinkMetrics`): it turns each committed batch's report
into counters, gauges and histograms of its own registry, served by
:class:`~lakesink.adapters.metrics.endpoint.MetricsEndpoint`. Updates happen once per batch on the
driver. docs/operations.md lists every metric with its type and labels.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import Counter, Gauge, Histogram

from lakesink.adapters.metrics.endpoint import MetricsEndpoint
from lakesink.domain.flush.rolls import RollReason
from lakesink.domain.ports import CommittedBatch

BATCH_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
"""Batch duration buckets, seconds: a small batch takes a few hundred ms, a backfill's minutes."""
COMMIT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Commit latency buckets, seconds: one conditional write per partition."""


class PrometheusSinkMetrics(MetricsEndpoint):
    """One sink run's metrics, labelled with its connector name.

    ``hide`` turns a label value (the connector name, a topic) into what may be shown: the
    composition root masks any value a config provider supplied, so no secret becomes a label.
    """

    def __init__(self, connector: str, *, hide: Callable[[str], str] = str) -> None:
        super().__init__(hide(connector))
        self._hide = hide
        registry, by_connector = self.registry, ("connector",)
        by_topic, by_partition = ("connector", "topic"), ("connector", "topic", "partition")
        self._records = Counter(
            "lakesink_records_written", "Records written to the store and committed.", by_topic, registry=registry
        )
        self._bytes = Counter(
            "lakesink_bytes_written", "Bytes of the objects written and committed.", by_topic, registry=registry
        )
        self._objects = Counter(
            "lakesink_objects_written", "Objects (files) written and committed.", by_connector, registry=registry
        )
        self._skipped = Counter(
            "lakesink_records_skipped",
            "Records read but not written: already durable, tombstones under skip.null.values, filtered out "
            "by a transform.",
            by_connector,
            registry=registry,
        )
        self._poison = Counter(
            "lakesink_poison_records",
            "Records that could not be converted or written and were skipped (errors.tolerance=all, error.policy=NOOP).",
            by_connector, registry=registry,
        )
        self._dead_letters = Counter(
            "lakesink_dead_letters", "Poison records sent to the dead-letter topic.", by_connector, registry=registry
        )
        self._batches = Counter("lakesink_batches", "Micro-batches committed.", by_connector, registry=registry)
        self._failed = Counter(
            "lakesink_batches_failed",
            "Failed attempts of a micro-batch, by lakesink error class (kind); Other: not a lakesink error.",
            ("connector", "kind"),
            registry=registry,
        )
        self._waits = Counter(
            "lakesink_store_waits", "Waits on a store's transient failure before a step runs again.",
            by_connector, registry=registry,
        )
        self._rolled = Counter(
            "lakesink_files_rolled", "Files closed, by reason.", ("connector", "reason"), registry=registry
        )
        self._requests = Counter(
            "lakesink_store_requests",
            "Store calls of committed batches (driver and tasks; an upload of N files counts N).",
            by_connector,
            registry=registry,
        )
        self._requests_per_object = Gauge(
            "lakesink_store_requests_per_object",
            "Store calls per object written, in the last batch that wrote an object.",
            by_connector,
            registry=registry,
        )
        self._committed = Gauge(
            "lakesink_committed_offset",
            "The last offset the store holds durably (committed) per topic-partition.",
            by_partition,
            registry=registry,
        )
        self._lag = Gauge(
            "lakesink_consumer_lag",
            "Records behind the last commit per topic-partition: high watermark - committed offset - 1.",
            by_partition,
            registry=registry,
        )
        self._batch_seconds = Histogram(
            "lakesink_batch_duration_seconds",
            "A micro-batch from its start to its commit, retries and waits included.",
            by_connector,
            registry=registry,
            buckets=BATCH_BUCKETS,
        )
        self._commit_seconds = Histogram(
            "lakesink_commit_latency_seconds",
            "The commit of a micro-batch (dead letters, index locks or consumer group).",
            by_connector,
            registry=registry,
            buckets=COMMIT_BUCKETS,
        )
        # Series that exist from the start, at 0: a dashboard's rate() needs no first event.
        for counter in (self._objects, self._skipped, self._poison, self._dead_letters, self._batches, self._waits,
                        self._requests):
            counter.labels(self._connector)
        for reason in RollReason:
            self._rolled.labels(self._connector, reason.value)

    # --- the sink run's metrics port ---------------------------------------------------------

    def batch_committed(self, report: CommittedBatch) -> None:
        """Count a committed batch and set its partitions' offsets and lags."""
        name = self._connector
        for topic, records in report.records_by_topic.items():
            self._records.labels(name, self._hide(topic)).inc(records)
        for topic, size in report.bytes_by_topic.items():
            self._bytes.labels(name, self._hide(topic)).inc(size)
        objects = len(report.files)
        self._objects.labels(name).inc(objects)
        self._skipped.labels(name).inc(report.skipped)
        self._poison.labels(name).inc(report.poison)
        self._dead_letters.labels(name).inc(report.dead_letters)
        self._batches.labels(name).inc()
        for reason, count in report.rolls.items():
            self._rolled.labels(name, reason.value).inc(count)
        self._requests.labels(name).inc(report.requests)
        if objects:
            self._requests_per_object.labels(name).set(report.requests / objects)
        for (topic, partition), last in report.committed.items():
            self._committed.labels(name, self._hide(topic), str(partition)).set(last)
        for (topic, partition), lag in report.lags.items():
            self._lag.labels(name, self._hide(topic), str(partition)).set(lag)
        self._batch_seconds.labels(name).observe(report.duration_ms / 1000)
        self._commit_seconds.labels(name).observe(report.commit_ms / 1000)

    def batch_failed(self, kind: str) -> None:
        """Count a failed attempt of a batch."""
        self._failed.labels(self._connector, kind).inc()

    def waited(self) -> None:
        """Count a wait on a store's transient failure."""
        self._waits.labels(self._connector).inc()
