"""The Aiven peer as a Kafka Connect plugin: what it is built from and how it is configured.

Aiven's S3 sink connector is not on Maven Central; its commons (the file naming and the writers) are.
bench/connect_plugins/AivenCommonsS3Sink.java runs those commons as Aiven's S3SinkTask does on a real Connect worker
(tests/support/connect_standalone.py) and uploads each file to S3 with AWS SDK v2 (its header lists where it
differs from the connector). It is compiled with the connector's config and file writing that the Aiven oracle
harnesses use too (tests/support/aiven_oracle/AivenS3SinkConfig.java). Shared by the benchmark
(bench/aiven_app.py) and its end-to-end test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lakesink.adapters.demo.s3 import S3Endpoint
from tests.support.aiven_oracle.java_side import AIVEN_JARS, SINK_CONFIG
from tests.support.connect_standalone import Plugin, connect_missing_reason
from tests.support.kafka_broker import REPO

SDK_JARS = REPO / ".tools" / "maven" / "aiven-bench"
PLUGIN = Plugin("aiven-commons-s3", Path(__file__).with_name("connect_plugins") / "AivenCommonsS3Sink.java",
                "AivenCommonsS3Sink", jars=(AIVEN_JARS, SDK_JARS), with_sources=(SINK_CONFIG,))
LABEL = "Aiven's commons on Connect (the connector itself is not on Maven Central)"
FIRST_RECORDS = re.compile(r"AivenCommonsS3Sink first records at (\d+)")
UPLOADED = re.compile(r"AivenCommonsS3Sink uploaded (\S+) records=(\d+) at=(\d+)")
_JSON = "org.apache.kafka.connect.json.JsonConverter"


def missing_reason() -> str | None:
    """Why the Aiven peer cannot run here (one line naming what to install), or None."""
    reason = connect_missing_reason()
    for jars, what in ((AIVEN_JARS, "Aiven's commons"), (SDK_JARS, "the Aiven peer's S3 client (AWS SDK v2)")):
        if reason is None and not (jars / "VERSION").is_file():
            reason = f"{what} not in {jars.relative_to(REPO)}: run `make install` (needs Maven 3.8+ and Maven Central)"
    return reason


def connector_config(topic: str, bucket: str, endpoint: S3Endpoint, *, gzip: bool, max_records: int,
                     tasks: int, output_fields: str | None = None,
                     session_timeout_ms: int | None = None) -> dict[str, str]:
    """The connector's settings as an Aiven user writes them for JSON values to jsonl files, one file per
    ``max_records`` records of a partition, named ``<topic>-<partition>-<start offset>.jsonl[.gz]``;
    ``output_fields`` is ``format.output.fields`` (Aiven's default, ``value``, when None);
    ``session_timeout_ms`` the task consumers' ``session.timeout.ms`` (Kafka's default, 45 s, when None:
    a worker killed with kill -9 keeps its partitions that long)."""
    fields = {} if output_fields is None else {"format.output.fields": output_fields}
    if session_timeout_ms is not None:
        fields["consumer.override.session.timeout.ms"] = str(session_timeout_ms)
    return {**fields,
        "connector.class": PLUGIN.connector, "topics": topic, "tasks.max": str(tasks),
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": _JSON, "value.converter.schemas.enable": "false",
        "format.output.type": "jsonl", "file.compression.type": "gzip" if gzip else "none",
        "file.max.records": str(max_records),
        "file.name.template": "{{topic}}-{{partition}}-{{start_offset}}.jsonl" + (".gz" if gzip else ""),
        "aws.s3.bucket.name": bucket, "aws.s3.endpoint": endpoint.url, "aws.s3.region": endpoint.region,
        "aws.access.key.id": endpoint.access_key, "aws.secret.access.key": endpoint.secret_key,
    }


@dataclass(frozen=True, slots=True)
class Progress:
    """What the plugin logged so far: when its tasks first got records, and each object uploaded."""

    first_records_ms: int | None
    uploaded_records: int
    objects: int
    last_upload_ms: int | None


def progress(log: str) -> Progress:
    """The plugin's marks in the worker's log (every task's; the earliest first-records mark)."""
    firsts = [int(ms) for ms in FIRST_RECORDS.findall(log)]
    uploads = UPLOADED.findall(log)
    return Progress(min(firsts, default=None), sum(int(n) for _, n, _ in uploads), len(uploads),
                    max((int(ms) for _, _, ms in uploads), default=None))
