"""The Confluent S3 sink config dialect: the seed's examples validate, every refusal names its key."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from lakesink.domain.config.secret import MASK
from lakesink.domain.dialects.confluent.keys import DEFAULT_ONLY, NO_EFFECT, POLICY, USED
from lakesink.domain.dialects.confluent.naming import ConfluentFormat
from lakesink.domain.dialects.confluent.partitioners import (
    DefaultPartitioner,
    FieldPartitioner,
    TimeBasedPartitioner,
)
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from tests.support.confluent_configs import BASIC, COMPLETE, FMT, PKG
from tests.support.connect_configs import edited, refusal

SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"


def config(base: dict[str, str] = BASIC, **changes: str | None) -> ConfluentSinkConfig:
    return ConfluentSinkConfig.from_properties(edited(base, changes))


def refused(base: dict[str, str] = BASIC, **changes: str | None) -> str:
    return refusal(lambda: config(base, **changes))


def test_the_complete_example_validates_with_every_piece_resolved() -> None:
    settings = config(COMPLETE)
    assert (settings.bucket, settings.region, settings.endpoint) == (
        "analytics-data-lake",
        "us-east-1",
        "http://127.0.0.1:9000",
    )
    assert settings.path_style_access is True
    assert settings.topics == ("events", "transactions")
    assert settings.format is ConfluentFormat.PARQUET
    assert settings.extension == ".snappy.parquet"
    assert isinstance(settings.layout.partitioner, TimeBasedPartitioner)
    assert (settings.flush_size, settings.rotate_interval_ms, settings.rotate_schedule_interval_ms) == (
        50000,
        600000,
        -1,
    )
    assert settings.value_converter.class_name == "org.apache.kafka.connect.json.JsonConverter"
    assert settings.error_handling["errors.tolerance"] == "all"
    assert (settings.access_key, settings.secret_key) == (None, None)


def test_the_seed_default_field_and_time_based_examples_validate() -> None:
    default = config(partitioner__class=f"{PKG}DefaultPartitioner")
    field = config(partitioner__class=f"{PKG}FieldPartitioner", partition__field__name="region,event_type")
    time_based = config(
        partitioner__class=f"{PKG}TimeBasedPartitioner",
        path__format="'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
        locale="en-US",
        timezone="UTC",
        partition__duration__ms="3600000",
    )
    assert isinstance(default.layout.partitioner, DefaultPartitioner)
    assert isinstance(field.layout.partitioner, FieldPartitioner)
    assert field.layout.partitioner.field_names == ("region", "event_type")
    assert isinstance(time_based.layout.partitioner, TimeBasedPartitioner)


def test_confluent_defaults_apply() -> None:
    settings = config(s3__region=None)
    assert settings.region == "us-west-2"
    assert settings.endpoint is None
    assert settings.layout.topics_dir == "topics"
    assert (settings.layout.directory_delim, settings.layout.file_delim, settings.layout.zero_pad_width) == (
        "/",
        "+",
        10,
    )
    assert (settings.null_values, settings.schema_compatibility, settings.avro_codec) == (
        "fail",
        "NONE",
        "null",
    )
    assert settings.keys is None and settings.headers is None


def test_stored_keys_and_headers_carry_their_formats_and_extensions() -> None:
    settings = config(
        format__class=f"{FMT}json.JsonFormat",
        s3__compression__type="gzip",
        store__kafka__keys="true",
        store__kafka__headers="true",
        keys__format__class=f"{FMT}json.JsonFormat",
        headers__format__class=f"{FMT}json.JsonFormat",
    )
    assert settings.extension == ".json.gz"
    assert settings.keys is not None and settings.keys.extension == ".json.gz"
    assert settings.headers is not None and settings.headers.format is ConfluentFormat.JSON


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"s3.bucket": "x"}, "s3.bucket"),
        ({"s3.bucket.name": None}, "s3.bucket.name"),
        ({"flush.size": None}, "flush.size"),
        ({"flush.size": "0"}, "flush.size"),
        ({"flush.size": "ten"}, "flush.size"),
        ({"format.class": None}, "format.class"),
        ({"format.class": "io.confluent.connect.s3.format.csv.CsvFormat"}, "format.class"),
        ({"storage.class": None}, "storage.class"),
        ({"storage.class": "io.confluent.connect.hdfs.storage.HdfsStorage"}, "storage.class"),
        ({"behavior.on.null.values": "drop"}, "behavior.on.null.values"),
        ({"behavior.on.null.values": "write"}, "store.kafka.keys"),
        ({"schema.compatibility": "SOMETIMES"}, "schema.compatibility"),
        ({"s3.compression.type": "gzip"}, "s3.compression.type"),
        ({"s3.compression.type": "zstd"}, "s3.compression.type"),
        ({"s3.compression.level": "10"}, "s3.compression.level"),
        ({"parquet.codec": "lz5"}, "parquet.codec"),
        ({"avro.codec": "xz"}, "avro.codec"),
        (
            {"store.kafka.headers": "true", "headers.format.class": f"{FMT}bytearray.ByteArrayFormat"},
            "headers.format.class",
        ),
        ({"store.kafka.keys": "maybe"}, "store.kafka.keys"),
        (
            {"s3.credentials.provider.class": "com.amazonaws.auth.profile.ProfileCredentialsProvider"},
            "s3.credentials.provider.class",
        ),
        ({"s3.credentials.role.arn": "arn:aws:iam::1:role/x"}, "s3.credentials.role.arn"),
        ({"rotate.schedule.interval.ms": "3600000"}, "timezone"),
        ({"rotate.interval.ms": "soon"}, "rotate.interval.ms"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"partitioner.class": "com.example.MyPartitioner"}, "partitioner.class"),
        ({"partitioner.class": f"{PKG}FieldPartitioner"}, "partition.field.name"),
        ({"partitioner.class": f"{PKG}TimeBasedPartitioner"}, "partition.duration.ms"),
        ({"s3.ssea.name": "AES256"}, "s3.ssea.name"),
        ({"s3.acl.canned": "bucket-owner-full-control"}, "s3.acl.canned"),
        ({"s3.object.tagging": "true"}, "s3.object.tagging"),
        ({"s3.wan.mode": "true"}, "s3.wan.mode"),
        ({"hive.integration": "true"}, "hive.integration"),
        ({"s3.part.size": "1024"}, "s3.part.size"),
        ({"tasks.max": "0"}, "tasks.max"),
        ({"topics.regex": "ev.*"}, "topics.regex"),
        ({"topics": None}, "topics"),
        ({"aws.access.key.id": "AKIAEXAMPLE"}, "aws.secret.access.key"),
        ({"errors.tolerance": "some"}, "errors.tolerance"),
        ({"filename.offset.zero.pad.width": "0"}, "filename.offset.zero.pad.width"),
        ({"transforms": "t", "transforms.t.type": "com.example.Nope"}, "transforms.t.type"),
    ],
)
def test_each_refusal_is_one_line_naming_its_key(changes: dict[str, str | None], key: str) -> None:
    assert key in refused(**changes)


def test_gzip_with_avro_keys_names_keys_format_class() -> None:
    message = refused(
        format__class=f"{FMT}json.JsonFormat", s3__compression__type="gzip", store__kafka__keys="true"
    )
    assert "keys.format.class" in message and "Compression Type gzip" in message


def test_accepted_without_effect_keys_validate() -> None:
    settings = config(
        s3__part__retries="5",
        s3__retry__backoff__ms="100",
        s3__part__size="5242880",
        enable__conditional__writes="true",
        s3__ssea__name="",
        s3__object__tagging="false",
    )
    assert settings.flush_size == 10000


def test_secrets_never_show_in_errors() -> None:
    message = refused(s3__sse__customer__key=SECRET)
    assert SECRET not in message and MASK in message
    message = refused(s3__proxy__password=SECRET)
    assert SECRET not in message


def test_the_config_pickles_for_spark_executors() -> None:
    settings = config(COMPLETE, aws__access__key__id="AKIAEXAMPLEACCESS", aws__secret__access__key=SECRET)
    assert pickle.loads(pickle.dumps(settings)) == settings


def test_every_key_table_entry_has_one_class() -> None:
    assert (
        not (USED & set(NO_EFFECT))
        and not (USED & set(DEFAULT_ONLY))
        and not (set(NO_EFFECT) & set(DEFAULT_ONLY))
    )
    assert POLICY.key_class("value.converter.schema.registry.url") == "used"
    assert POLICY.key_class("errors.deadletterqueue.topic.name") == "held"
    assert POLICY.key_class("s3.part.size") == "no effect"
    assert POLICY.key_class("s3.ssea.name") == "default only"
    assert POLICY.key_class("s3.bucket") is None


def test_docs_dialects_lists_every_key_of_the_table() -> None:
    text = (Path(__file__).parents[4] / "docs" / "dialects.md").read_text(encoding="utf-8")
    missing = sorted(key for key in (*USED, *NO_EFFECT, *DEFAULT_ONLY) if f"`{key}" not in text)
    assert missing == []
