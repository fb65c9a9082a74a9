"""Which JVM class archive a local run uses: only one built for its own java, Spark jars and options."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from lakesink.adapters.spark import class_archive, session
from lakesink.adapters.spark.class_archive import (
    ARCHIVE_DIR_VARIABLE,
    archive_name,
    archive_options,
    find_archive,
    fingerprint,
)
from lakesink.adapters.spark.memory_defaults import DRIVER_JAVA_OPTIONS


@pytest.fixture
def jvm(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in ``java`` binary and Spark jars directory (fingerprint only reads their metadata)."""
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_bytes(b"#!java")
    jars = tmp_path / "jars"
    jars.mkdir()
    for name in ("spark-core.jar", "spark-sql.jar"):
        (jars / name).write_bytes(b"x" * 10)
    return java, jars


def test_fingerprint_changes_with_the_jars_the_java_binary_and_the_options(jvm: tuple[Path, Path]) -> None:
    java, jars = jvm
    base = fingerprint(java, jars, "-Xms32m")
    assert fingerprint(java, jars, "-Xms32m") == base
    assert fingerprint(java, jars, "-Xms64m") != base
    (jars / "extra.jar").write_bytes(b"y")
    with_extra = fingerprint(java, jars, "-Xms32m")
    assert with_extra != base
    (jars / "extra.jar").write_bytes(b"yy")
    assert fingerprint(java, jars, "-Xms32m") != with_extra
    java.write_bytes(b"#!another java")
    assert fingerprint(java, jars, "-Xms32m") not in {base, with_extra}


def test_options_are_empty_until_an_archive_for_this_jvm_exists(tmp_path: Path) -> None:
    environ = {**os.environ, ARCHIVE_DIR_VARIABLE: str(tmp_path)}
    assert archive_options(environ) == ""
    name = archive_name(environ)
    assert name is not None
    (tmp_path / f"spark-classes-{'0' * 20}.jsa").write_bytes(b"another JVM's archive")
    assert find_archive(environ) is None
    (tmp_path / name).write_bytes(b"archive")
    options = archive_options(environ)
    assert f"-XX:SharedArchiveFile={tmp_path / name}" in options
    assert "-Xlog:cds=off" in options


def test_an_archive_path_with_spaces_is_not_used(tmp_path: Path) -> None:
    spaced = tmp_path / "with space"
    spaced.mkdir()
    environ = {**os.environ, ARCHIVE_DIR_VARIABLE: str(spaced)}
    name = archive_name(environ)
    assert name is not None
    (spaced / name).write_bytes(b"archive")
    assert find_archive(environ) == spaced / name
    assert archive_options(environ) == ""


def test_no_java_means_no_archive(tmp_path: Path) -> None:
    environ = {"PATH": str(tmp_path), ARCHIVE_DIR_VARIABLE: str(tmp_path)}
    assert archive_name(environ) is None
    assert archive_options(environ) == ""


def test_the_archive_joins_lakesinks_jvm_options_but_never_a_users(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session, "archive_options", lambda: "-XX:SharedArchiveFile=/a.jsa")
    assert " -XX:SharedArchiveFile=/a.jsa" in session._local_jvm_settings()[DRIVER_JAVA_OPTIONS]
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--driver-java-options -Xss4m pyspark-shell")
    assert DRIVER_JAVA_OPTIONS not in session._local_jvm_settings()


def test_the_quiet_logging_profile_applies_only_at_the_default_log_level(monkeypatch: pytest.MonkeyPatch) -> None:
    quiet = f"-Dlog4j2.configurationFile={session.QUIET_LOG4J.as_uri()}"
    assert session.QUIET_LOG4J.is_file()
    monkeypatch.setattr(logging.getLogger(), "level", logging.WARNING)
    assert quiet in session._local_jvm_settings()[DRIVER_JAVA_OPTIONS]
    monkeypatch.setattr(logging.getLogger(), "level", logging.INFO)
    assert quiet not in session._local_jvm_settings()[DRIVER_JAVA_OPTIONS]


def test_build_refuses_without_a_writable_directory(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with pytest.raises(class_archive.ArchiveError, match=ARCHIVE_DIR_VARIABLE):
        class_archive.build(environ={**os.environ, ARCHIVE_DIR_VARIABLE: str(blocked / "sub")})
