"""The Prometheus adapter of the sink's metrics: what a batch report becomes in its own registry,
and the HTTP endpoint that serves it."""

from __future__ import annotations

import urllib.request

import pytest
from prometheus_client import REGISTRY, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from lakesink.adapters.metrics.prometheus import PrometheusSinkMetrics
from lakesink.application.sink_metrics import OTHER_ERROR, error_kind
from lakesink.application.sink_run import BatchReport
from lakesink.domain.errors import CommitConflictError, StorageError
from lakesink.domain.flush.rolls import RollReason


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by name and sorted labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _scrape(metrics: PrometheusSinkMetrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return _samples(generate_latest(metrics.registry).decode())


def _report(batch_id: int = 0, **changes: object) -> BatchReport:
    fields: dict[str, object] = {
        "batch_id": batch_id,
        "records": 30,
        "skipped": 2,
        "poison": 1,
        "bytes": 700,
        "files": ("a", "b", "c"),
        "lag": 5,
        "commit_ms": 40.0,
        "ranges": 2,
        "dead_letters": 1,
        "committed": {("orders", 0): 19, ("payments", 1): 9},
        "lags": {("orders", 0): 5, ("payments", 1): 0},
        "records_by_topic": {"orders": 20, "payments": 10},
        "bytes_by_topic": {"orders": 500, "payments": 200},
        "rolls": {RollReason.COUNT: 2, RollReason.END_OF_BATCH: 1},
        "requests": 9,
        "duration_ms": 1500.0,
    }
    fields.update(changes)
    return BatchReport(**fields)  # type: ignore[arg-type]


C = (("connector", "sink-a"),)


def test_a_committed_batch_counts_records_bytes_objects_and_sets_offsets_and_lag() -> None:
    metrics = PrometheusSinkMetrics("sink-a")
    metrics.batch_committed(_report())
    metrics.batch_committed(_report(1, committed={("orders", 0): 29}, lags={("orders", 0): 0}))
    got = _scrape(metrics)
    topic = lambda name: (("connector", "sink-a"), ("topic", name))  # noqa: E731
    assert got["lakesink_records_written_total", topic("orders")] == 40
    assert got["lakesink_records_written_total", topic("payments")] == 20
    assert got["lakesink_bytes_written_total", topic("orders")] == 1000
    assert got["lakesink_objects_written_total", C] == 6
    assert got["lakesink_records_skipped_total", C] == 4
    assert got["lakesink_poison_records_total", C] == 2
    assert got["lakesink_dead_letters_total", C] == 2
    assert got["lakesink_batches_total", C] == 2
    partition = lambda name, p: (("connector", "sink-a"), ("partition", str(p)), ("topic", name))  # noqa: E731
    assert got["lakesink_committed_offset", partition("orders", 0)] == 29
    assert got["lakesink_committed_offset", partition("payments", 1)] == 9
    assert got["lakesink_consumer_lag", partition("orders", 0)] == 0
    assert got["lakesink_files_rolled_total", (("connector", "sink-a"), ("reason", "count"))] == 4
    assert got["lakesink_files_rolled_total", (("connector", "sink-a"), ("reason", "end_of_batch"))] == 2
    assert got["lakesink_files_rolled_total", (("connector", "sink-a"), ("reason", "schema_change"))] == 0
    assert got["lakesink_store_requests_total", C] == 18
    assert got["lakesink_store_requests_per_object", C] == 3
    assert got["lakesink_batch_duration_seconds_count", C] == 2
    assert got["lakesink_batch_duration_seconds_sum", C] == pytest.approx(3.0)
    assert got["lakesink_batch_duration_seconds_bucket", (*C, ("le", "2.5"))] == 2
    assert got["lakesink_batch_duration_seconds_bucket", (*C, ("le", "1.0"))] == 0
    assert got["lakesink_commit_latency_seconds_sum", C] == pytest.approx(0.08)


def test_failures_count_by_lakesink_error_class_and_waits_count_apart() -> None:
    metrics = PrometheusSinkMetrics("sink-a")
    for error in (StorageError("503"), StorageError("503"), CommitConflictError("fenced"), KeyError("bug")):
        metrics.batch_failed(error_kind(error))
    metrics.waited()
    got = _scrape(metrics)
    kind = lambda name: (("connector", "sink-a"), ("kind", name))  # noqa: E731
    assert got["lakesink_batches_failed_total", kind("StorageError")] == 2
    assert got["lakesink_batches_failed_total", kind("CommitConflictError")] == 1
    assert got["lakesink_batches_failed_total", kind(OTHER_ERROR)] == 1
    assert got["lakesink_store_waits_total", C] == 1


def test_series_exist_at_zero_before_the_first_batch() -> None:
    got = _scrape(PrometheusSinkMetrics("sink-a"))
    assert got["lakesink_objects_written_total", C] == 0
    for reason in RollReason:
        assert got["lakesink_files_rolled_total", (*C, ("reason", reason.value))] == 0


def test_each_run_has_its_own_registry_not_the_process_wide_one() -> None:
    first, second = PrometheusSinkMetrics("same"), PrometheusSinkMetrics("same")  # no duplicate-series error
    first.batch_committed(_report())
    assert _scrape(second)["lakesink_objects_written_total", (("connector", "same"),)] == 0
    assert "lakesink_objects_written_total" not in generate_latest(REGISTRY).decode()


def test_label_values_go_through_hide() -> None:
    metrics = PrometheusSinkMetrics("s3cr3t-sink", hide=lambda value: "****" if "s3cr3t" in value else value)
    metrics.batch_committed(_report(records_by_topic={"s3cr3t-topic": 1}))
    text = generate_latest(metrics.registry).decode()
    assert "s3cr3t" not in text
    assert 'connector="****"' in text


def test_the_endpoint_serves_the_registry_on_a_free_port_until_closed() -> None:
    metrics = PrometheusSinkMetrics("sink-a")
    metrics.serve(0, "127.0.0.1")
    try:
        metrics.batch_committed(_report())
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics.port}/metrics", timeout=10) as response:
            got = _samples(response.read().decode())
        assert got["lakesink_objects_written_total", C] == 3
    finally:
        metrics.close()
    with pytest.raises(RuntimeError):
        _ = metrics.port
