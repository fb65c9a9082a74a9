"""The index key layout, byte-compatible with Lenses (reference §4.1, §4.3, §4.4)."""

from __future__ import annotations

import pytest

from lakesink.domain.commit.lock_keys import (
    granular_locks_prefix,
    granular_partition_key,
    granular_partition_key_of,
    master_lock_key,
    old_master_lock_key,
    sanitize,
)


def test_master_lock_key_uses_the_scala_topic_segment_and_an_unpadded_partition() -> None:
    assert (
        master_lock_key("my-index-dir", "my-connector", "my-topic", 5)
        == "my-index-dir/my-connector/.locks/Topic(my-topic)/5.lock"
    )
    assert master_lock_key(".indexes", "s3SinkTaskBuildLocalTest", "myTopic", 1) == (
        ".indexes/s3SinkTaskBuildLocalTest/.locks/Topic(myTopic)/1.lock"
    )


def test_granular_locks_live_in_the_partition_folder_beside_lenses_sweep_marker() -> None:
    prefix = granular_locks_prefix(".indexes", "s3-sink", "orders", 0)
    assert prefix == ".indexes/s3-sink/.locks/Topic(orders)/0/"
    lock = ".indexes/s3-sink/.locks/Topic(orders)/0/partition=0_topic=orders.lock"
    assert granular_partition_key_of(prefix, lock) == "partition=0_topic=orders"
    assert granular_partition_key_of(prefix, prefix + "sweep-marker.json") is None
    assert granular_partition_key_of(prefix, prefix + "deeper/x.lock") is None


def test_the_9_0_0_master_lock_key_has_no_connector_name() -> None:
    assert old_master_lock_key(".indexes", "orders", 0) == ".indexes/.locks/Topic(orders)/0.lock"


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
