"""The streaming scenario's lag source for lakesink: its metrics endpoint, as an operator scrapes it.

The exposition text is parsed into committed positions (next offset per partition); a real
:class:`PrometheusSinkMetrics` served on 127.0.0.1 is scraped; a silent endpoint counts as nothing
committed only until it first answered; the end-of-step cross-check against the locks warns.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench import streaming_probes
from bench.streaming import _cross_check
from bench.streaming_probes import EndpointSilent, LakesinkEndpoint, committed_positions
from lakesink.adapters.demo.s3 import free_port
from lakesink.adapters.metrics.prometheus import PrometheusSinkMetrics
from lakesink.application.sink_run import BatchReport

CONNECTOR = "bench-stream-lakesink-parquet-1k"
TOPIC = "orders-stream"

EXPOSITION = f"""\
# HELP lakesink_committed_offset The last offset the store holds durably (committed) per topic-partition.
# TYPE lakesink_committed_offset gauge
lakesink_committed_offset{{connector="{CONNECTOR}",partition="0",topic="{TOPIC}"}} 1499.0
lakesink_committed_offset{{connector="{CONNECTOR}",partition="2",topic="{TOPIC}"}} 0.0
lakesink_committed_offset{{connector="{CONNECTOR}",partition="1",topic="other-topic"}} 70.0
lakesink_committed_offset{{connector="another-sink",partition="3",topic="{TOPIC}"}} 80.0
# HELP lakesink_consumer_lag Records behind the last commit per topic-partition.
# TYPE lakesink_consumer_lag gauge
lakesink_consumer_lag{{connector="{CONNECTOR}",partition="1",topic="{TOPIC}"}} 12.0
"""


def _report(committed: dict[tuple[str, int], int]) -> BatchReport:
    """A committed batch that only sets offsets (the other figures do not matter here)."""
    return BatchReport(batch_id=0, records=0, skipped=0, poison=0, bytes=0, files=(), lag=None, commit_ms=1.0,
                       committed=committed)


@pytest.fixture
def served() -> Iterator[PrometheusSinkMetrics]:
    """The sink's own Prometheus adapter, served on a free port of 127.0.0.1 as ``--metrics-port`` does."""
    metrics = PrometheusSinkMetrics(CONNECTOR)
    metrics.serve(0, "127.0.0.1")
    yield metrics
    metrics.close()


def _url(port: int) -> str:
    return f"http://127.0.0.1:{port}/metrics"


def test_the_gauge_is_the_last_committed_offset_so_the_position_is_one_more_and_absent_is_zero() -> None:
    assert committed_positions(EXPOSITION, CONNECTOR, TOPIC, 4) == {0: 1500, 1: 0, 2: 1, 3: 0}


def test_an_exposition_without_the_gauge_means_nothing_committed() -> None:
    assert committed_positions("", CONNECTOR, TOPIC, 2) == {0: 0, 1: 0}


def test_the_served_registry_of_a_running_sink_is_scraped_into_positions(served: PrometheusSinkMetrics) -> None:
    endpoint = LakesinkEndpoint(_url(served.port), CONNECTOR, TOPIC, 4)
    assert endpoint() == {0: 0, 1: 0, 2: 0, 3: 0}
    served.batch_committed(_report({(TOPIC, 0): 99, (TOPIC, 2): 4}))
    assert endpoint() == {0: 100, 1: 0, 2: 5, 3: 0}
    served.batch_committed(_report({(TOPIC, 0): 249}))
    assert endpoint() == {0: 250, 1: 0, 2: 5, 3: 0}


def test_an_endpoint_that_never_answered_is_a_sink_still_starting_with_nothing_committed() -> None:
    assert LakesinkEndpoint(_url(free_port()), CONNECTOR, TOPIC, 3)() == {0: 0, 1: 0, 2: 0}


def test_an_endpoint_that_answered_then_falls_silent_fails_the_sample_instead_of_showing_zero(
    served: PrometheusSinkMetrics, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streaming_probes, "SCRAPE_RETRY_S", 0.0)
    served.batch_committed(_report({(TOPIC, 0): 9}))
    endpoint = LakesinkEndpoint(_url(served.port), CONNECTOR, TOPIC, 1)
    assert endpoint() == {0: 10}
    served.close()
    with pytest.raises(EndpointSilent, match="did not answer 3 scrapes"):
        endpoint()


def test_the_cross_check_is_equal_when_the_endpoint_shows_what_the_locks_hold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    check = _cross_check("step", lambda: {0: 10, 1: 0}, {0: 10, 1: 0}, drained=True)
    assert check == {"endpoint": {0: 10, 1: 0}, "locks": {0: 10, 1: 0}, "equal": True, "drained": True}
    assert "WARNING" not in capsys.readouterr().err


def test_the_cross_check_warns_when_the_endpoint_and_the_locks_differ(capsys: pytest.CaptureFixture[str]) -> None:
    check = _cross_check("step", lambda: {0: 9}, {0: 10}, drained=True)
    assert check["equal"] is False
    assert "step: WARNING" in capsys.readouterr().err


def test_the_cross_check_records_a_silent_endpoint_as_unequal(capsys: pytest.CaptureFixture[str]) -> None:
    def silent() -> dict[int, int]:
        raise EndpointSilent("http://127.0.0.1:1/metrics did not answer 3 scrapes in a row")

    check = _cross_check("step", silent, {0: 10}, drained=False)
    assert check == {"endpoint": None, "locks": {0: 10}, "equal": False, "drained": False}
    assert "did not answer" in capsys.readouterr().err
