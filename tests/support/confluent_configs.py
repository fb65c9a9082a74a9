"""The Confluent S3 sink configs the dialect's tests share: the seed's "Basic Configuration" and its
"Complete Example"."""

from __future__ import annotations

PKG = "io.confluent.connect.storage.partitioner."
FMT = "io.confluent.connect.s3.format."

#: The seed's "Basic Configuration" without its partitioner (each example adds one).
BASIC = {
    "name": "s3-sink",
    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
    "tasks.max": "3",
    "topics": "events",
    "s3.bucket.name": "data-lake-bucket",
    "s3.region": "us-east-1",
    "format.class": f"{FMT}parquet.ParquetFormat",
    "flush.size": "10000",
    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
}

#: The seed's "Complete Example", Avro converters replaced by JSON ones, brokers and endpoint added.
COMPLETE = {
    "name": "events-to-s3",
    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
    "tasks.max": "6",
    "topics": "events,transactions",
    "s3.bucket.name": "analytics-data-lake",
    "s3.region": "us-east-1",
    "s3.credentials.provider.class": "com.amazonaws.auth.DefaultAWSCredentialsProviderChain",
    "format.class": f"{FMT}parquet.ParquetFormat",
    "parquet.codec": "snappy",
    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
    "partitioner.class": f"{PKG}TimeBasedPartitioner",
    "path.format": "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
    "locale": "en-US",
    "timezone": "UTC",
    "partition.duration.ms": "3600000",
    "flush.size": "50000",
    "rotate.interval.ms": "600000",
    "s3.part.size": "52428800",
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
    "errors.tolerance": "all",
    "errors.deadletterqueue.topic.name": "dlq-s3-sink",
    "errors.deadletterqueue.topic.replication.factor": "3",
    "bootstrap.servers": "127.0.0.1:9092",
    "store.url": "http://127.0.0.1:9000",
}
