"""``lakesink --version``, a reader that closes the pipe early (``lakesink ... | head -1``) and Ctrl-C."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import version

import pytest

from lakesink.application.cli import main


def test_version_names_lakesink_python_and_pyspark(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    line = capsys.readouterr().out
    assert re.fullmatch(
        rf"lakesink {re.escape(version('lakesink'))} \(Python \d+\.\d+\.\d+, PySpark {re.escape(version('pyspark'))}\)\n",
        line,
    )


def test_a_closed_pipe_ends_the_command_quietly_with_the_sigpipe_status() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes its first line
    try:
        done = subprocess.run(
            [sys.executable, "-m", "lakesink.application.cli", "kcql", "explain",
             "INSERT INTO b:p SELECT * FROM t PARTITIONBY _key.region"],
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60, check=False,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")


def test_ctrl_c_ends_a_command_with_one_line_and_the_sigint_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(**_: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("lakesink.application.bootstrap.explain.run_explain_command", interrupted)
    assert main(["kcql", "explain", "INSERT INTO b:p SELECT * FROM t"]) == 130
    assert capsys.readouterr().err == "lakesink kcql: interrupted\n"
