"""The metrics endpoint of verify and restore (and the sink): served on the address given while the
command runs, gone after it; an address taken is one error naming the flags; verify's figures."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

import pytest

from lakesink.adapters.metrics.verify_prometheus import PrometheusVerifyMetrics
from lakesink.application.cli import EXIT_INVALID_INPUT, main
from lakesink.application.metrics_serving import serving
from lakesink.domain.errors import ConfigError
from lakesink.domain.verify.check import PartitionCheck, PartitionFacts
from lakesink.domain.verify.report import Mismatch, VerifyReport
from tests.unit.application.test_verify_cli import CONFIG


def _report() -> VerifyReport:
    facts = PartitionFacts("t", 0, "b", indexed=True, committed=9, topic_start=0, topic_end=10)
    check = PartitionCheck(facts, (), objects=2, records=8, first_stored=0, last_stored=9, gaps=((3, 4),),
                           duplicates=(), orphans=(), pending=())
    return VerifyReport("s1", True, (check,), (Mismatch("b", "x.txt", "stray"),), None, listed=5, opened=4, seconds=1.5)


def test_verify_metrics_are_served_while_the_block_runs_and_gone_after() -> None:
    with serving(lambda: PrometheusVerifyMetrics("s1"), 0, None) as metrics:
        assert metrics is not None
        metrics.verified(_report())
        url = f"http://127.0.0.1:{metrics.port}/metrics"
        text = urllib.request.urlopen(url, timeout=5).read().decode()  # noqa: S310 (a local URL of the test)
    for line in (
        'lakesink_verify_runs_total{connector="s1"} 1.0', 'lakesink_verify_partitions_checked{connector="s1"} 1.0',
        'lakesink_verify_problems{connector="s1",kind="gaps"} 1.0',
        'lakesink_verify_problems{connector="s1",kind="mismatches"} 1.0',
        'lakesink_verify_problems{connector="s1",kind="orphans"} 0.0', 'lakesink_verify_clean{connector="s1"} 0.0',
        'lakesink_verify_duration_seconds{connector="s1"} 1.5', 'lakesink_verify_objects_opened{connector="s1"} 4.0',
    ):
        assert line in text.splitlines(), line
    with pytest.raises(OSError):
        urllib.request.urlopen(url, timeout=5)  # noqa: S310


def test_no_port_builds_nothing() -> None:
    with serving(lambda: pytest.fail("built without a port"), None, None) as metrics:
        assert metrics is None


def test_a_taken_address_is_one_error_naming_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match="--metrics-port / --metrics-host"), serving(
            lambda: PrometheusVerifyMetrics("s1"), port, "127.0.0.1"
        ):
            pass
        (tmp_path / "store" / "bkt").mkdir(parents=True)
        config = tmp_path / "sink.properties"
        config.write_text(CONFIG.format(root=tmp_path / "store"))
        assert main(["verify", "--config", str(config), "--metrics-port", str(port)]) == EXIT_INVALID_INPUT
    assert f"Cannot serve the metrics on 127.0.0.1:{port}" in capsys.readouterr().err
