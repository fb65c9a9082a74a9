"""``convert_aiven``: an Aiven S3 sink config as the nearest Lenses-dialect config.

Every converted config is loaded back with the Lenses dialect's own loader
(``ConnectorSettings.from_properties`` + ``plan_sink``); the key example each conversion prints
is checked against the key the planned Lenses layout gives.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from lakesink.domain.config.convert import convert_config
from lakesink.domain.config.lenses_conversion import Conversion
from lakesink.domain.dialects.aiven.convert import convert_aiven
from lakesink.domain.dialects.aiven.keys import DEFAULT_ONLY, LEGACY, NO_EFFECT, USED
from lakesink.domain.errors import ConfigError
from lakesink.domain.records import Record
from lakesink.domain.statement_plan import SinkPlan
from tests.support.aiven_configs import AIVEN_CLASS, BYTES, CONSOLE_WITH_AWS, CURL
from tests.support.conversions import load, notes

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
JSONL = dict(
    CONSOLE_WITH_AWS,
    **{
        "format.output.type": "jsonl",
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "false",
    },
)
#: Every key of the Aiven key table (but topics.regex, the other half of topics) in one valid config.
COMPLETE = {
    "name": "aiven-complete",
    "connector.class": AIVEN_CLASS,
    "tasks.max": "2",
    "topics": "events,orders",
    "bootstrap.servers": "127.0.0.1:9092",
    "aws.access.key.id": "AKIAEXAMPLEACCESS",
    "aws.secret.access.key": SECRET,
    "aws.s3.bucket.name": "aiven-lake",
    "aws_s3_bucket": "legacy-lake",
    "aws.s3.region": "eu-west-1",
    "aws_s3_region": "eu-west-2",
    "aws.s3.endpoint": "127.0.0.1:9000",
    "aws_s3_endpoint": "legacy:9000",
    "aws.s3.prefix": "raw/{{utc_date}}/",
    "aws_s3_prefix": "legacy/",
    "aws.s3.backoff.max.retries": "7",
    "aws.s3.backoff.delay.ms": "200",
    "aws.s3.backoff.max.delay.ms": "30000",
    "aws.s3.part.size.bytes": "10485760",
    "aws.s3.fetch.page.size": "10",
    "aws.s3.fetch.buffer.size": "10",
    "aws.s3.sse.algorithm": "",
    "aws.credentials.provider": "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider",
    "aws.sts.role.arn": "",
    "aws.sts.role.session.name": "",
    "aws.sts.role.external.id": "",
    "aws.sts.role.session.duration": "3600",
    "aws.sts.config.endpoint": "https://sts.amazonaws.com",
    "kafka.retry.backoff.ms": "1000",
    "file.prefix.template": "ignored",
    "file.name.template": "{{topic}}-{{partition}}-{{start_offset}}-{{timestamp:unit=HH}}",
    "file.compression.type": "gzip",
    "output_compression": "zstd",
    "file.max.records": "1000",
    "file.name.timestamp.source": "event",
    "file.name.timestamp.timezone": "Europe/Paris",
    "timestamp.source": "wallclock",
    "timestamp.timezone": "UTC",
    "format.output.type": "jsonl",
    "format.output.fields": "key,value,offset,headers",
    "output_fields": "value",
    "format.output.fields.value.encoding": "none",
    "format.output.envelope": "true",
    "avro.codec": "snappy",
    "offset.flush.interval.ms": "30500",
    "key.converter": BYTES,
    "value.converter": JSON_CONVERTER,
    "value.converter.schemas.enable": "false",
    "header.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    "transforms": "drop",
    "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
    "transforms.drop.predicate": "tomb",
    "predicates": "tomb",
    "predicates.tomb.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "PLAIN",
    "ssl.truststore.location": "/tmp/ca.jks",
    "consumer.max.poll.records": "500",
    "errors.tolerance": "all",
    "errors.log.enable": "true",
    "errors.deadletterqueue.topic.name": "dlq",
    "errors.retry.timeout": "0",
}


def convert(config: Mapping[str, str]) -> Conversion:
    return convert_aiven(config, config)


def lenses_key(plan: SinkPlan, topic: str) -> str:
    layout = plan.route(topic).layout
    record = Record(topic, 0, 0, 1, value={"a": 1})
    return layout.object_key(
        layout.partition_values(record),
        topic=topic,
        partition=0,
        first_offset=0,
        last_offset=0,
        earliest_ts=-1,
        latest_ts=-1,
    )


def test_the_curl_example_converts_to_a_config_the_lenses_loader_plans() -> None:
    conversion = convert(CURL)
    props, plan = load(conversion)
    assert props["connector.class"] == "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector"
    assert (props["name"], props["topics"], props["tasks.max"]) == ("example-s3-sink", CURL["topics"], "1")
    assert props["connect.s3.aws.region"] == "us-east-1"
    assert (props["connect.s3.aws.auth.mode"], props["connect.s3.aws.access.key"]) == (
        "Credentials",
        "AKI...",
    )
    assert props["connect.s3.aws.secret.key"] == "SECRET_ACCESS_KEY"
    assert "connect.s3.compression.codec" not in props  # Lenses' CSV is never compressed
    assert props["key.converter"] == props["value.converter"] == BYTES
    assert [(p.statement.bucket, p.statement.prefix, p.statement.topic) for p in plan.statements] == [
        ("aiven-example", "example-s3-sink", "source_topic"),
        ("aiven-example", "example-s3-sink", "another_topic"),
    ]
    first = plan.statements[0]
    assert (first.statement.format.value, first.statement.partition_by) == ("CSV", ())
    assert first.flush.interval_ms == 60_000  # Aiven's flush period: Kafka Connect's default minute
    why = notes(conversion)
    assert "Lenses' CSV writes the value's top-level fields" in why["format.output.type"]
    assert "not written" in why["format.output.fields"]
    assert "never compressed: Aiven's gzip is dropped" in why["file.compression.type"]
    assert "example-s3-sink/source_topic-0-00000000000000000000.gz" in why["aws.s3.prefix"]
    heading = conversion.properties_text().split("name=", 1)[0]
    assert "NOTE: object keys cannot match Aiven's" in heading
    assert "lakesink sink --config" in heading


def test_the_key_example_of_the_note_is_the_key_lenses_writes() -> None:
    conversion = convert(
        dict(JSONL, **{"file.name.template": "logs/daily/{{topic}}-{{partition}}-{{start_offset}}"})
    )
    _, plan = load(conversion)
    expected = lenses_key(plan, "YOUR-TOPIC").replace("_-1_-1", "_<first timestamp>_<last timestamp>")
    assert expected == "logs/daily/YOUR-TOPIC/0/000000000000_<first timestamp>_<last timestamp>.gz"
    assert f"Lenses writes {expected}" in notes(conversion)["file.name.template"]
    assert "Aiven writes logs/daily/YOUR-TOPIC-0-0," in notes(conversion)["file.name.template"]


def test_every_aiven_key_is_converted_or_noted() -> None:
    assert {*USED, *LEGACY, *NO_EFFECT, *DEFAULT_ONLY} - {"topics.regex"} <= set(COMPLETE)
    conversion = convert(COMPLETE)
    props, plan = load(conversion)
    noted = {key for key, _ in conversion.notes}
    converted = {
        "name", "connector.class", "tasks.max", "topics", "bootstrap.servers", "aws.access.key.id",
        "aws.secret.access.key", "aws.s3.bucket.name", "aws.s3.region", "aws.s3.endpoint",
        "aws.s3.backoff.max.retries", "aws.s3.part.size.bytes", "file.compression.type", "file.max.records",
        "format.output.type", "format.output.envelope", "avro.codec", "key.converter", "value.converter", "value.converter.schemas.enable",
        "header.converter", "transforms", "transforms.drop.type", "transforms.drop.predicate", "predicates",
        "predicates.tomb.type", "security.protocol", "sasl.mechanism", "ssl.truststore.location",
        "consumer.max.poll.records", "errors.tolerance",
    }  # fmt: skip
    assert set(COMPLETE) <= noted | converted
    assert props["connect.s3.custom.endpoint"] == "https://127.0.0.1:9000"  # Aiven's scheme added
    assert props["connect.s3.path.style.access"] == "true"
    assert (props["connect.s3.http.max.retries"], props["connect.s3.multipart.part.size"]) == (
        "7",
        "10485760",
    )
    assert props["connect.s3.error.policy"] == "NOOP"
    assert props["connect.s3.aws.region"] == "eu-west-1"  # the dotted name wins, as in Aiven
    assert not any(key.startswith("errors.") for key in props)
    statement = plan.statements[0]
    assert (statement.statement.bucket, statement.statement.prefix) == ("aiven-lake", "raw")
    assert (statement.flush.count, statement.flush.interval_ms) == (1000, 31_000)
    why = notes(conversion)
    assert "{{utc_date}}" in why["aws.s3.prefix"]
    assert "overridden by aws.s3.region" in why["aws_s3_region"]
    assert "dead-letter" in why["errors.deadletterqueue.topic.name"]
    assert "no Lenses equivalent needed: an S3 source setting" in why["aws.s3.fetch.page.size"]
    assert "at Aiven's default" in why["aws.sts.role.arn"]
    assert SECRET not in conversion.properties_text().replace(f"secret.key={SECRET}", "") + str(why)


@pytest.mark.parametrize(
    ("changes", "stored", "codec"),
    [
        ({"format.output.type": "jsonl"}, "JSON", "GZIP"),
        ({"format.output.type": "json", "file.compression.type": "none"}, "JSON", None),
        ({"format.output.type": "jsonl", "file.compression.type": "zstd"}, "JSON", None),
        ({"format.output.type": "avro", "avro.codec": "deflate"}, "AVRO", "DEFLATE"),
        ({"format.output.type": "parquet"}, "PARQUET", None),
        ({"format.output.type": "parquet", "file.compression.type": "snappy"}, "PARQUET", "SNAPPY"),
        ({"file.compression.type": "snappy"}, "CSV", None),
    ],
)
def test_formats_and_codecs(changes: dict[str, str], stored: str, codec: str | None) -> None:
    conversion = convert(dict(CONSOLE_WITH_AWS, **changes))
    props, plan = load(conversion)
    assert plan.statements[0].statement.format.value == stored
    assert props.get("connect.s3.compression.codec") == codec


def test_json_arrays_avro_stream_compression_and_json_zstd_are_noted() -> None:
    assert (
        "one array per file"
        in notes(convert(dict(JSONL, **{"format.output.type": "json"})))["format.output.type"]
    )
    avro = notes(convert(dict(CONSOLE_WITH_AWS, **{"format.output.type": "avro"})))
    assert "whole .avro file (Aiven's default" in avro["file.compression.type"]
    zstd = notes(convert(dict(JSONL, **{"file.compression.type": "zstd"})))
    assert "written uncompressed" in zstd["file.compression.type"]


def test_more_than_the_value_becomes_the_lenses_envelope() -> None:
    conversion = convert(dict(JSONL, **{"format.output.fields": "value,timestamp,headers"}))
    props, plan = load(conversion)
    kcql = props["connect.s3.kcql"]
    for flag in ("'store.envelope'='true'", "'store.envelope.fields.key'='false'",
                 "'store.envelope.fields.metadata'='true'", "'store.envelope.fields.headers'='true'"):  # fmt: skip
        assert flag in kcql
    assert plan.statements[0].statement.format.value == "JSON"
    why = notes(conversion)["format.output.fields"]
    assert "metadata.timestamp" in why and "metadata also holds offset, topic and partition" in why


def test_the_value_alone_is_written_bare_and_aivens_wrapping_is_noted() -> None:
    conversion = convert(dict(JSONL, **{"format.output.fields": "value"}))
    props, _ = load(conversion)
    assert "store.envelope" not in props["connect.s3.kcql"]
    assert '{"value": …}' in notes(conversion)["format.output.envelope"]
    bare = convert(dict(JSONL, **{"format.output.fields": "key", "format.output.envelope": "false"}))
    props, _ = load(bare)
    assert "'store.envelope.fields.key'='true'" in props["connect.s3.kcql"]
    assert "writes the single field bare" in notes(bare)["format.output.envelope"]


def test_grouping_by_key_is_noted_prominently_with_the_unchanged_run() -> None:
    conversion = convert(dict(JSONL, **{"file.name.template": "{{key}}"}))
    load(conversion)
    why = notes(conversion)["file.name.template"]
    assert "one object per key" in why and "lakesink sink --config" in why
    assert "# NOTE: key: one object per key" in conversion.properties_text()


def test_timestamps_in_the_key_are_noted_with_the_nearest_partitionby() -> None:
    config = dict(
        JSONL,
        **{
            "file.name.template": "{{topic}}/{{timestamp:unit=yyyy}}/{{partition}}-{{start_offset}}",
            "file.name.timestamp.source": "event",
            "timestamp.timezone": "UTC",
        },
    )
    conversion = convert(config)
    load(conversion)
    why = notes(conversion)
    assert "PARTITIONBY _date" in why["file.name.template"] and "record time" in why["file.name.template"]
    assert "read for {{timestamp}}" in why["file.name.timestamp.source"]
    assert "not read" in why["timestamp.timezone"]
    assert "the time in Aiven's keys is not carried over" in conversion.properties_text()


def test_topics_regex_and_routing_transforms_take_every_topic() -> None:
    regex = {key: value for key, value in JSONL.items() if key != "topics"} | {"topics.regex": "orders-.*"}
    props, plan = load(convert(regex))
    assert props["topics.regex"] == "orders-.*"
    assert plan.statements[0].statement.topic is None
    routed = dict(
        JSONL,
        **{
            "transforms": "route",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": ".*",
            "transforms.route.replacement": "archived",
        },
    )
    assert "SELECT * FROM `*`" in load(convert(routed))[0]["connect.s3.kcql"]


def test_provider_references_are_kept_and_rewritten_keys_refused() -> None:
    raw = dict(
        JSONL,
        **{
            "config.providers": "file",
            "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
            "aws.secret.access.key": "${file:/run/creds.properties:secret}",
        },
    )
    resolved = dict(raw, **{"aws.secret.access.key": SECRET})
    conversion = convert_aiven(raw, resolved, frozenset({"aws.secret.access.key"}))
    text = conversion.properties_text() + "\n".join(conversion.note_lines())
    assert SECRET not in text
    assert "connect.s3.aws.secret.key=${file:/run/creds.properties:secret}" in text
    with pytest.raises(ConfigError, match="file.max.records comes from a config provider"):
        convert_aiven(dict(JSONL, **{"file.max.records": "${env:N}"}), dict(JSONL, **{"file.max.records": "9"}),
                      frozenset({"file.max.records"}))  # fmt: skip


def test_an_invalid_config_is_refused_as_the_aiven_dialect_refuses_it() -> None:
    with pytest.raises(ConfigError, match="format.output.type"):
        convert(dict(JSONL, **{"format.output.type": "xml"}))


def test_convert_config_dispatches_on_connector_class() -> None:
    assert "Aiven" in convert_config(JSONL, JSONL).properties_text().splitlines()[0]
    with pytest.raises(ConfigError, match="only a Confluent S3 sink config .* or an Aiven S3 sink config"):
        convert_config({"name": "x", "connector.class": "x.Y"}, {"name": "x", "connector.class": "x.Y"})
    with pytest.raises(ConfigError, match="only an Aiven S3 sink config"):
        convert({"name": "x"})
