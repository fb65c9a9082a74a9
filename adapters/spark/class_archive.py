"""A class-data-sharing archive of Spark's classes for the JVM lakesink starts on a local master.

An archive's name carries a digest of the ``java`` binary, the Spark jars and lakesink's JVM
options, so a run finds only one built for it; runs add :func:`archive_options` only where
lakesink's own JVM defaults apply (:mod:`.memory_defaults`). See docs/operations.md, "JVM
start-up: the class archive".
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lakesink.adapters.spark.memory_defaults import DRIVER_JAVA_OPTIONS, LOCAL_JVM_DEFAULTS

ARCHIVE_DIR_VARIABLE = "LAKESINK_JVM_ARCHIVE_DIR"
QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"
"""The JVM prints a warning per class it cannot archive (signed jars...) and per mismatch."""
TRAIN_TIMEOUT_S = 300
CHILD_MODULE = "lakesink.adapters.spark.class_archive_run"
"""The child process of :func:`build` (a module of its own: it starts a session, which needs this module)."""


def spark_jars_dir() -> Path:
    """The jars of the Spark that ``pyspark`` launches (``SPARK_HOME`` as PySpark resolves it)."""
    from pyspark.find_spark_home import _find_spark_home

    return Path(_find_spark_home()) / "jars"


def java_binary(environ: Mapping[str, str]) -> Path | None:
    """The ``java`` Spark's launcher runs: ``$JAVA_HOME/bin/java``, else the one on PATH."""
    if environ.get("JAVA_HOME"):
        return Path(environ["JAVA_HOME"]) / "bin" / "java"
    found = shutil.which("java", path=environ.get("PATH"))
    return Path(found) if found else None


def fingerprint(java: Path, jars: Path, options: str) -> str:
    """A digest of everything a dynamic archive is only valid for."""
    digest = hashlib.sha256()
    real = java.resolve()
    stat = real.stat()
    digest.update(f"{real}\0{stat.st_size}\0{stat.st_mtime_ns}\0{jars.resolve()}\0{options}\0".encode())
    for jar in sorted(jars.glob("*.jar")):
        digest.update(f"{jar.name}\0{jar.stat().st_size}\0".encode())
    return digest.hexdigest()[:20]


def archive_dirs(environ: Mapping[str, str]) -> list[Path]:
    """Where archives may be, in the order they are looked for and written."""
    if environ.get(ARCHIVE_DIR_VARIABLE):
        return [Path(environ[ARCHIVE_DIR_VARIABLE])]
    cache = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lakesink"
    return [Path(sys.prefix) / "var" / "lakesink", cache]


def archive_name(environ: Mapping[str, str]) -> str | None:
    """``spark-classes-<digest>.jsa`` for this JVM and Spark, None when there is no ``java``."""
    java = java_binary(environ)
    if java is None or not java.exists():
        return None
    return f"spark-classes-{fingerprint(java, spark_jars_dir(), LOCAL_JVM_DEFAULTS[DRIVER_JAVA_OPTIONS])}.jsa"


def find_archive(environ: Mapping[str, str] | None = None) -> Path | None:
    """The archive built for this JVM and Spark, if there is one."""
    environ = os.environ if environ is None else environ
    name = archive_name(environ)
    if name is None:
        return None
    return next((directory / name for directory in archive_dirs(environ) if (directory / name).is_file()), None)


def archive_options(environ: Mapping[str, str] | None = None) -> str:
    """JVM options that map the archive into the JVM, or "" when there is none (or its path has spaces,
    which Spark's option splitting would break)."""
    archive = find_archive(environ)
    if archive is None or any(character.isspace() for character in str(archive)):
        return ""
    return f"-XX:SharedArchiveFile={archive} {QUIET}"


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What :func:`build` did, with the start-up it measured without and with the archive."""

    path: Path
    built: bool
    seconds_without: dict[str, float] | None = None
    seconds_with: dict[str, float] | None = None

    def describe(self) -> str:
        if not self.built:
            return f"JVM class archive already built: {self.path}"
        before, after = self.seconds_without or {}, self.seconds_with or {}
        return (
            f"JVM class archive built: {self.path} ({self.path.stat().st_size / 1e6:.0f} MB); SparkSession "
            f"{before.get('session', 0):.1f} s -> {after.get('session', 0):.1f} s, first job "
            f"{before.get('first_job', 0):.1f} s -> {after.get('first_job', 0):.1f} s"
        )


class ArchiveError(RuntimeError):
    """The archive could not be built or did not load; nothing was installed."""


def build(*, force: bool = False, environ: Mapping[str, str] | None = None) -> BuildReport:
    """Train, prove and install the archive for this JVM and Spark.

    Trains in a child process (session, ``spark.range`` ids through ``mapInArrow`` as the sink's
    batches, a streaming query with ``foreachBatch``), waits for that JVM to write the archive and
    exit, then starts a second JVM with it and checks the archive is really mapped into it, and
    only then renames it into place: a truncated archive crashes the JVM (SIGBUS), so nothing but
    a complete, proven file ever carries the final name.

    Raises:
        ArchiveError: no ``java``, no writable directory, or the training or proving run failed.
    """
    environ = dict(os.environ if environ is None else environ)
    name = archive_name(environ)
    if name is None:
        raise ArchiveError("no java found (JAVA_HOME or PATH): Spark cannot start here either")
    existing = find_archive(environ)
    if existing is not None and not force:
        return BuildReport(existing, built=False)
    directory = _writable_dir(environ)
    final = directory / name
    partial = directory / f"{name}.{os.getpid()}.partial"
    try:
        without = _child("train", partial, environ)
        if not partial.is_file() or partial.stat().st_size == 0:
            raise ArchiveError(f"the training JVM exited without writing {partial}")
        with_archive = _child("probe", partial, environ)
        if not with_archive.pop("mapped", False):
            raise ArchiveError(f"a JVM started with {partial} did not map it (the JVM rejected the archive)")
        os.replace(partial, final)
    finally:
        partial.unlink(missing_ok=True)
    return BuildReport(final, built=True, seconds_without=without, seconds_with=with_archive)


def _writable_dir(environ: Mapping[str, str]) -> Path:
    for directory in archive_dirs(environ):
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(directory, os.W_OK):
            return directory
    raise ArchiveError(
        f"no writable directory for the JVM class archive among {', '.join(map(str, archive_dirs(environ)))}; "
        f"set {ARCHIVE_DIR_VARIABLE}"
    )


def _child(role: str, archive: Path, environ: Mapping[str, str]) -> dict[str, float]:
    """Run :mod:`.class_archive_run` in a fresh process: a JVM archives or loads classes only when it starts."""
    command = [sys.executable, "-m", CHILD_MODULE, role, str(archive)]
    try:
        done = subprocess.run(command, env=dict(environ), capture_output=True, text=True, timeout=TRAIN_TIMEOUT_S,
                              check=False)
    except subprocess.TimeoutExpired as timeout:
        raise ArchiveError(f"the {role} run did not finish within {TRAIN_TIMEOUT_S} s") from timeout
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise ArchiveError(f"the {role} run failed with exit code {done.returncode}: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])
