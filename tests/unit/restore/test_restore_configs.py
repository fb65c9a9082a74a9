"""Both config forms become the same restore plan; bad settings are named."""

from __future__ import annotations

import pytest

from lakesink.domain.config.backends import S3Settings
from lakesink.domain.dialects.aiven.source_config import aiven_restore_plan, is_aiven_source_config
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.restore.lenses_plan import lenses_restore_plan
from lakesink.domain.restore.plan import PartitionMode

AIVEN = {
    "name": "aiven-s3-source-connector",
    "connector.class": "io.aiven.kafka.connect.s3.source.S3SourceConnector",
    "aws.access.key.id": "AKIAEXAMPLE",
    "aws.secret.access.key": "very-secret",
    "aws.s3.bucket.name": "my-s3-bucket",
    "aws.s3.region": "us-west-1",
    "aws.s3.prefix": "data-uploads/",
    "aws.credentials.provider": "software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain",
    "topic": "test-topic",
    "file.name.template": "{{topic}}-{{partition}}-{{start_offset}}",
    "tasks.max": "1",
    "poll.interval.ms": "10000",
    "error.tolerance": "all",
    "input.format": "jsonl",
    "bootstrap.servers": "kafka:9092",
}


def test_the_seed_aiven_config_translates_into_a_plan() -> None:
    assert is_aiven_source_config(AIVEN)
    plan = aiven_restore_plan(AIVEN)
    (root,) = plan.roots
    assert (root.bucket, root.list_prefix, root.topic, root.format) == ("my-s3-bucket", "data-uploads/", "test-topic", Format.JSON)
    assert root.template is not None and root.template.has_partition and root.key_from_object_key
    assert plan.backend == "s3" and isinstance(plan.storage, S3Settings)
    assert plan.storage.auth_mode == "Credentials" and plan.storage.region == "us-west-1"
    assert (plan.poll_interval_ms, plan.tolerate_errors, plan.parallelism) == (10_000, True, 1)
    assert plan.partition_rule.mode == PartitionMode.LAYOUT
    assert "very-secret" not in repr(plan)


def test_unknown_aiven_keys_are_all_named() -> None:
    with pytest.raises(ConfigError, match=r"Unknown Aiven S3 source settings: aws\.s3\.bucket\.nmae, format\.output\.type\."):
        aiven_restore_plan({**AIVEN, "aws.s3.bucket.nmae": "x", "format.output.type": "json"})


def test_aiven_legacy_names_and_endpoint_without_scheme_are_accepted() -> None:
    props = {k: v for k, v in AIVEN.items() if k not in ("aws.s3.bucket.name", "aws.s3.prefix")}
    plan = aiven_restore_plan({**props, "aws_s3_bucket": "legacy", "aws_s3_prefix": "aiven--", "aws.s3.endpoint": "minio:9000"})
    assert (plan.roots[0].bucket, plan.roots[0].list_prefix) == ("legacy", "aiven--")
    assert isinstance(plan.storage, S3Settings) and plan.storage.custom_endpoint == "https://minio:9000"
    assert plan.storage.path_style_access


def test_aiven_without_topic_needs_topic_in_the_template() -> None:
    props = {k: v for k, v in AIVEN.items() if k != "topic"}
    assert aiven_restore_plan(props).roots[0].topic is None
    with pytest.raises(ConfigError, match="target topic is unknown"):
        aiven_restore_plan({**props, "file.name.template": "{{partition}}-{{start_offset}}"})


def test_aiven_template_without_partition_uses_the_producer_partitioner() -> None:
    plan = aiven_restore_plan({**AIVEN, "file.name.template": "{{topic}}-{{start_offset}}"})
    assert plan.partition_rule.mode == PartitionMode.NONE


