"""Aiven's own code as the oracle: AivenWriterOracle.java (file bytes), AivenNamesOracle.java (file
names) and AivenSinkTaskOracle.java (a config's object keys and bytes over flushes), each compiled and
run once over a corpus, with what they share: AivenCases.java (the run over a corpus, its records) and
AivenS3SinkConfig.java (the connector's config and files, which the benchmark's Aiven peer compiles too).

Aiven's S3 sink connector is not on Maven Central (docs/dialects.md, "Against the real connector"), but
the code it writes every object with is: ``io.aiven:commons-for-apache-kafka-connect``, fetched by
``make install`` into ``.tools/maven/aiven-commons`` (tools/aiven-commons/pom.xml). The harness runs its
``OutputWriter`` and ``RecordGrouper`` as the connector's task does, with the Kafka jars of the worker beside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lakesink.domain.records import Record
from tests.support.connect_oracle.java_side import oracle_missing_reason, run_harness
from tests.support.kafka_broker import JARS, REPO

WRITERS = Path(__file__).with_name("AivenWriterOracle.java")
NAMES = Path(__file__).with_name("AivenNamesOracle.java")
SINK_TASK = Path(__file__).with_name("AivenSinkTaskOracle.java")
#: Aiven's S3 sink config on the commons and the file its task writes: the oracles' and bench/aiven_peer.py's.
SINK_CONFIG = Path(__file__).with_name("AivenS3SinkConfig.java")
_CASES = Path(__file__).with_name("AivenCases.java")
AIVEN_JARS = REPO / ".tools" / "maven" / "aiven-commons"


def aiven_oracle_missing_reason() -> str | None:
    """Why Aiven's writers cannot run here (one line naming what to install), or None."""
    reason = oracle_missing_reason()
    if reason is None and not (AIVEN_JARS / "VERSION").is_file():
        reason = (
            f"Aiven's commons are not in {AIVEN_JARS.relative_to(REPO)}: run `make install` (needs Maven 3.8+ "
            "with access to Maven Central)"
        )
    return reason


def run_aiven(harness: Path, cases: Iterable[dict[str, Any]], workdir: Path) -> dict[str, dict[str, Any]]:
    """Each case's result from Aiven's code by case id: :data:`WRITERS` gives a file's bytes
    (``{"bytes": hex}``), :data:`NAMES` the files a grouper makes (``{"files": {name: [offsets]}}``),
    :data:`SINK_TASK` the objects a sink task uploads over flushes (``{"objects": {key: hex}}``); any
    ``{"error": text}`` when Aiven raised. Aiven's jars come first, as in the connector's isolated
    plugin class loader."""
    return run_harness(harness, f"{AIVEN_JARS}/*:{JARS}/*", cases, workdir, with_sources=(_CASES, SINK_CONFIG))


def record_json(record: Record) -> dict[str, Any]:
    """``record`` (bytes or None key, value and headers) as the harnesses read it: bytes in hex."""

    def hexed(data: bytes | None) -> str | None:
        return None if data is None else data.hex()

    return {
        "topic": record.topic, "partition": record.partition, "offset": record.offset,
        "timestamp": record.timestamp, "key": hexed(record.key), "value": hexed(record.value),
        "headers": [[name, hexed(value)] for name, value in record.headers],
    }
