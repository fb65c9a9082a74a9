"""``lakesink jvm-archive``: trains an archive, proves a JVM maps it, installs it once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lakesink.adapters.spark.class_archive import ARCHIVE_DIR_VARIABLE, archive_options, build
from tests.support.reliability import FULL

# A minute of JVM training and probing on 2 cores: `make test` leaves it to `make test-reliability` (the
# install step of both builds the venv's archive with the same code, `lakesink jvm-archive`).
pytestmark = [pytest.mark.reliability, pytest.mark.slow] + (
    [] if FULL else [pytest.mark.skip(reason="make test-reliability runs it")]
)


@pytest.mark.timeout(300)
def test_build_installs_an_archive_a_jvm_maps_and_builds_it_only_once(tmp_path: Path) -> None:
    environ = {**os.environ, ARCHIVE_DIR_VARIABLE: str(tmp_path), "SPARK_LOCAL_IP": "127.0.0.1"}
    report = build(environ=environ)
    assert report.built and report.path.parent == tmp_path and report.path.stat().st_size > 1_000_000
    assert report.seconds_without is not None and report.seconds_with is not None  # the probe mapped it
    assert [path.name for path in tmp_path.iterdir()] == [report.path.name]  # no partial file left
    assert str(report.path) in archive_options(environ)
    again = build(environ=environ)
    assert not again.built and again.path == report.path
