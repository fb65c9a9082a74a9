"""``convert_confluent``: a Confluent S3 sink config as the nearest Lenses-dialect config.

Every converted config is loaded back with the Lenses dialect's own loader
(``ConnectorSettings.from_properties`` + ``plan_sink``), and where the partitioning converts,
the directories Lenses writes are compared with the ones Confluent writes for the same records.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.properties_text import parse_properties
from lakesink.domain.dialects.confluent.convert import Conversion, convert_confluent
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.errors import ConfigError
from lakesink.domain.kcql.statement import KcqlStatement
from lakesink.domain.records import Record
from lakesink.domain.statement_plan import SinkPlan, plan_sink
from tests.support.confluent_configs import BASIC, COMPLETE, FMT, PKG
from tests.support.conversions import load, notes

#: 2024-05-09T03:17:33Z: 23:17:33 the day before in Santiago (UTC-4), 08:47:33 in Kolkata (UTC+5:30).
TS = 1715224653000
TIME_BASED = {
    "partitioner.class": f"{PKG}TimeBasedPartitioner",
    "path.format": "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
    "locale": "en-US",
    "timezone": "UTC",
    "partition.duration.ms": "3600000",
    "timestamp.extractor": "Record",
}
SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"


def convert(config: Mapping[str, str]) -> Conversion:
    return convert_confluent(config, config)


def statements(plan: SinkPlan) -> list[KcqlStatement]:
    return [p.statement for p in plan.statements]


def lenses_directory(plan: SinkPlan, record: Record) -> str:
    layout = plan.route(record.topic).layout
    key = layout.object_key(
        layout.partition_values(record),
        topic=record.topic,
        partition=record.partition,
        first_offset=record.offset,
        last_offset=record.offset,
        earliest_ts=-1,
        latest_ts=-1,
    )
    return key.rsplit("/", 1)[0]


def confluent_directory(config: Mapping[str, str], record: Record) -> str:
    settings = ConfluentSinkConfig.from_properties(config)
    layout = settings.layout
    encoded = layout.partitioner.encode_partition(record, 0)
    return layout.object_key(record.topic, record.partition, encoded, record.offset, ".x").rsplit("/", 1)[0]


def test_the_seed_complete_example_converts_to_a_config_the_lenses_loader_plans() -> None:
    conversion = convert(COMPLETE)
    props, plan = load(conversion)
    assert props["connector.class"] == "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector"
    assert (props["name"], props["topics"], props["tasks.max"]) == (
        "events-to-s3",
        "events,transactions",
        "6",
    )
    assert props["bootstrap.servers"] == "127.0.0.1:9092"
    assert props["connect.s3.aws.region"] == "us-east-1"
    assert props["connect.s3.custom.endpoint"] == "http://127.0.0.1:9000"
    assert props["connect.s3.compression.codec"] == "SNAPPY"
    assert props["connect.s3.multipart.part.size"] == "52428800"
    assert props["value.converter.schemas.enable"] == "false"
    assert [(s.bucket, s.prefix, s.topic) for s in statements(plan)] == [
        ("analytics-data-lake", "topics/events", "events"),
        ("analytics-data-lake", "topics/transactions", "transactions"),
    ]
    first = plan.statements[0]
    assert first.statement.format.value == "PARQUET"
    assert first.flush.count == 50000
    assert first.statement.partition_by == ("_date.`'year='yyyy'/month='MM'/day='dd'/hour='HH`",)
    why = notes(conversion)
    assert "record-time rotation" in why["rotate.interval.ms"]
    assert "Wallclock" in why["timestamp.extractor"]
    assert "dead-letter" in why["errors.deadletterqueue.topic.name"]
    assert "dead-letter" in why["errors.deadletterqueue.topic.replication.factor"]
    assert "errors.tolerance" in why
    assert "events+0+0000000000.snappy.parquet" in why["file.delim"]
    assert "events(0_0000000000).parquet" in why["file.delim"]
    assert not any(key.startswith("errors.") for key in props)


def test_every_confluent_key_is_converted_or_noted() -> None:
    conversion = convert(COMPLETE)
    noted = {key for key, _ in conversion.notes}
    converted = {
        "name", "connector.class", "tasks.max", "topics", "s3.bucket.name", "s3.region",
        "s3.credentials.provider.class", "format.class", "parquet.codec", "storage.class",
        "partitioner.class", "path.format", "locale", "timezone", "partition.duration.ms", "flush.size",
        "s3.part.size", "key.converter", "value.converter", "value.converter.schemas.enable",
        "bootstrap.servers", "store.url",
    }  # fmt: skip
    assert set(COMPLETE) <= noted | converted


def test_the_seed_basic_example_is_refused_as_confluent_refuses_it() -> None:
    # The seed's "Basic Configuration" names TimeBasedPartitioner without path.format.
    config = dict(BASIC, **{"partitioner.class": f"{PKG}TimeBasedPartitioner"})
    with pytest.raises(ConfigError, match="partition.duration.ms"):
        convert(config)


def test_a_config_that_is_not_a_confluent_s3_sink_is_refused() -> None:
    lenses = {"name": "x", "connector.class": "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector"}
    with pytest.raises(ConfigError, match="only a Confluent S3 sink config"):
        convert(lenses)
    with pytest.raises(ConfigError, match="connector.class is not set"):
        convert({"name": "x"})


def test_default_partitioner_keeps_confluents_directories() -> None:
    conversion = convert(dict(BASIC, **{"partitioner.class": f"{PKG}DefaultPartitioner"}))
    _, plan = load(conversion)
    assert statements(plan)[0].partition_by == ("_partition",)
    record = Record("events", 3, 42, TS, value={"a": 1})
    assert lenses_directory(plan, record) == "topics/events/partition=3"  # the seed's layout
    assert lenses_directory(plan, record) == confluent_directory(BASIC, record)


def test_field_partitioner_keeps_confluents_directories() -> None:
    config = dict(
        BASIC, **{"partitioner.class": f"{PKG}FieldPartitioner", "partition.field.name": "region,event_type"}
    )
    conversion = convert(config)
    _, plan = load(conversion)
    assert statements(plan)[0].partition_by == ("region", "event_type")
    record = Record("events", 0, 7, TS, value={"region": "us-east", "event_type": "click"})
    assert lenses_directory(plan, record) == "topics/events/region=us-east/event_type=click"  # the seed's
    assert "<name>=null" in notes(conversion)["partition.field.name"]


def test_field_names_that_look_like_kcql_specifiers_or_keywords_stay_value_fields() -> None:
    config = dict(
        BASIC,
        **{"partitioner.class": f"{PKG}FieldPartitioner", "partition.field.name": "_topic,select,a.b-c d"},
    )
    _, plan = load(convert(config))
    assert statements(plan)[0].partition_by == ("_value._topic", "`select`", "a.`b-c d`")
    record = Record("events", 0, 7, TS, value={"_topic": "t", "select": "s", "a": {"b-c d": 1}})
    assert lenses_directory(plan, record) == "topics/events/_topic=t/select=s/a.b-c d=1"


@pytest.mark.parametrize(
    "partitioning",
    [
        TIME_BASED,
        dict(TIME_BASED, timezone="America/Santiago"),
        dict(
            TIME_BASED,
            **{
                "timezone": "Asia/Kolkata",
                "partition.duration.ms": "60000",
                "path.format": "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH/'minute'=mm",
            },
        ),
        dict(TIME_BASED, **{"path.format": "YYYY-MM-dd/'h'HH"}),
        dict(TIME_BASED, **{"path.format": "yyyy/MMM/EEEE/ZZ", "locale": "en", "timezone": "+05:00"}),
        dict(TIME_BASED, **{"path.format": "YYYY/Z", "timezone": "GMT-03"}),
        {"partitioner.class": f"{PKG}DailyPartitioner", "locale": "en", "timezone": "Europe/Paris",
         "timestamp.extractor": "Record"},
        {"partitioner.class": f"{PKG}HourlyPartitioner", "locale": "en", "timezone": "UTC",
         "timestamp.extractor": "Record"},
    ],
)  # fmt: skip
def test_time_based_partitioners_keep_confluents_directories(partitioning: Mapping[str, str]) -> None:
    config = {**BASIC, **partitioning}
    conversion = convert(config)
    _, plan = load(conversion)
    assert statements(plan)[0].properties["partition.include.keys"] == "false"
    assert "path.format" not in notes(conversion) and "partition.duration.ms" not in notes(conversion)
    for ts in (TS, 0, 1_711_846_800_000, 1_730_000_000_123, 4_102_444_799_999):  # DST changes, 2099
        record = Record("events", 1, 5, ts, value={})
        assert lenses_directory(plan, record) == confluent_directory(config, record)


def test_the_zone_goes_to_partition_date_timezone() -> None:
    _, plan = load(convert({**BASIC, **TIME_BASED, "timezone": "America/Santiago"}))
    assert statements(plan)[0].properties["partition.date.timezone"] == "America/Santiago"
    assert lenses_directory(plan, Record("events", 0, 0, TS, value={})) == (
        "topics/events/year=2024/month=05/day=08/hour=23"
    )


def test_a_pattern_java_cannot_print_falls_back_to_the_kafka_partition_with_a_note() -> None:
    conversion = convert({**BASIC, **TIME_BASED, "path.format": "xxxx/'week'=ww"})
    _, plan = load(conversion)
    assert statements(plan)[0].partition_by == ("_partition",)
    assert "week-based year" in notes(conversion)["path.format"]
    assert "PARTITIONBY _partition" in notes(conversion)["path.format"]


def test_buckets_longer_than_the_pattern_prints_are_noted() -> None:
    conversion = convert({**BASIC, **TIME_BASED, "partition.duration.ms": str(6 * 3600_000)})
    load(conversion)
    assert "21600000 ms bucket" in notes(conversion)["partition.duration.ms"]


def test_wallclock_and_record_field_extractors_are_noted() -> None:
    wallclock = convert({**BASIC, **TIME_BASED, "timestamp.extractor": "Wallclock"})
    assert "time of writing" in notes(wallclock)["timestamp.extractor"]
    field = convert({**BASIC, **TIME_BASED, "timestamp.extractor": "RecordField", "timestamp.field": "ts"})
    assert "'ts'" in notes(field)["timestamp.field"]
    assert "timestamp.extractor" not in notes(convert({**BASIC, **TIME_BASED}))


def test_partitioner_keys_the_partitioner_does_not_read_are_noted() -> None:
    conversion = convert(dict(BASIC, **{"path.format": "YYYY", "partition.field.name": "a"}))
    assert "not read by DefaultPartitioner" in notes(conversion)["path.format"]
    assert "not read by DefaultPartitioner" in notes(conversion)["partition.field.name"]


def test_gzip_json_becomes_the_gzip_codec_with_its_level() -> None:
    config = dict(
        BASIC,
        **{
            "format.class": f"{FMT}json.JsonFormat",
            "s3.compression.type": "gzip",
            "s3.compression.level": "9",
        },
    )
    conversion = convert(config)
    props, plan = load(conversion)
    assert (props["connect.s3.compression.codec"], props["connect.s3.compression.level"]) == ("GZIP", "9")
    assert plan.statements[0].layout.file_extension == "gz"
    assert "events+0+0000000000.json.gz" in notes(conversion)["file.delim"]
    assert "events(0_0000000000).gz" in notes(conversion)["file.delim"]


@pytest.mark.parametrize(
    ("codec", "lenses", "noted"),
    [
        ("snappy", "SNAPPY", False),
        ("gzip", "GZIP", False),
        ("zstd", "ZSTD", False),
        ("brotli", "BROTLI", False),
        ("none", None, False),
        ("lz4", "LZ4", True),
        ("lz4_raw", "LZ4", True),
        ("lzo", None, True),
    ],
)
def test_parquet_codecs(codec: str, lenses: str | None, noted: bool) -> None:
    conversion = convert(dict(BASIC, **{"parquet.codec": codec}))
    props, plan = load(conversion)
    assert props.get("connect.s3.compression.codec") == lenses
    assert plan.statements[0].codec.value == (lenses or "UNCOMPRESSED")
    assert ("parquet.codec" in notes(conversion)) is noted


@pytest.mark.parametrize(("codec", "lenses"), [("null", None), ("deflate", "DEFLATE"), ("bzip2", "BZIP2")])
def test_avro_codecs(codec: str, lenses: str | None) -> None:
    config = dict(
        BASIC, **{"format.class": f"{FMT}avro.AvroFormat", "avro.codec": codec, "s3.compression.level": "3"}
    )
    conversion = convert(config)
    props, plan = load(conversion)
    assert props.get("connect.s3.compression.codec") == lenses
    assert statements(plan)[0].format.value == "AVRO"
    assert "connect.s3.compression.level" not in props  # Confluent's level is gzip's only
    assert "s3.compression.level" in notes(conversion)


def test_bytearray_becomes_bytes_one_record_per_object() -> None:
    config = dict(
        BASIC,
        **{
            "format.class": f"{FMT}bytearray.ByteArrayFormat",
            "s3.compression.type": "gzip",
            "format.bytearray.separator": "|",
            "store.kafka.keys": "true",
            "keys.format.class": f"{FMT}json.JsonFormat",
        },
    )
    conversion = convert(config)
    _, plan = load(conversion)
    assert statements(plan)[0].format.value == "BYTES"
    assert plan.statements[0].flush.count == 1
    why = notes(conversion)
    assert "one record per object" in why["flush.size"]
    assert "never compressed" in why["s3.compression.type"]
    assert "separator" in why["format.bytearray.separator"]
    assert "hold only the value" in why["store.kafka.keys"]
    assert "store.envelope" not in statements(plan)[0].properties


@pytest.mark.parametrize(("keys", "headers"), [(True, True), (True, False), (False, True)])
def test_keys_and_headers_files_become_the_envelope(keys: bool, headers: bool) -> None:
    config = dict(
        BASIC, **{"store.kafka.keys": str(keys).lower(), "store.kafka.headers": str(headers).lower()}
    )
    conversion = convert(config)
    _, plan = load(conversion)
    envelope = plan.statements[0].envelope
    assert envelope is not None
    assert statements(plan)[0].properties["store.envelope.fields.key"] == str(keys).lower()
    assert statements(plan)[0].properties["store.envelope.fields.headers"] == str(headers).lower()
    why = notes(conversion)
    assert ("store.kafka.keys" in why) is keys and ("store.kafka.headers" in why) is headers
    assert "envelope" in why.get("store.kafka.keys", why.get("store.kafka.headers", ""))


def test_flush_and_rotation() -> None:
    config = {**BASIC, **TIME_BASED, "rotate.schedule.interval.ms": "90500", "rotate.interval.ms": "600000"}
    conversion = convert(config)
    _, plan = load(conversion)
    flush = plan.statements[0].flush
    assert (flush.count, flush.interval_ms) == (10000, 91_000)
    why = notes(conversion)
    assert "rounded up" in why["rotate.schedule.interval.ms"]
    assert "record-time rotation" in why["rotate.interval.ms"]
    assert "timezone" not in why


@pytest.mark.parametrize(("behaviour", "skip"), [("ignore", True), ("fail", False), ("write", False)])
def test_null_values(behaviour: str, skip: bool) -> None:
    config = dict(BASIC, **{"behavior.on.null.values": behaviour, "store.kafka.keys": "true"})
    conversion = convert(config)
    props, _ = load(conversion)
    assert (props.get("connect.s3.skip.null.values") == "true") is skip
    assert ("behavior.on.null.values" in notes(conversion)) is not skip


@pytest.mark.parametrize(
    ("compatibility", "detector"),
    [("NONE", None), ("BACKWARD", "version"), ("FULL", "version"), ("FORWARD", "compatibility")],
)
def test_schema_compatibility_maps_to_the_nearest_detector(compatibility: str, detector: str | None) -> None:
    conversion = convert(dict(BASIC, **{"schema.compatibility": compatibility}))
    props, _ = load(conversion)
    assert props.get("connect.s3.schema.change.detector") == detector
    assert ("schema.compatibility" in notes(conversion)) is (detector is not None)


def test_topics_regex_becomes_one_wildcard_statement_with_the_topic_as_a_partition() -> None:
    config = {key: value for key, value in BASIC.items() if key != "topics"}
    config = {**config, **TIME_BASED, "topics.regex": "ev.*", "topics.dir": ""}
    conversion = convert(config)
    props, plan = load(conversion)
    assert props["topics.regex"] == "ev.*" and "topics" not in props
    (statement,) = statements(plan)
    assert (statement.topic, statement.prefix, statement.partition_by[0]) == (None, None, "_topic")
    record = Record("events", 0, 0, TS, value={})
    assert lenses_directory(plan, record) == confluent_directory(config, record)
    assert "every topic (*)" in notes(conversion)["topics.regex"]


def test_a_topic_routing_transform_needs_the_wildcard() -> None:
    config = dict(
        BASIC,
        **{
            "transforms": "route",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "events",
            "transforms.route.replacement": "archived",
        },
    )
    conversion = convert(config)
    props, plan = load(conversion)
    assert props["transforms.route.replacement"] == "archived"
    assert statements(plan)[0].partition_by == ("_topic", "_partition")
    assert lenses_directory(plan, Record("archived", 2, 5, TS, value=1)) == "topics/archived/2"
    assert "transforms" in notes(conversion)


def test_provider_references_are_kept_and_resolved_secrets_never_printed() -> None:
    raw = dict(
        BASIC,
        **{
            "config.providers": "file",
            "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
            "aws.access.key.id": "${file:/run/creds.properties:access}",
            "aws.secret.access.key": "${file:/run/creds.properties:secret}",
            "sasl.jaas.config": "${file:/run/creds.properties:jaas}",
            "s3.bucket.name": "${file:/run/creds.properties:bucket}",
            "errors.deadletterqueue.topic.name": "${file:/run/creds.properties:dlq}",
            "errors.tolerance": "all",  # a dead-letter topic needs it
        },
    )
    resolved = dict(
        raw,
        **{
            "aws.access.key.id": "AKIARESOLVED",
            "aws.secret.access.key": SECRET,
            "sasl.jaas.config": f"org.Plain required password='{SECRET}';",
            "s3.bucket.name": "resolved-bucket",
            "errors.deadletterqueue.topic.name": "resolved-dlq",
        },
    )
    provided = frozenset(key for key, value in raw.items() if "${" in value)
    conversion = convert_confluent(raw, resolved, provided)
    text = conversion.properties_text()
    printed = text + "\n".join(conversion.note_lines())
    for value in ("AKIARESOLVED", SECRET, "resolved-bucket", "resolved-dlq"):
        assert value not in printed
    props = parse_properties(text)
    assert props["connect.s3.aws.auth.mode"] == "Credentials"
    assert props["connect.s3.aws.access.key"] == "${file:/run/creds.properties:access}"
    assert props["connect.s3.aws.secret.key"] == "${file:/run/creds.properties:secret}"
    assert props["sasl.jaas.config"] == "${file:/run/creds.properties:jaas}"
    assert props["config.providers.file.class"].endswith("FileConfigProvider")
    assert props["connect.s3.kcql"].startswith(
        "INSERT INTO `${file:/run/creds.properties:bucket}`:topics/events "
    )
    # Resolved the way the sink resolves it, the config is a valid Lenses config.
    lenses = {
        key: value.replace("${file:/run/creds.properties:bucket}", "resolved-bucket")
        for key, value in props.items()
    }
    lenses = {key: value for key, value in lenses.items() if "${" not in value}
    settings = ConnectorSettings.from_properties(
        {**lenses, "connect.s3.aws.access.key": "A", "connect.s3.aws.secret.key": "S"}
    )
    assert plan_sink(settings).statements[0].statement.bucket == "resolved-bucket"


def test_literal_credentials_are_copied_as_written() -> None:
    config = dict(BASIC, **{"aws.access.key.id": "AKIAPLAIN", "aws.secret.access.key": SECRET})
    conversion = convert(config)
    props, _ = load(conversion)
    assert (props["connect.s3.aws.access.key"], props["connect.s3.aws.secret.key"]) == ("AKIAPLAIN", SECRET)
    assert SECRET not in "\n".join(conversion.note_lines())


def test_a_rewritten_key_from_a_provider_is_refused_without_its_value() -> None:
    raw = {**BASIC, **TIME_BASED, "path.format": "${env:PATH_FORMAT}"}
    resolved = {**raw, "path.format": "'secret'=YYYY"}
    with pytest.raises(ConfigError, match="path.format comes from a config provider") as caught:
        convert_confluent(raw, resolved, frozenset({"path.format"}))
    assert "secret" not in str(caught.value).replace("config provider", "")


def test_a_provided_topic_list_becomes_the_wildcard() -> None:
    raw = dict(BASIC, topics="${env:TOPICS}")
    conversion = convert_confluent(raw, dict(raw, topics="events,hidden-topic"), frozenset({"topics"}))
    text = conversion.properties_text()
    assert "hidden-topic" not in text + "\n".join(conversion.note_lines())
    assert "topics=${env:TOPICS}" in text and "events" not in text
    assert "FROM `*`" in text


def test_kafka_client_converter_and_tuning_keys() -> None:
    config = dict(
        BASIC,
        **{
            "consumer.max.poll.records": "500",
            "security.protocol": "SASL_SSL",
            "ssl.truststore.location": "/etc/ts.jks",
            "header.converter": "org.apache.kafka.connect.storage.StringConverter",
            "s3.part.retries": "3",
            "s3.retry.backoff.ms": "200",
            "s3.ssea.name": "",
            "hive.metastore.uris": "thrift://x",
            "filename.offset.zero.pad.width": "12",
        },
    )
    conversion = convert(config)
    props, plan = load(conversion)
    for key in (
        "consumer.max.poll.records",
        "security.protocol",
        "ssl.truststore.location",
        "header.converter",
    ):
        assert props[key] == config[key]
    assert props["connect.s3.http.max.retries"] == "3"
    assert statements(plan)[0].properties["padding.length.offset"] == "12"
    why = notes(conversion)
    assert "retry" in why["s3.retry.backoff.ms"]
    assert "default" in why["s3.ssea.name"]
    assert "Hive" in why["hive.metastore.uris"]


def test_the_text_escapes_what_properties_would_swallow() -> None:
    config = dict(BASIC, **{"name": " lead#ing", "s3.bucket.name": "b", "topics.dir": "a b\\c"})
    conversion = convert(config)
    props, plan = load(conversion)
    assert props["name"] == " lead#ing"
    assert statements(plan)[0].prefix == "a b\\c/events"


def test_a_fixed_offset_zone_without_an_iana_name_falls_back_with_a_note() -> None:
    conversion = convert({**BASIC, **TIME_BASED, "timezone": "+05:30"})
    _, plan = load(conversion)
    assert statements(plan)[0].partition_by == ("_partition",)
    assert "+05:30 is not a whole number of hours" in notes(conversion)["timezone"]
