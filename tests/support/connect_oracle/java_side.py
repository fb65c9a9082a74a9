"""Kafka Connect's own classes as the oracle: ConnectOracle.java, compiled and run once.

The harness is compiled with ``javac`` against the Kafka jars ``make install`` fetched
(tests/support/kafka_broker.py: ``JARS``) and run in one JVM over the whole corpus, so the test
pays for one JVM start (about a second) whatever the corpus size.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tests.support.connect_oracle.corpus import Case
from tests.support.kafka_broker import JARS, kafka_missing_reason

SOURCE = Path(__file__).with_name("ConnectOracle.java")
_TIMEOUT_S = 120


def oracle_missing_reason() -> str | None:
    """Why the oracle cannot run here (one line naming what to install), or None."""
    reason = kafka_missing_reason()
    if reason is None and shutil.which("javac") is None:
        reason = "no `javac` on PATH: the Connect oracle compiles its harness with a Java 17 JDK"
    return reason


def run_connect(cases: Iterable[Case], workdir: Path) -> dict[str, dict[str, Any]]:
    """Each case's result in Kafka Connect, by case id (compiles the harness into ``workdir``).

    Raises:
        subprocess.CalledProcessError: javac or the harness failed (its output is in the error).
    """
    return run_harness(SOURCE, f"{JARS}/*", (case.to_json() for case in cases), workdir)


def run_harness(
    source: Path, classpath: str, cases: Iterable[dict[str, Any]], workdir: Path, *, with_sources: Sequence[Path] = ()
) -> dict[str, dict[str, Any]]:
    """Compile the Java harness ``source`` (with the classes of ``with_sources`` it uses) against ``classpath``
    into ``workdir`` and run it once over ``cases`` (JSON objects with an ``id``): its result lines, by case
    id. One JVM for the whole corpus, so a test pays one start (about a second) whatever the corpus size.

    Raises:
        subprocess.CalledProcessError: javac or the harness failed (its output is in the error).
    """
    subprocess.run(
        ["javac", "-nowarn", "-d", str(workdir), "-cp", classpath, str(source), *map(str, with_sources)],
        check=True, capture_output=True, text=True, timeout=_TIMEOUT_S,
    )
    inputs, outputs = workdir / "cases.jsonl", workdir / "results.jsonl"
    inputs.write_text("".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8")
    subprocess.run(
        ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", f"{workdir}:{classpath}", source.stem,
         str(inputs), str(outputs)],
        check=True, capture_output=True, text=True, timeout=_TIMEOUT_S,
    )
    results = (json.loads(line) for line in outputs.read_text(encoding="utf-8").splitlines())
    return {result.pop("id"): result for result in results}
