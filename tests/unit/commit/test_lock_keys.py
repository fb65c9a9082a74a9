"""The index key layout, byte-compatible with Lenses (reference §4.1, §4.3, §4.4)."""

from __future__ import annotations

import pytest

from lakesink.domain.commit.lock_keys import (
    LegacyIndexKey,
    granular_lock_key,
    granular_locks_prefix,
    granular_partition_key,
    legacy_index_key,
    legacy_index_prefix,
    master_committed_offset,
    master_lock_key,
    old_master_lock_key,
    parse_legacy_index_key,
    sanitize,
    sweep_marker_key,
    temp_upload_key,
)
from lakesink.domain.errors import CommitError


def test_master_lock_key_uses_the_scala_topic_segment_and_an_unpadded_partition() -> None:
    assert (
        master_lock_key("my-index-dir", "my-connector", "my-topic", 5)
        == "my-index-dir/my-connector/.locks/Topic(my-topic)/5.lock"
    )
    assert master_lock_key(".indexes", "s3SinkTaskBuildLocalTest", "myTopic", 1) == (
        ".indexes/s3SinkTaskBuildLocalTest/.locks/Topic(myTopic)/1.lock"
    )


def test_granular_lock_and_sweep_marker_live_in_the_partition_folder() -> None:
    assert granular_lock_key(".indexes", "s3-sink", "orders", 0, "partition=0_topic=orders") == (
        ".indexes/s3-sink/.locks/Topic(orders)/0/partition=0_topic=orders.lock"
    )
    assert (
        sweep_marker_key(".indexes", "s3-sink", "orders", 0)
        == ".indexes/s3-sink/.locks/Topic(orders)/0/sweep-marker.json"
    )
    assert (
        granular_locks_prefix(".indexes", "s3-sink", "orders", 0)
        == ".indexes/s3-sink/.locks/Topic(orders)/0/"
    )


def test_the_9_0_0_master_lock_key_has_no_connector_name() -> None:
    assert old_master_lock_key(".indexes", "orders", 0) == ".indexes/.locks/Topic(orders)/0.lock"


def test_legacy_v1_index_keys_pad_partition_and_offset_and_parse_back() -> None:
    key = legacy_index_key(".indexes", "sinkName", "myTopic", 5, 70)
    assert key == ".indexes/sinkName/myTopic/00005/00000000000000000070"
    assert key.startswith(legacy_index_prefix(".indexes", "sinkName", "myTopic", 5))
    assert parse_legacy_index_key(key) == LegacyIndexKey(".indexes/sinkName", "myTopic", 5, 70)


@pytest.mark.parametrize(
    "key", ["00005/00000000000000000070", ".indexes/s/t/00005/latest", ".indexes/s/t/p5/00000000000000000070"]
)
def test_keys_that_are_not_legacy_indexes_are_rejected(key: str) -> None:
    with pytest.raises(CommitError, match="Not a legacy index key"):
        parse_legacy_index_key(key)


def test_granular_key_sorts_entries_by_name() -> None:
    assert granular_partition_key({"region": "8", "name": "sam"}) == "name=sam_region=8"


def test_granular_key_does_not_depend_on_insertion_order() -> None:
    assert granular_partition_key({"date": "2024", "hour": "12"}) == granular_partition_key(
        {"hour": "12", "date": "2024"}
    )
    assert granular_partition_key({"hour": "12", "date": "2024"}) == "date=2024_hour=12"


def test_default_layout_key_escapes_underscores_in_the_topic() -> None:
    assert granular_partition_key({"topic": "my_topic", "partition": "0"}) == "partition=0_topic=my%5Ftopic"


def test_no_partition_values_means_the_master_lock() -> None:
    assert granular_partition_key({}) is None


@pytest.mark.parametrize(
    ("text", "encoded"),
    [
        ("2024/01/01", "2024%2F01%2F01"),
        ("a b", "a+b"),
        ("k=v", "k%3Dv"),
        ("A-z.0*9", "A-z.0*9"),
        ("_", "%5F"),
        ("~!'()", "%7E%21%27%28%29"),
        ("é€", "%C3%A9%E2%82%AC"),
        ("😀", "%F0%9F%98%80"),
        ("%+", "%25%2B"),
        ("[missing]", "%5Bmissing%5D"),
        ("a\ud800", "a%3F"),
    ],
)
def test_sanitize_is_java_form_encoding_with_underscore_escaped(text: str, encoded: str) -> None:
    assert sanitize(text) == encoded


def test_temp_upload_key_separates_the_upload_id_from_the_final_key() -> None:
    assert temp_upload_key("orders", 0, "u-1", "out/orders/0/000000000001_1000_1001.json") == (
        ".temp-upload/Topic(orders)/0/u-1/out/orders/0/000000000001_1000_1001.json"
    )


def test_master_committed_offset_is_one_below_the_safe_offset_or_null_at_zero() -> None:
    assert master_committed_offset(0) is None
    assert master_committed_offset(1) == 0
    assert master_committed_offset(2) == 1