def test_aiven_bytes_input_reads_chunks_of_the_transformer_buffer() -> None:
    plan = aiven_restore_plan({**AIVEN, "input.format": "bytes", "transformer.max.buffer.size": "3"})
    assert plan.roots[0].bytes_chunk_size == 3


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("input.format", "xml", "input.format"),
        ("errors.tolerance", "some", "errors.tolerance"),
        ("file.compression.type", "snappy", "file.compression.type"),
        ("aws.sts.role.arn", "arn:x", "STS"),
        ("tasks.max", "zero", "tasks.max"),
    ],
)
def test_invalid_aiven_values_name_their_key(key: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        aiven_restore_plan({**AIVEN, key: value})


LENSES = {
    "name": "restore-orders",
    "connect.s3.aws.region": "eu-west-1",
    "connect.s3.kcql": (
        "INSERT INTO orders SELECT * FROM backups:prod BATCH=250 STOREAS `AVRO` LIMIT 500 "
        "PROPERTIES('store.envelope'=true, 'post.process.action'='Delete')"
    ),
    "bootstrap.servers": "kafka:9092",
}


def test_a_lenses_source_config_becomes_a_plan() -> None:
    plan = lenses_restore_plan(LENSES)
    (root,) = plan.roots
    assert (root.bucket, root.list_prefix, root.topic, root.format) == ("backups", "prod/", "orders", Format.AVRO)
    assert (root.page_size, root.limit, root.envelope) == (250, 500, True)
    assert root.post_process is not None and root.post_process.action == "Delete"
    assert plan.progress_topic == "__lakesink_restore_restore-orders"
    assert plan.partition_rule.mode == PartitionMode.LAYOUT


def test_source_topic_from_envelope_needs_the_envelope() -> None:
    kcql = LENSES["connect.s3.kcql"].replace("PROPERTIES(", "PROPERTIES('source.topic.from.envelope'=true, ")
    (root,) = lenses_restore_plan({**LENSES, "connect.s3.kcql": kcql}).roots
    assert (root.topic_from_envelope, root.topic) == (True, "orders")  # INSERT INTO: the fallback
    without = kcql.replace("'store.envelope'=true", "'store.envelope'=false")
    with pytest.raises(ConfigError, match="source.topic.from.envelope.*needs 'store.envelope'=true"):
        lenses_restore_plan({**LENSES, "connect.s3.kcql": without})


def test_restore_only_options_select_producer_partitioning_and_modulo_remap() -> None:
    plan = lenses_restore_plan(
        {**LENSES, "connect.s3.source.partition.extractor.type": "none", "connect.s3.source.partition.remap": "modulo"}
    )
    assert plan.partition_rule.mode == PartitionMode.NONE and plan.partition_rule.remap_modulo


def test_the_transaction_timeout_reaches_the_plan_and_is_bounded() -> None:
    assert lenses_restore_plan(LENSES).transaction_timeout_ms == 60_000
    plan = lenses_restore_plan({**LENSES, "connect.s3.source.transaction.timeout.ms": "300000"})
    assert plan.transaction_timeout_ms == 300_000
    with pytest.raises(ConfigError, match="connect.s3.source.transaction.timeout.ms: must be at most 900000"):
        lenses_restore_plan({**LENSES, "connect.s3.source.transaction.timeout.ms": "900001"})


def test_lenses_extractors_still_apply() -> None:
    plan = lenses_restore_plan({**LENSES, "connect.s3.source.partition.extractor.type": "hierarchical"})
    assert plan.partition_rule.mode == PartitionMode.HIERARCHICAL


def test_a_restore_without_brokers_or_with_a_bad_remap_is_rejected() -> None:
    with pytest.raises(ConfigError, match="bootstrap.servers is required"):
        lenses_restore_plan({k: v for k, v in LENSES.items() if k != "bootstrap.servers"})
    with pytest.raises(ConfigError, match="connect.s3.source.partition.remap"):
        lenses_restore_plan({**LENSES, "connect.s3.source.partition.remap": "hash"})


def test_batch_larger_than_a_listing_page_is_capped() -> None:
    plan = lenses_restore_plan({**LENSES, "connect.s3.kcql": "INSERT INTO o SELECT * FROM b:p BATCH=5000"})
    assert plan.roots[0].page_size == 1000
