"""``lakesink sink`` validates its config before any Spark session starts."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from lakesink.adapters.kafka import reachability
from lakesink.adapters.spark.session_launch import THREAD_NAME
from lakesink.application.bootstrap.config_file import load_settings
from lakesink.application.cli import EXIT_FAILURE, EXIT_INVALID_INPUT, main
from lakesink.application.sink_settings import sink_app_name
from lakesink.domain.errors import ConfigError

VALID = (
    "name=orders-sink\n"
    "connect.local.root={root}\n"
    "connect.local.kcql=INSERT INTO bkt:out SELECT * FROM orders STOREAS `JSON`\n"
    "topics=orders\n"
    "bootstrap.servers=127.0.0.1:9\n"
)


def _launches() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == THREAD_NAME]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (VALID.replace("bootstrap.servers=127.0.0.1:9\n", ""), "bootstrap.servers is required"),
        (VALID.replace("STOREAS `JSON`", "STOREAS `XML`"), "Unsupported format - XML"),
        (VALID + "connect.local.compression.codec=SNAPPY\n", "JSON files can be written with"),
    ],
    ids=["no-bootstrap-servers", "bad-kcql", "plan-rule"],
)
def test_a_config_error_is_reported_without_starting_a_spark_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    config = tmp_path / "sink.properties"
    config.write_text(text.format(root=tmp_path))
    jvm_modules_before = "pyspark.java_gateway" in sys.modules

    code = main(["sink", "--once", "--config", str(config)])

    assert code == EXIT_INVALID_INPUT
    assert message in capsys.readouterr().err
    assert _launches() == []
    assert ("pyspark.java_gateway" in sys.modules) == jvm_modules_before


def test_load_settings_checks_the_statements_plan_too(tmp_path: Path) -> None:
    config = tmp_path / "sink.properties"
    config.write_text(VALID.format(root=tmp_path) + "connect.local.compression.codec=SNAPPY\n")

    with pytest.raises(ConfigError, match="compression.codec: JSON files can be written with"):
        load_settings(config)


def test_a_sink_run_is_named_after_its_connector(tmp_path: Path) -> None:
    config = tmp_path / "sink.properties"
    config.write_text(VALID.format(root=tmp_path))

    assert sink_app_name(load_settings(config)) == "lakesink-sink-orders-sink"


def test_a_missing_bucket_is_one_line_naming_the_setting_before_spark_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "sink.properties"
    config.write_text(VALID.format(root=tmp_path))  # no bkt folder under the root

    code = main(["sink", "--once", "--config", str(config)])

    err = capsys.readouterr().err.strip()
    assert code == EXIT_INVALID_INPUT
    assert err.startswith("lakesink: error: ") and len(err.splitlines()) == 1, err
    assert "INSERT INTO in connect.local.kcql" in err and "connect.local.root" in err
    assert _launches() == []


def test_an_unreachable_broker_is_one_line_naming_bootstrap_servers_before_spark_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reachability, "PROBE_TIMEOUT_S", 2.0)
    (tmp_path / "bkt").mkdir()
    config = tmp_path / "sink.properties"
    config.write_text(VALID.format(root=tmp_path))  # nothing listens on 127.0.0.1:9
    started = time.monotonic()

    code = main(["sink", "--once", "--config", str(config)])

    err = capsys.readouterr().err.strip()
    assert code == EXIT_FAILURE  # the environment's problem, not the config's
    assert time.monotonic() - started < 10
    assert err.startswith("lakesink: error: ") and len(err.splitlines()) == 1, err
    assert "bootstrap.servers=127.0.0.1:9" in err and "Connection refused" in err
    assert _launches() == []


@pytest.mark.parametrize("command", ["sink", "restore"])
@pytest.mark.parametrize(
    ("conf", "message"),
    [("hunter2", "expected KEY=VALUE with a spark.* key (no '=' found)"),
     ("fs.s3a.secret.key=hunter2", "key 'fs.s3a.secret.key' is not a Spark setting")],
    ids=["no-equals", "not-spark"],
)
def test_a_bad_conf_is_refused_with_exit_2_and_its_value_is_never_echoed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, conf: str, message: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--config", str(tmp_path / "absent.properties"), "--conf", conf])

    assert exited.value.code == EXIT_INVALID_INPUT
    error = capsys.readouterr().err
    assert message in error
    assert "hunter2" not in error


def test_conf_settings_reach_the_session_as_the_users() -> None:
    from lakesink.application.cli import build_parser

    args = build_parser().parse_args(["sink", "--config", "c", "--conf", "spark.default.parallelism=7",
                                      "--conf", "spark.ui.enabled=false", "--conf", "spark.x=a=b"])

    assert dict(args.conf) == {"spark.default.parallelism": "7", "spark.ui.enabled": "false", "spark.x": "a=b"}
