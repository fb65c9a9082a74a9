"""The Aiven S3 sink configs of seed 003 (Aiven's help article), as its text gives them.

The article's page lost some key names when it was captured (``"": "AKI..."``): they are the
``aws.access.key.id`` and ``aws.s3.bucket.name`` of the article's "Connector Configuration - AWS"
list, restored here. Its curl example stops before ``connector.class`` and the converters, which
the console example shows; they are added the same way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

AIVEN_CLASS = "io.aiven.kafka.connect.s3.AivenKafkaConnectS3SinkConnector"
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"

#: "Example - create connector on Aiven Console": what the console prints (the name is a form field).
CONSOLE = {
    "name": "s3-sink",
    "connector.class": AIVEN_CLASS,
    "key.converter": BYTES,
    "value.converter": BYTES,
    "topics": "YOUR-TOPIC",
    "aws.s3.region": "eu-west-1",
}
#: The console's AWS fields (access key, secret key, bucket) filled in.
CONSOLE_WITH_AWS = {
    **CONSOLE,
    "aws.access.key.id": "AKIAEXAMPLEACCESS",
    "aws.secret.access.key": "SECRET_ACCESS_KEY",
    "aws.s3.bucket.name": "aiven-example",
}
#: "Creating connector with RESTful API": the curl example's config (``tasks.max`` is a JSON number there).
CURL = {
    "name": "example-s3-sink",
    "aws.access.key.id": "AKI...",
    "aws.secret.access.key": "SECRET_ACCESS_KEY",
    "aws.s3.bucket.name": "aiven-example",
    "aws.s3.prefix": "example-s3-sink/",
    "aws.s3.region": "us-east-1",
    "file.compression.type": "gzip",
    "format.output.fields": "value,key,timestamp",
    "tasks.max": "1",
    "topics": "source_topic,another_topic",
    "connector.class": AIVEN_CLASS,
    "key.converter": BYTES,
    "value.converter": BYTES,
}
#: String keys and schemaless JSON values, over any of the configs above.
STRINGS = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
}


def s3_sink_config(
    base: dict[str, str], *, bootstrap: str, endpoint: str, bucket: str, topics: list[str], **extra: str
) -> dict[str, str]:
    """``base`` pointed at a test S3 endpoint (moto's static keys) and broker, under a fresh name."""
    from tests.conftest import unique_name

    return {
        **base,
        "name": unique_name("aiven-sink"),
        "topics": ",".join(topics),
        "aws.s3.bucket.name": bucket,
        "aws.s3.endpoint": endpoint,
        "aws.access.key.id": "testing",
        "aws.secret.access.key": "testing",
        "bootstrap.servers": bootstrap,
        **extra,
    }


def run_sink_once(spark: Any, directory: Path, config: dict[str, str]) -> None:
    """``lakesink sink --once`` of ``config`` written as a Kafka Connect JSON file in ``directory``."""
    from lakesink.application.bootstrap.config_file import load_settings
    from lakesink.application.bootstrap.sink import sink_run

    path = directory / "connector.json"
    path.write_text(json.dumps({"name": config["name"], "config": config}, indent=2))
    sink_run(load_settings(path), spark, checkpoint_dir=str(directory / "checkpoint"), once=True).run(
        timeout_s=120
    )
