"""How ``lakesink sink`` picks its metrics: the flags over the settings, a port or none, a taken port."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from lakesink.adapters.metrics.prometheus import PrometheusSinkMetrics
from lakesink.application.bootstrap.sink import serving_metrics, with_metrics_flags
from lakesink.application.cli import build_parser
from lakesink.application.sink_metrics import NO_METRICS
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import ConfigError


def _settings(**extra: str) -> ConnectorSettings:
    return ConnectorSettings.from_properties(
        {
            "name": "orders-sink",
            "connect.memory.kcql": "INSERT INTO bkt:out SELECT * FROM orders STOREAS `JSON`",
            "topics": "orders",
            **extra,
        }
    )


def test_the_settings_default_to_no_endpoint_on_the_loopback_address() -> None:
    settings = _settings()
    assert (settings.metrics_port, settings.metrics_host) == (None, "127.0.0.1")
    configured = _settings(**{"connect.memory.metrics.port": "9464", "connect.memory.metrics.host": "0.0.0.0"})
    assert (configured.metrics_port, configured.metrics_host) == (9464, "0.0.0.0")


@pytest.mark.parametrize(
    ("key", "value"),
    [("connect.memory.metrics.port", "70000"), ("connect.memory.metrics.port", "-1"), ("connect.memory.metrics.host", "a b")],
)
def test_an_invalid_metrics_setting_is_a_config_error_naming_it(key: str, value: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        _settings(**{key: value})


def test_the_flags_win_over_the_settings() -> None:
    settings = _settings(**{"connect.memory.metrics.port": "9464"})
    args = build_parser().parse_args(["sink", "--config", "f", "--metrics-port", "0", "--metrics-host", "::1"])
    flagged = with_metrics_flags(settings, args.metrics_port, args.metrics_host)
    assert (flagged.metrics_port, flagged.metrics_host) == (0, "::1")
    unflagged = build_parser().parse_args(["sink", "--config", "f"])
    assert with_metrics_flags(settings, unflagged.metrics_port, unflagged.metrics_host) == settings


def test_a_port_out_of_range_is_refused_by_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["sink", "--config", "f", "--metrics-port", "65536"])
    assert "invalid port '65536'" in capsys.readouterr().err


def test_no_port_means_no_endpoint() -> None:
    with serving_metrics(_settings()) as metrics:
        assert metrics is NO_METRICS


def test_a_port_serves_until_the_run_ends() -> None:
    with serving_metrics(_settings(**{"connect.memory.metrics.port": "0"})) as metrics:
        assert isinstance(metrics, PrometheusSinkMetrics)
        url = f"http://127.0.0.1:{metrics.port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            assert 'lakesink_batches_total{connector="orders-sink"} 0.0' in response.read().decode()
    with pytest.raises(OSError):
        urllib.request.urlopen(url, timeout=2)


def test_a_taken_port_is_a_config_error_naming_the_flag_and_the_setting() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match="--metrics-port.*connect.memory.metrics.port"):
            with serving_metrics(_settings(**{"connect.memory.metrics.port": str(port)})):
                pass
