"""``lakesink demo`` as a user runs it: a child process, its output, its exit code, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.sink_process import group_members

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(240)]

DEMO = [sys.executable, "-m", "lakesink.application.cli", "demo"]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def test_demo_writes_every_target_and_table_exactly_once_and_exits_zero(tmp_path: Path) -> None:
    result = subprocess.run(
        [*DEMO, "--records", "2000"], capture_output=True, text=True, env=ENV, timeout=200, cwd=tmp_path
    )

    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = result.stdout.split("== Summary", 1)[1]
    assert summary.count("exactly once") == 4  # Parquet on S3, JSON in a directory, an Iceberg and a Delta table
    assert summary.count("2000/2000 records") == 4
    assert result.stdout.count("a scan returns 2000 rows") == 2
    assert "country=" in result.stdout and "date=" in result.stdout and "region=" in result.stdout
    # Spark's banner and its start-up warnings are hidden at the default log level (only the JVM's
    # own incubator-module notice, printed before any configuration applies, remains)
    spark_lines = [line for line in result.stderr.splitlines() if "WARNING: Using incubator modules" not in line]
    assert spark_lines == [], result.stderr[-3000:]


def test_ctrl_c_stops_the_demo_and_everything_it_started(tmp_path: Path) -> None:
    log = tmp_path / "demo.log"
    with log.open("wb") as output:
        demo = subprocess.Popen(
            [*DEMO, "--records", "20000"], stdout=output, stderr=subprocess.STDOUT, env=ENV,
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while "Spark ready" not in log.read_text() and demo.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert demo.poll() is None, log.read_text()[-3000:]

        os.killpg(demo.pid, signal.SIGINT)  # what a terminal sends on Ctrl-C
        code = demo.wait(timeout=60)

    assert code == 130, log.read_text()[-3000:]
    assert "interrupted; services stopped" in log.read_text()
    deadline = time.monotonic() + 20
    while group_members(demo.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert group_members(demo.pid) == []
