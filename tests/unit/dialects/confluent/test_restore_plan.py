"""A Confluent S3 sink config as a restore config: the plan restoring what that sink wrote."""

from __future__ import annotations

import pytest

from lakesink.application.restore import load_plan
from lakesink.domain.config.backends import S3Settings
from lakesink.domain.dialects.confluent.restore_keys import StoredViewFile
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.restore.plan import PartitionMode
from tests.support.confluent_configs import COMPLETE, FMT


def test_the_complete_example_restores_its_topics_from_its_bucket() -> None:
    plan = load_plan({**COMPLETE, "producer.linger.ms": "20"})
    (root,) = plan.roots
    layout = root.layout
    assert layout is not None
    assert (root.bucket, root.list_prefix, root.topic, root.format) == (
        "analytics-data-lake",
        "topics/",
        None,
        Format.PARQUET,
    )
    assert (layout.extension, layout.topics, layout.keys, layout.headers) == (
        ".snappy.parquet",
        ("events", "transactions"),
        None,
        None,
    )
    assert isinstance(plan.storage, S3Settings)
    assert (plan.storage.region, plan.storage.custom_endpoint, plan.storage.path_style_access) == (
        "us-east-1",
        "http://127.0.0.1:9000",
        True,
    )
    assert plan.storage.auth_mode == "Default"
    assert plan.partition_rule.mode == PartitionMode.LAYOUT
    assert (plan.tolerate_errors, plan.parallelism, plan.name) == (True, 6, "events-to-s3")
    assert plan.producer["bootstrap.servers"] == "127.0.0.1:9092" and plan.producer["linger.ms"] == "20"
    assert (
        layout.parse("topics/events/year=2024/month=05/day=08/hour=23/events+4+0000000100.snappy.parquet")
        is not None
    )
    assert (
        layout.parse("topics/other/year=2024/month=05/day=08/hour=23/other+4+0000000100.snappy.parquet")
        is None
    )


def test_gzip_json_with_stored_keys_and_headers() -> None:
    props = {
        **COMPLETE,
        "format.class": f"{FMT}json.JsonFormat",
        "s3.compression.type": "gzip",
        "store.kafka.keys": "true",
        "keys.format.class": f"{FMT}json.JsonFormat",
        "store.kafka.headers": "true",
        "headers.format.class": f"{FMT}json.JsonFormat",
        "topics.dir": "",
        "directory.delim": "|",
        "file.delim": "-",
        "filename.offset.zero.pad.width": "4",
        "aws.access.key.id": "AKIA",
        "aws.secret.access.key": "very-secret",
    }
    props.pop("parquet.codec")
    plan = load_plan(props)
    root = plan.roots[0]
    layout = root.layout
    assert layout is not None and root.compression == "gzip" and root.list_prefix == ""
    assert layout.keys == StoredViewFile(Format.JSON, ".json.gz", "gzip")
    assert layout.headers == StoredViewFile(Format.JSON, ".json.gz", "gzip")
    assert (layout.directory_delim, layout.file_delim, layout.zero_pad_width) == ("|", "-", 4)
    assert root.companions("events|partition=0|events-0-0042.json.gz") == (
        ("keys", "events|partition=0|events-0-0042.keys.json.gz"),
        ("headers", "events|partition=0|events-0-0042.headers.json.gz"),
    )
    assert isinstance(plan.storage, S3Settings) and plan.storage.auth_mode == "Credentials"
    assert "very-secret" not in repr(plan)


def test_bytearray_records_are_split_at_the_separator() -> None:
    props = {**COMPLETE, "format.class": f"{FMT}bytearray.ByteArrayFormat"}
    props.pop("parquet.codec")
    assert load_plan(props).roots[0].record_separator == b"\n"
    assert load_plan({**props, "format.bytearray.separator": "\r\n"}).roots[0].record_separator == b"\r\n"
    assert load_plan({**props, "format.bytearray.extension": ".raw"}).roots[0].layout.extension == ".raw"  # type: ignore[union-attr]
    with pytest.raises(ConfigError, match="format.bytearray.separator is empty"):
        load_plan({**props, "format.bytearray.separator": ""})
    assert load_plan(COMPLETE).roots[0].record_separator is None


def test_what_the_sink_validation_refuses_is_refused_and_the_brokers_are_required() -> None:
    with pytest.raises(ConfigError, match="Unknown Confluent S3 sink setting connect.s3.kcql"):
        load_plan({**COMPLETE, "connect.s3.kcql": "INSERT INTO x SELECT * FROM y"})
    with pytest.raises(ConfigError, match="bootstrap.servers is required"):
        load_plan({k: v for k, v in COMPLETE.items() if k != "bootstrap.servers"})
    regex = {k: v for k, v in COMPLETE.items() if k != "topics"}
    with pytest.raises(ConfigError, match="topics.regex"):
        load_plan({**regex, "topics.regex": "ev(ents"})
    layout = load_plan({**regex, "topics.regex": "ev.*"}).roots[0].layout
    assert (
        layout is not None
        and layout.topics_regex == "ev.*"
        and layout.selects("events")
        and not layout.selects("transactions")
    )
