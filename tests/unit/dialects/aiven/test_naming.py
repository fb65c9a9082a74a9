"""Aiven S3 sink object keys and grouping, against cases derived from Aiven's code and tests.

Aiven test names are cited per case (``commons/src/test/.../grouper/*Test``,
``s3-sink-connector/src/test/.../S3SinkTaskTest``); the code paths are ``FileNameFragment#getFilename``,
``S3SinkTask#oldFullKey``, ``RecordGrouperFactory`` and the groupers' ``generateRecordKey``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from lakesink.domain.dialects.aiven.naming import AivenGrouping, AivenNaming, grouping_for, key_text
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.records import Record

#: 2024-05-09T03:17:33Z.
TS = 1715224653000
HOUR = 3_600_000


def naming(**settings: str) -> AivenNaming:
    return AivenNaming.from_settings({key.replace("__", "."): value for key, value in settings.items()})


def record(topic: str = "topic0", partition: int = 0, offset: int = 0, **fields: object) -> Record:
    return Record(topic=topic, partition=partition, offset=offset, **fields)  # type: ignore[arg-type]


def key_of(names: AivenNaming, rec: Record, now_ms: int = TS) -> str:
    """The key of the file ``rec`` starts."""
    return names.object_key(names.file_name(rec, rec, now_ms), rec, now_ms)


@pytest.mark.parametrize(
    ("rec", "expected"),
    # TopicPartitionRecordGrouperTest#unlimited: topic0-0-0, topic0-1-10, topic1-1-1000.
    [(record(), "topic0-0-0"), (record(partition=1, offset=10), "topic0-1-10"), (record("topic1", 1, 1000), "topic1-1-1000")],
)
def test_the_default_template_names_files_by_topic_partition_and_start_offset(rec: Record, expected: str) -> None:
    names = naming()
    assert names.grouping is AivenGrouping.TOPIC_PARTITION
    assert key_of(names, rec) == expected


@pytest.mark.parametrize(
    ("settings", "suffix"),
    [
        # FileNameFragment#getFilename: no extension without file.compression.type, even though
        # S3SinkConfig#getCompressionType gzips the contents.
        ({}, ""),
        ({"file.compression.type": "gzip"}, ".gz"),
        ({"file.compression.type": "ZSTD"}, ".zst"),
        ({"file.compression.type": "snappy"}, ".snappy"),
        ({"output_compression": "gzip"}, ""),
        ({"format.output.type": "avro"}, ".avro"),
        ({"format.output.type": "avro", "file.compression.type": "gzip"}, ".avro.gz"),
        ({"format.output.type": "parquet", "file.compression.type": "gzip"}, ".gz"),
        ({"format.output.type": "jsonl", "file.compression.type": "none"}, ""),
    ],
)
def test_the_default_template_carries_avro_and_the_set_compression_extension(
    settings: dict[str, str], suffix: str
) -> None:
    names = AivenNaming.from_settings(settings)
    assert key_of(names, record(offset=7)) == f"topic0-0-7{suffix}"


def test_a_given_template_gets_no_extension() -> None:
    names = naming(file__name__template="{{topic}}/{{partition}}/{{start_offset}}", file__compression__type="gzip")
    assert key_of(names, record("t", 3, 42)) == "t/3/42"


def test_padding_gives_ten_and_twenty_digits() -> None:
    # TopicPartitionRecordGrouperTest#setZeroPaddingForKafkaOffset / #setZeroPaddingForKafkaPartition.
    offset = naming(file__name__template="{{topic}}-{{partition}}-{{start_offset:padding=true}}")
    assert key_of(offset, record(offset=4)) == "topic0-0-00000000000000000004"
    partition = naming(file__name__template="{{topic}}-{{partition:padding=true}}-{{start_offset}}")
    assert key_of(partition, record("topic1", 1, 1000)) == "topic1-0000000001-1000"
    # S3's Boolean.parseBoolean: any case of true pads, false does not.
    upper = naming(file__name__template="{{topic}}-{{partition:padding=TRUE}}-{{start_offset:padding=false}}")
    assert key_of(upper, record(offset=4)) == "topic0-0000000000-4"


def test_partition_and_start_offset_come_from_the_head_record_and_the_time_from_the_current_one() -> None:
    # TopicPartitionRecordGrouperTest#rotateKeysHourly: crossing an hour gives a second file with
    # the same start offset (topic0-0-1-<first hour>, topic0-0-1-<second hour>).
    names = naming(
        file__name__template="{{topic}}-{{partition}}-{{start_offset}}-{{timestamp:unit=yyyy}}{{timestamp:unit=MM}}"
        "{{timestamp:unit=dd}}{{timestamp:unit=HH}}",
        file__name__timestamp__source="event",
    )
    head = record(offset=1, timestamp=TS)
    later = record(offset=4, timestamp=TS + HOUR)
    assert names.file_name(head, head, 0) == "topic0-0-1-2024050903"
    assert names.file_name(head, later, 0) == "topic0-0-1-2024050904"
    assert names.object_key(names.file_name(head, later, 0), later, 0) == "topic0-0-1-2024050904"


def test_timestamps_use_the_timezone_and_the_wall_clock_by_default() -> None:
    template = "{{timestamp:unit=yyyy}}-{{timestamp:unit=MM}}-{{timestamp:unit=dd}}T{{timestamp:unit=HH}}/{{topic}}-{{partition}}-{{start_offset}}"
    wall = naming(file__name__template=template, file__name__timestamp__timezone="Asia/Kolkata")
    assert wall.reads_clock
    assert key_of(wall, record(timestamp=0), now_ms=TS) == "2024-05-09T08/topic0-0-0"
    event = naming(
        file__name__template=template, file__name__timestamp__source="EVENT", file__name__timestamp__timezone="America/Santiago"
    )
    assert not event.reads_clock
    assert key_of(event, record(timestamp=TS), now_ms=0) == "2024-05-08T23/topic0-0-0"
    with pytest.raises(RecordError):
        key_of(event, record())


def test_the_deprecated_uppercase_year_is_read_as_yyyy() -> None:
    # S3CommonConfig#handleDeprecatedYyyyUppercase.
    names = naming(file__name__template="{{ timestamp:unit=YYYY }}/{{topic}}-{{partition}}-{{start_offset}}")
    assert key_of(names, record(), now_ms=TS) == "2024/topic0-0-0"


@pytest.mark.parametrize(
    ("template", "grouping"),
    # RecordGrouperFactoryTest#topicPartition, #topicPartitionAndKey, #keyOnly, #keyAndTopicPartition.
    [
        ("{{topic}}/{{partition}}/{{start_offset}}", AivenGrouping.TOPIC_PARTITION),
        ("{{topic}}/{{partition}}/{{key}}/{{start_offset}}", AivenGrouping.TOPIC_PARTITION_KEY),
        ("{{key}}", AivenGrouping.KEY),
        ("{{topic}}/{{partition}}/{{key}}", AivenGrouping.KEY_TOPIC_PARTITION),
        ("{{topic}}-{{key}}", AivenGrouping.KEY_TOPIC_PARTITION),
    ],
)
def test_the_template_decides_the_grouping(template: str, grouping: AivenGrouping) -> None:
    names = naming(file__name__template=template)
    assert names.grouping is grouping
    assert names.grouping.by_key is (grouping in (AivenGrouping.KEY, AivenGrouping.KEY_TOPIC_PARTITION))


def test_grouping_keeps_aivens_intersect_quirk() -> None:
    # RecordGrouperFactory#isByTopicPartitionRecord: the rest must intersect the optional
    # variables, not be a subset of them.
    variables = frozenset({"topic", "partition", "start_offset", "timestamp", "foo"})
    assert grouping_for("t", variables) is AivenGrouping.TOPIC_PARTITION


def test_key_grouping_renders_keys_as_aiven_does() -> None:
    # KeyRecordGrouperTest#eachKeyInSinglePartition; KeyAndTopicPartitionRecordGrouperTest#templateIncludesTopicPaddedPartition.
    assert key_of(naming(file__name__template="{{key}}"), record(key="A")) == "A"
    padded = naming(file__name__template="{{topic}}-{{partition:padding=true}}-{{key}}")
    assert key_of(padded, record(partition=1, key="B")) == "topic0-0000000001-B"
    assert key_of(padded, record(key=None)) == "topic0-0000000000-null"
    # No escaping: a "/" in a key makes directories.
    assert key_of(naming(file__name__template="{{key}}"), record(key="a/b")) == "a/b"
    assert naming(file__name__template="{{key}}", file__max__records="1").max_records == 1


def test_key_text_follows_javas_to_string_where_it_is_reproducible() -> None:
    assert key_text(record(key=42)) == "42"
    assert key_text(record(key=True)) == "true"
    assert key_text(record(key=b"user-1")) == "user-1"  # deliberate: Java prints [B@<hash>
    with pytest.raises(RecordError):
        key_text(record(key=b"\xff\xfe"))
    with pytest.raises(RecordError):
        key_text(record(key={"id": 1}))


def test_topic_partition_key_grouping_starts_files_per_key() -> None:
    names = naming(file__name__template="{{topic}}-{{partition}}-{{key}}-{{start_offset}}", format__output__type="avro")
    assert names.grouping is AivenGrouping.TOPIC_PARTITION_KEY and names.schema_rotation
    assert key_of(names, record(offset=9, key="k")) == "topic0-0-k-9"


@pytest.mark.parametrize(
    ("compression", "extension"),
    [(None, ".gz"), ("none", ""), ("gzip", ".gz"), ("snappy", ".snappy"), ("zstd", ".zst")],
)
def test_the_prefix_replaces_the_template_in_the_key(compression: str | None, extension: str) -> None:
    # S3SinkTaskTest#testAivenKafkaConnectS3SinkTask / #testS3ConstantPrefix:
    # "aiven--test-topic-0-00000000000000000000" + compressionType.extension(); no compression
    # key means gzip (S3SinkConfig#getCompressionType).
    settings = {"aws_s3_prefix": "aiven--", "file.name.template": "{{topic}}/{{partition}}/{{start_offset}}"}
    if compression is not None:
        settings["file.compression.type"] = compression
    names = AivenNaming.from_settings(settings)
    assert names.grouping is AivenGrouping.TOPIC_PARTITION
    assert key_of(names, record("test-topic")) == f"aiven--test-topic-0-00000000000000000000{extension}"
    assert key_of(names, record("test-topic", offset=100)) == f"aiven--test-topic-0-00000000000000000100{extension}"
    # The template only groups: a file cut by file.max.records or a timestamp change is named by
    # its own first record (S3SinkTask#flushFile's records.get(0)), not the grouper's head.
    assert names.file_name(record("test-topic"), record("test-topic", offset=5), TS) == "test-topic/0/0"
    assert names.object_key("test-topic/0/0", record("test-topic", offset=5), TS).endswith("-00000000000000000005" + extension)


def test_prefix_variables_render_from_the_head_record_and_the_clock() -> None:
    # S3SinkTaskTest#testS3UtcDatePrefix / #testS3LocalDatePrefix: "prefix-{{ utc_date }}--".
    names = naming(aws__s3__prefix="prefix-{{ utc_date }}--", format__output__type="avro")
    assert names.reads_clock
    assert key_of(names, record("test-topic"), now_ms=TS) == "prefix-2024-05-09--test-topic-0-00000000000000000000.avro.gz"
    local = naming(aws__s3__prefix="{{local_date}}/")
    honolulu = timezone(timedelta(hours=-10))
    assert local.object_key("ignored", record(), TS, local_zone=honolulu) == "2024-05-08/topic0-0-00000000000000000000.gz"
    parts = naming(
        aws__s3__prefix="{{topic}}/{{partition}}/{{start_offset:padding=true}}/{{timestamp:unit=HH}}/",
        timestamp__source="event",
        timestamp__timezone="Europe/Helsinki",
        file__compression__type="none",
    )
    rec = record("t", 3, 42, timestamp=TS)
    assert key_of(parts, rec, now_ms=0) == "t/3/00000000000000000042/06/t-3-00000000000000000042"


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"file.name.template": "{{topic}}-{{start_offset}}"}, "unsupported set of template variables, supported sets are: topic,partition,start_offset,timestamp; topic,partition,key,start_offset,timestamp; key; key,topic,partition"),
        ({"file.name.template": "static-name"}, "RecordGrouper requires that the template [static-name] has variables defined"),
        ({"file.name.template": "{{topic}}-{{partition}}-{{start_offset}}-{{foo}}"}, "unsupported set of template variables"),
        ({"file.name.template": "{{topic}}-{{partition}}-{{start_offset}}-{{timestamp}}"}, "parameter unit is required for the the variable timestamp, supported values are: yyyy|MM|dd|HH"),
        ({"file.name.template": "{{topic}}-{{partition}}-{{start_offset}}-{{timestamp:unit=yy}}"}, "unsupported set of template variables parameters, supported sets are: partition:padding=true|false,start_offset:padding=true|false,timestamp:unit=yyyy|MM|dd|HH"),
        ({"file.name.template": "{{topic}}-{{partition:padding=yes}}-{{start_offset}}"}, "unsupported set of template variables parameters"),
        ({"file.name.template": "{{topic}}-{{partition}}-{{start_offset:pad=true}}"}, "unsupported set of template variables parameters"),
        ({"file.name.template": "{{topic}}-{{partition}}-{{start_offset:}}"}, "Wrong variable with parameter definition"),
        ({"file.name.template": "{{ }}-{{topic}}"}, "Variable name hasn't been set for template: {{ }}-{{topic}}"),
        ({"file.name.template": "{{key}}-{{topic}}-{{start_offset}}"}, "{{start_offset}} is not filled in when records are grouped by key-topic-partition"),
        ({"file.name.template": "{{key}}-{{partition}}-{{timestamp:unit=HH}}"}, "{{timestamp}} is not filled in"),
        ({"aws.s3.prefix": "{{key}}/"}, "{{key}} is not a prefix variable"),
        ({"aws.s3.prefix": "{{timestamp}}/"}, "parameter unit is required"),
        ({"aws.s3.prefix": "{{partition:padding=true}}/"}, "takes no parameter in the prefix"),
        ({"file.max.records": "x"}, "Invalid value 'x' for configuration file.max.records"),
    ],
)
def test_template_refusals_keep_aivens_words(settings: dict[str, str], expected: str) -> None:
    with pytest.raises(ConfigError) as error:
        AivenNaming.from_settings(settings)
    assert expected in str(error.value)
    assert "\n" not in str(error.value)


def test_grouping_describes_itself_for_explain() -> None:
    assert "latest record" in AivenGrouping.KEY.describe()
    assert "per topic-partition and key" in AivenGrouping.TOPIC_PARTITION_KEY.describe()
    assert datetime(2024, 5, 9, 3, 17, 33, tzinfo=UTC).timestamp() * 1000 == TS
