"""Confluent S3 sink keys parsed back (anchored), and a partition's files ordered by start offset."""

from __future__ import annotations

import pytest

from lakesink.domain.config.backends import S3Settings
from lakesink.domain.dialects.confluent.naming import RecordView, view_object_key
from lakesink.domain.dialects.confluent.restore_keys import ConfluentLayout, StoredViewFile
from lakesink.domain.formats import Format
from lakesink.domain.restore.index import classify, group_work
from lakesink.domain.restore.parsed_key import ParsedKey
from lakesink.domain.restore.plan import RestorePlan, RestoreRoot

DEFAULT = ConfluentLayout("topics", "/", "+", 10, ".avro")


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("topics/orders/partition=3/orders+3+0000000042.avro", ParsedKey("orders", 3, 42)),
        ("topics/orders/partition=0/orders+0+0000000000.avro", ParsedKey("orders", 0, 0)),
        # longer offsets are written whole
        ("topics/orders/partition=1/orders+1+12345678901.avro", ParsedKey("orders", 1, 12345678901)),
        # several encoded-partition segments (FieldPartitioner, TimeBasedPartitioner)
        ("topics/orders/region=eu/tier=1/orders+2+0000000007.avro", ParsedKey("orders", 2, 7)),
        (
            "topics/orders/year=2024/month=05/day=08/hour=23/orders+0+0000000100.avro",
            ParsedKey("orders", 0, 100),
        ),
        # topics with '.', '-' and '_'
        (
            "topics/app.v1.events/partition=0/app.v1.events+0+0000000005.avro",
            ParsedKey("app.v1.events", 0, 5),
        ),
        ("topics/my-topic_2/partition=9/my-topic_2+9+0000000005.avro", ParsedKey("my-topic_2", 9, 5)),
    ],
)
def test_keys_of_the_default_layout_parse(key: str, expected: ParsedKey) -> None:
    assert DEFAULT.parse(key) == expected


@pytest.mark.parametrize(
    "key",
    [
        "topics/orders/partition=3/orders+3+0000000042.keys.avro",  # a stored-keys sibling
        "topics/orders/partition=3/orders+3+0000000042.headers.avro",  # a stored-headers sibling
        "topics/orders/partition=3/orders+3+0000000042.json",  # another format's extension
        "topics/orders/partition=3/orders+3+0000000042.avro.tmp",  # anchored at the end
        "backup/topics/orders/partition=3/orders+3+0000000042.avro",  # anchored at the start
        "other/orders/partition=3/orders+3+0000000042.avro",  # another topics.dir
        "topics/orders/partition=3/clicks+3+0000000042.avro",  # name topic differs from the folder
        "topics/orders/orders+3+0000000042.avro",  # no encoded partition
        "topics/orders//orders+3+0000000042.avro",  # an empty encoded partition
        "topics/orders/partition=3/orders+3+42.avro",  # not padded to 10 digits
        "topics/orders/partition=3/orders+3+00000000042.avro",  # padded beyond the width
        "topics/orders/partition=3/orders+03+0000000042.avro",  # Java prints no leading zero
        "topics/orders/partition=3/orders-3-0000000042.avro",  # another file.delim
        "topics/or+ders/partition=3/or+ders+3+0000000042.avro",  # not a legal Kafka topic name
        "topics/../partition=3/..+3+0000000042.avro",
        "topics/orders/partition=3/sub/orders+3+0000000042.avro/x",
    ],
)
def test_keys_off_the_layout_do_not_parse(key: str) -> None:
    assert DEFAULT.parse(key) is None


