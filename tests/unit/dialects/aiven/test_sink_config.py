"""The Aiven S3 sink config dialect: seed 003's examples validate, every refusal is one line naming its key.

Expected values and messages follow Aiven's code (reference §A.4–A.9): ``S3SinkConfig``,
``S3ConfigFragment``, ``FileNameFragment``, ``OutputFormatFragment`` and their validators.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from lakesink.domain.dialects.aiven.keys import DEFAULT_ONLY, LEGACY, NO_EFFECT, POLICY, REJECTED, USED
from lakesink.domain.dialects.aiven.naming import AivenCompression, AivenFormat, AivenGrouping
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig, OutputField
from tests.support.aiven_configs import CONSOLE, CONSOLE_WITH_AWS, CURL
from tests.support.connect_configs import edited, refusal

SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"


def config(base: dict[str, str] = CONSOLE_WITH_AWS, **changes: str | None) -> AivenSinkConfig:
    return AivenSinkConfig.from_properties(edited(base, changes))


def refused(base: dict[str, str] = CONSOLE_WITH_AWS, **changes: str | None) -> str:
    return refusal(lambda: config(base, **changes))


def test_the_curl_example_validates_with_its_prefix_fields_and_gzip() -> None:
    settings = config(CURL)
    assert AivenSinkConfig.matches(CURL)
    assert settings.name == "example-s3-sink"
    assert settings.topics == ("source_topic", "another_topic")
    assert (settings.bucket, settings.region, settings.endpoint) == ("aiven-example", "us-east-1", None)
    assert settings.compression is AivenCompression.GZIP
    # OutputFormatFragment#getOutputFields: the encoding (base64 by default) applies to key and value.
    assert settings.output_fields == (
        OutputField("value", "base64"),
        OutputField("key", "base64"),
        OutputField("timestamp", "none"),
    )
    assert settings.naming.prefix == "example-s3-sink/"
    assert settings.naming.grouping is AivenGrouping.TOPIC_PARTITION
    assert settings.storage.auth_mode == "Credentials"


def test_the_console_example_needs_the_bucket_of_its_aws_fields() -> None:
    # S3ConfigFragment#validateBucket's message.
    assert refused(CONSOLE) == "Neither aws.s3.bucket.name nor aws_s3_bucket properties have been set"


def test_the_console_example_with_its_aws_fields_gets_aivens_defaults() -> None:
    settings = config()
    assert settings.region == "eu-west-1"
    assert settings.format is AivenFormat.CSV
    # S3SinkConfig#getCompressionType: gzip when no compression key is set...
    assert settings.compression is AivenCompression.GZIP
    # ...while FileNameFragment#getFilename adds an extension only for a set file.compression.type.
    assert settings.naming.template == "{{topic}}-{{partition}}-{{start_offset}}"
    # S3SinkConfig#getOutputFields: unset fields are value in base64.
    assert settings.output_fields == (OutputField("value", "base64"),)
    assert settings.envelope is True
    assert settings.naming.timestamps.kind == "wallclock" and settings.naming.timestamps.zone.id == "UTC"
    assert settings.parquet_codec is AivenCompression.NONE
    assert settings.http_max_retries == 3


def test_region_defaults_to_us_east_1_and_an_endpoint_gets_https_and_path_style() -> None:
    settings = config(aws__s3__region=None, aws__s3__endpoint="minio.local:9000")
    assert settings.region == "us-east-1"
    assert settings.endpoint == "https://minio.local:9000"
    assert settings.storage.path_style_access is True


def test_legacy_names_are_read_and_the_new_name_wins() -> None:
    props = {k: v for k, v in CONSOLE_WITH_AWS.items() if k != "aws.s3.bucket.name"}
    settings = config(props, aws_s3_bucket="legacy-bucket", aws_s3_region="eu-north-1", output_fields="key,value")
    assert (settings.bucket, settings.region) == ("legacy-bucket", "eu-west-1")
    assert [item.name for item in settings.output_fields] == ["key", "value"]
    assert config(aws_s3_bucket="legacy-bucket").bucket == "aiven-example"
    # output_compression sets the contents' compression, not the default file name's extension.
    legacy = config(output_compression="zstd")
    assert legacy.compression is AivenCompression.ZSTD
    assert legacy.naming.template == "{{topic}}-{{partition}}-{{start_offset}}"


def test_parquet_takes_its_codec_from_file_compression_type_only() -> None:
    settings = config(format__output__type="PARQUET", file__compression__type="snappy")
    assert settings.format is AivenFormat.PARQUET and settings.parquet_codec is AivenCompression.SNAPPY
    assert config(format__output__type="parquet").parquet_codec is AivenCompression.NONE


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"format.output.type": "xml"}, "Invalid value xml for configuration format.output.type: 'csv', 'json', 'jsonl', 'parquet', 'avro'"),
        ({"file.compression.type": "lz4"}, "Invalid value lz4 for configuration file.compression.type: 'none', 'gzip', 'snappy', 'zstd'"),
        ({"format.output.fields": "value,size"}, "Invalid value [value, size] for configuration format.output.fields: supported values are: 'key', 'value', 'offset', 'timestamp', 'headers'"),
        ({"format.output.fields": ""}, "Invalid value [] for configuration format.output.fields: cannot be empty"),
        ({"format.output.fields.value.encoding": "hex"}, "Invalid value hex for configuration format.output.fields.value.encoding: supported values are: 'none', 'base64'"),
        ({"format.output.fields": "key,value", "format.output.envelope": "false"}, "When format.output.envelope is false, format.output.fields must contain only one field"),
        ({"format.output.envelope": "false"}, "When format.output.envelope is false, format.output.fields must contain only one field"),
        ({"file.name.template": "{{key}}", "file.max.records": "2"}, "When file.name.template is {{key}}, file.max.records must be either 1 or not set"),
        ({"aws.s3.part.size.bytes": "0"}, "Invalid value 0 for configuration aws.s3.part.size.bytes: Part size must be greater than 0"),
        ({"aws.s3.backoff.max.retries": "31"}, "Invalid value 31 for configuration aws.s3.backoff.max.retries: Value must be no more than 30"),
        ({"file.name.timestamp.source": "kafka"}, "Invalid value kafka for configuration file.name.timestamp.source: Unknown timestamp source: kafka"),
        ({"file.name.timestamp.timezone": "Mars/Olympus"}, "Invalid value Mars/Olympus for configuration file.name.timestamp.timezone: Unknown time-zone ID: Mars/Olympus"),
        ({"aws.s3.prefix": ""}, "Invalid value  for configuration aws.s3.prefix: String must be non-empty"),
    ],
)
def test_aivens_own_refusals_keep_aivens_words(changes: dict[str, str], expected: str) -> None:
    assert refused(dict(CONSOLE_WITH_AWS, **changes)) == expected


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"aws.s3.bucket": "b"}, "aws.s3.bucket"),
        ({"aws.s3.bucket.name": "Not_A_Bucket"}, "aws.s3.bucket.name"),
        ({"aws.s3.bucket.name": "10.1.2.3"}, "aws.s3.bucket.name"),
        ({"aws.s3.region": "mars-1"}, "aws.s3.region"),
        ({"aws.s3.endpoint": "http://bad host"}, "aws.s3.endpoint"),
        ({"aws.secret.access.key": None}, "aws.secret.access.key"),
        ({"aws.access.key.id": " "}, "aws.access.key.id"),
        ({"aws.s3.sse.algorithm": "AES256"}, "aws.s3.sse.algorithm"),
        ({"aws.sts.role.arn": "arn:aws:iam::1:role/x"}, "aws.sts.role.arn"),
        ({"aws.credentials.provider": "com.example.Provider"}, "aws.credentials.provider"),
        ({"file.name.prefix": "dir/"}, "file.name.prefix"),
        ({"aws_access_key_id": "AKIA"}, "aws_access_key_id"),
        ({"connect.parquet.page.size": "1"}, "connect.parquet.page.size"),
        ({"topics.regex": "a.*"}, "topics.regex"),
        ({"topics": None}, "topics.regex"),
        ({"errors.tolerance": "some"}, "errors.tolerance"),
        ({"avro.codec": "lz4"}, "avro.codec"),
        ({"file.max.records": "-1"}, "file.max.records"),
        ({"tasks.max": "0"}, "tasks.max"),
        ({"name": None}, "name"),
        ({"transforms": "t", "transforms.t.type": "com.example.Nope"}, "transforms.t.type"),
        ({"file.name.template": "{{topic}}-{{start_offset}}"}, "file.name.template"),
    ],
)
def test_each_refusal_is_one_line_naming_its_key(changes: dict[str, str | None], key: str) -> None:
    assert key in refused(**changes)


def test_an_unknown_key_gets_a_did_you_mean() -> None:
    assert refused(aws__s3__bucket="x") == "Unknown Aiven S3 sink setting aws.s3.bucket (did you mean aws.s3.bucket.name?)."
    assert "did you mean file.name.template?" in refused(file__name__templte="{{key}}")


def test_rejected_keys_say_what_to_use_instead() -> None:
    assert "use aws.access.key.id" in refused(aws_access_key_id="AKIA")
    assert "file.name.template" in refused(file__name__prefix="dir/")


def test_accepted_without_effect_and_default_only_keys_validate() -> None:
    settings = config(
        tasks__max="4",
        aws__s3__part__size__bytes="52428800",
        aws__s3__backoff__delay__ms="200",
        aws__s3__backoff__max__delay__ms="30000",
        kafka__retry__backoff__ms="1000",
        file__prefix__template="ignored/",
        aws__credentials__provider="com.amazonaws.auth.DefaultAWSCredentialsProviderChain",
        aws__sts__role__session__duration="3600",
        aws__sts__config__endpoint="https://sts.amazonaws.com",
        errors__tolerance="all",
        errors__log__enable="true",
    )
    assert settings.error_handling == {"errors.tolerance": "all", "errors.log.enable": "true"}


def test_secrets_never_show_in_errors() -> None:
    assert SECRET not in refused(aws__secret__access__key=SECRET, aws__access__key__id=None)
    assert SECRET not in refused(aws_secret_access_key=SECRET)


def test_the_config_pickles_for_spark_executors() -> None:
    settings = config(CURL, file__name__timestamp__timezone="Europe/Helsinki")
    assert pickle.loads(pickle.dumps(settings)) == settings


def test_every_key_table_entry_has_one_class() -> None:
    tables = [USED, set(LEGACY), set(NO_EFFECT), set(DEFAULT_ONLY), set(REJECTED)]
    assert sum(len(table) for table in tables) == len(set().union(*tables))
    assert POLICY.key_class("value.converter.schemas.enable") == "used"
    assert POLICY.key_class("consumer.override.max.poll.records") == "used"
    assert POLICY.key_class("aws_s3_prefix") == "used"
    assert POLICY.key_class("errors.deadletterqueue.topic.name") == "held"
    assert POLICY.key_class("aws.s3.part.size.bytes") == "no effect"
    assert POLICY.key_class("aws.sts.role.arn") == "default only"
    assert POLICY.key_class("file.name.prefix") == "rejected"
    assert POLICY.key_class("connect.parquet.block.size") == "rejected"
    assert POLICY.key_class("aws.s3.bucket") is None


def test_docs_dialects_lists_every_key_of_the_table() -> None:
    text = (Path(__file__).parents[4] / "docs" / "dialects.md").read_text(encoding="utf-8")
    section = text[text.index("## Aiven S3 sink") :]
    missing = sorted(
        key for key in (*USED, *LEGACY, *NO_EFFECT, *DEFAULT_ONLY, *REJECTED) if f"`{key}" not in section
    )
    assert missing == []
