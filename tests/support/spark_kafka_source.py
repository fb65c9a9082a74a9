"""Spark Structured Streaming's own Kafka source (``format("kafka")``) for the tests: the jars
``make install`` fetched into ``.tools/maven/spark-kafka`` (tools/spark-kafka/pom.xml).

They go on the session's ``spark.jars`` when the session is created (tests/conftest.py): Spark
reads that setting only then, and one shared session with four more jars starts as fast as one
without (within the noise of a 6 s start), where a session of their own would cost another JVM.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.kafka_broker import REPO

JARS = REPO / ".tools" / "maven" / "spark-kafka"


def spark_kafka_missing_reason() -> str | None:
    """Why Spark's Kafka source is not here (one line naming what to run), or None."""
    if not (JARS / "VERSION").is_file():
        return (
            f"Spark's Kafka source is not in {JARS.relative_to(REPO)}: run `make install` (needs Java 17 and "
            "Maven 3.8+ with access to Maven Central)"
        )
    return None


def spark_kafka_jars() -> list[Path]:
    """The source's jars (spark-sql-kafka, kafka-clients, commons-pool2, the token provider); none when missing."""
    return sorted(JARS.glob("*.jar")) if spark_kafka_missing_reason() is None else []


def spark_kafka_version() -> str:
    """The Spark version of the fetched source (the installed PySpark's, or the pom's fallback)."""
    return (JARS / "VERSION").read_text().strip()