def test_custom_delimiters_padding_and_a_topic_containing_the_file_delimiter() -> None:
    layout = ConfluentLayout("backups|s3", "|", "-", 4, ".json.gz")
    assert layout.list_prefix == "backups|s3|"
    assert layout.parse("backups|s3|my-topic|region=eu|tier=1|my-topic-12-0042.json.gz") == ParsedKey(
        "my-topic", 12, 42
    )
    assert layout.parse("backups|s3|my-topic|region=eu|my-topic-12-123456.json.gz") == ParsedKey(
        "my-topic", 12, 123456
    )
    assert layout.parse("backups|s3|my-topic|region=eu|my-topic+12+0042.json.gz") is None
    assert layout.parse("backups|s3|my-topic|region=eu|my-topic-12-0042.json") is None
    dotted = ConfluentLayout("topics", "/", ".", 10, ".bin")
    assert dotted.parse("topics/a.b/partition=1/a.b.1.0000000003.bin") == ParsedKey("a.b", 1, 3)


def test_a_blank_topics_dir_lists_the_whole_bucket() -> None:
    layout = ConfluentLayout("", "/", "+", 10, ".snappy.parquet")
    assert layout.list_prefix == ""
    assert layout.parse("orders/partition=0/orders+0+0000000010.snappy.parquet") == ParsedKey("orders", 0, 10)
    assert layout.parse("topics/orders/partition=0/orders+0+0000000010.snappy.parquet") is None
    assert ConfluentLayout("  ", "/", "+", 10, ".avro").list_prefix == ""


def test_topics_and_topics_regex_select_the_folders_restored() -> None:
    key = "topics/orders/partition=0/orders+0+0000000000.avro"
    assert ConfluentLayout("topics", "/", "+", 10, ".avro", topics=("orders",)).parse(key) is not None
    assert ConfluentLayout("topics", "/", "+", 10, ".avro", topics=("clicks",)).parse(key) is None
    assert ConfluentLayout("topics", "/", "+", 10, ".avro", topics_regex="ord.*").parse(key) is not None
    assert ConfluentLayout("topics", "/", "+", 10, ".avro", topics_regex="ord").parse(key) is None


def test_siblings_are_the_keys_and_headers_objects_confluent_names() -> None:
    layout = ConfluentLayout(
        "topics",
        "/",
        "+",
        10,
        ".json.gz",
        keys=StoredViewFile(Format.AVRO, ".avro"),
        headers=StoredViewFile(Format.JSON, ".json.gz", "gzip"),
    )
    value = "topics/t/partition=0/t+0+0000000042.json.gz"
    assert layout.siblings(value) == (
        ("keys", "topics/t/partition=0/t+0+0000000042.keys.avro"),
        ("headers", "topics/t/partition=0/t+0+0000000042.headers.json.gz"),
    )
    assert layout.siblings(value)[0][1] == view_object_key(value, ".json.gz", RecordView.KEYS, ".avro")
    assert DEFAULT.siblings(value) == ()


def test_a_partitions_files_across_encoded_partitions_are_one_origin_ordered_by_start_offset() -> None:
    layout = ConfluentLayout("topics", "/", "+", 10, ".json")
    root = RestoreRoot(0, "bkt", layout.list_prefix, None, Format.JSON, layout=layout)
    plan = RestorePlan("r", "s3", S3Settings(), (root,))
    keys = [
        "topics/orders/region=us/orders+0+0000000003.json",
        "topics/orders/region=eu/orders+0+0000000000.json",
        "topics/orders/region=eu/orders+0+0000000010.json",
        "topics/orders/region=us/orders+0+0000000007.json",
        "topics/orders/region=eu/orders+1+0000000002.json",
        "topics/clicks/partition=0/clicks+0+0000000000.json",
        "topics/orders/region=eu/orders+0+0000000000.keys.json",
        "topics/orders/README",
    ]
    entries = [e for key in keys if (e := classify(plan, root, key, 10)) is not None]
    assert len(entries) == 6
    items = {(item.topic, item.partition): item for item in group_work(entries)}
    assert set(items) == {("orders", 0), ("orders", 1), ("clicks", 0)}
    assert [e.offset for e in items["orders", 0].objects] == [0, 3, 7, 10]
    assert [e.key.split("/")[2] for e in items["orders", 0].objects] == [
        "region=eu",
        "region=us",
        "region=us",
        "region=eu",
    ]
