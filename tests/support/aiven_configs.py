"""The Aiven S3 sink configs of seed 003 (Aiven's help article), as its text gives them.

The article's page lost some key names when it was captured (``"": "AKI..."``): they are the
``aws.access.key.id`` and ``aws.s3.bucket.name`` of the article's "Connector Configuration - AWS"
list, restored here. Its curl example stops before ``connector.class`` and the converters, which
the console example shows; they are added the same way.
"""

from __future__ import annotations

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
