"""Object keys: every concrete Lenses layout of reference §2.7, plus the lakesink improvements."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.layout.naming import KeyLayout, file_extension
from lakesink.domain.layout.padding import PaddingSettings, resolve_padding
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.records import Record

PADS_12 = resolve_padding(kcql_lengths={"partition": 12, "offset": 12})


def layout(
    *,
    prefix: str | None = "streamReactorBackups",
    specs: Sequence[str] = (),
    no_partition: bool = False,
    include_keys: bool | None = None,
    padding: PaddingSettings | None = None,
    key_suffix: str | None = None,
    format: Format = Format.JSON,
    codec: CompressionCodec = CompressionCodec.UNCOMPRESSED,
    date_timezone: str = "UTC",
) -> KeyLayout:
    return KeyLayout.create(
        prefix=prefix,
        partition_specs=specs,
        no_partition=no_partition,
        include_keys=include_keys,
        padding=padding if padding is not None else resolve_padding(),
        key_suffix=key_suffix,
        format=format,
        codec=codec,
        date_timezone=date_timezone,
    )


def records(
    offsets: Sequence[int], *, topic: str = "myTopic", partition: int = 1, **fields: Any
) -> list[Record]:
    timestamps = fields.pop("timestamps", offsets)
    return [
        Record(topic=topic, partition=partition, offset=offset, timestamp=ts, **fields)
        for offset, ts in zip(offsets, timestamps, strict=True)
    ]


def key_of_file(key_layout: KeyLayout, file_records: Sequence[Record]) -> str:
    """The key a writer gives a file holding ``file_records`` (all with the same partition values)."""
    values = key_layout.partition_values(file_records[0])
    assert all(key_layout.partition_values(r) == values for r in file_records)
    timestamps = [r.timestamp if r.timestamp is not None else -1 for r in file_records]
    return key_layout.object_key(
        values,
        topic=file_records[0].topic,
        partition=file_records[0].partition,
        first_offset=file_records[0].offset,
        last_offset=file_records[-1].offset,
        earliest_ts=min(timestamps),
        latest_ts=max(timestamps),
    )


# --- reference §2.7, one test per row ------------------------------------------------------------


def test_default_layout_one_record_per_file() -> None:
    files = [[r] for r in records([0, 1, 2])]
    assert [key_of_file(layout(), f) for f in files] == [
        "streamReactorBackups/myTopic/1/000000000000_0_0.json",
        "streamReactorBackups/myTopic/1/000000000001_1_1.json",
        "streamReactorBackups/myTopic/1/000000000002_2_2.json",
    ]


def test_default_layout_two_records_per_text_file() -> None:
    rs = records([0, 1, 2, 3])
    text = layout(format=Format.TEXT)
    assert [key_of_file(text, rs[:2]), key_of_file(text, rs[2:])] == [
        "streamReactorBackups/myTopic/1/000000000001_0_1.text",
        "streamReactorBackups/myTopic/1/000000000003_2_3.text",
    ]


def test_kcql_padding_lengths_pad_partition_directory_and_offset() -> None:
    assert (
        key_of_file(layout(padding=PADS_12), records([0]))
        == "streamReactorBackups/myTopic/000000000001/000000000000_0_0.json"
    )


def test_legacy_no_op_padding_strategy_leaves_offset_unpadded() -> None:
    padding = resolve_padding(legacy_strategy="NoOp", legacy_length=10)
    assert (
        key_of_file(layout(padding=padding), records([0, 1, 2]))
        == "streamReactorBackups/myTopic/1/2_0_2.json"
    )


def test_partitionby_value_fields_hive_style_with_missing_field() -> None:
    rs = records([0], value={"name": "first", "title": "primary"})
    assert (
        key_of_file(layout(specs=("name", "title", "salary")), rs)
        == "streamReactorBackups/name=first/title=primary/salary=[missing]/myTopic(1_000000000000).json"
    )


def test_partitionby_value_fields_without_keys() -> None:
    rs = records([0], value={"name": "first", "title": "primary"})
    assert (
        key_of_file(layout(specs=("name", "title", "salary"), include_keys=False), rs)
        == "streamReactorBackups/first/primary/[missing]/myTopic(1_000000000000).json"
    )


def test_partitionby_whole_key_csv() -> None:
    rs = records([0], key=0, value={"name": "first"})
    assert (
        key_of_file(layout(specs=("_key",), format=Format.CSV), rs)
        == "streamReactorBackups/key=0/myTopic(1_000000000000).csv"
    )


def test_partitionby_topic_and_partition_padded_values_only() -> None:
    key_layout = layout(
        specs=("_topic", "_partition"), padding=PADS_12, include_keys=False, format=Format.CSV
    )
    assert (
        key_of_file(key_layout, records([0]))
        == "streamReactorBackups/myTopic/000000000001/myTopic(000000000001_000000000000).csv"
    )


def test_partitionby_header_and_value_field() -> None:
    rs = records([0], value={"name": "first"}, headers=(("headerPartitionKey", "0"),))
    key_layout = layout(specs=("_header.headerPartitionKey", "_value.name"), format=Format.CSV)
    assert (
        key_of_file(key_layout, rs)
        == "streamReactorBackups/headerPartitionKey=0/name=first/myTopic(1_000000000000).csv"
    )


def test_partitionby_nested_key_fields_with_backticked_dotted_name() -> None:
    rs = records([0], partition=0, key={"favourites": {"band": "the killers"}, "cost.centre.id": 100})
    key_layout = layout(specs=("_key.favourites.band", "_key.`cost.centre.id`"), padding=PADS_12)
    assert (
        key_of_file(key_layout, rs) == "streamReactorBackups/favourites.band=the killers/cost.centre.id=100/"
        "myTopic(000000000000_000000000000).json"
    )


def test_partitionby_nested_header_path() -> None:
    rs = records([0], headers=(("header1", {"user": {"name": "laura"}}),))
    key_layout = layout(specs=("_header.header1.user.name",), padding=PADS_12)
    assert (
        key_of_file(key_layout, rs)
        == "streamReactorBackups/header1.user.name=laura/myTopic(000000000001_000000000000).json"
    )


def test_partitionby_date_parts_values_only() -> None:
    rs = records([0], timestamps=[1270166400000])  # 2010-04-02T00:00:00Z
    key_layout = layout(specs=("_date.uuuu", "_date.LL", "_date.dd"), include_keys=False, padding=PADS_12)
    assert (
        key_of_file(key_layout, rs)
        == "streamReactorBackups/2010/04/02/myTopic(000000000001_000000000000).json"
    )


def test_partitionby_without_prefix_starts_at_bucket_root() -> None:
    rs = records([0], key={"region": 8}, value={"name": "sam"})
    key_layout = layout(prefix=None, specs=("_key.region", "name"), padding=PADS_12)
    assert key_of_file(key_layout, rs) == "region=8/name=sam/myTopic(000000000001_000000000000).json"


def test_bytes_file_holds_one_record() -> None:
    rs = records([0], timestamps=[6])
    assert (
        key_of_file(layout(format=Format.BYTES), rs)
        == "streamReactorBackups/myTopic/1/000000000000_6_6.bytes"
    )


def test_parquet_with_padded_partition_directory() -> None:
    rs = records(list(range(1, 11)), topic="dsl-events", timestamps=list(range(10001, 10011)))
    assert (
        key_of_file(layout(format=Format.PARQUET, padding=PADS_12), rs)
        == "streamReactorBackups/dsl-events/000000000001/000000000010_10001_10010.parquet"
    )


# --- file names and extensions --------------------------------------------------------------------


def test_key_suffix_goes_before_the_extension_without_separator() -> None:
    key_layout = layout(
        key_suffix="my-suffix", format=Format.AVRO, padding=resolve_padding(kcql_lengths={"offset": 5})
    )
    assert key_layout.file_name(topic="t", partition=0, last_offset=81, earliest_ts=1, latest_ts=9) == (
        "00081_1_9my-suffix.avro"
    )


@pytest.mark.parametrize(
    ("format", "codec", "extension"),
    [
        (Format.JSON, CompressionCodec.UNCOMPRESSED, "json"),
        (Format.JSON, CompressionCodec.GZIP, "gz"),
        (Format.AVRO, CompressionCodec.SNAPPY, "avro"),
        (Format.PARQUET, CompressionCodec.ZSTD, "parquet"),
        (Format.CSV, CompressionCodec.UNCOMPRESSED, "csv"),
        (Format.TEXT, CompressionCodec.UNCOMPRESSED, "text"),
        (Format.BYTES, CompressionCodec.UNCOMPRESSED, "bytes"),
    ],
)
def test_extension_depends_on_format_and_only_json_takes_the_codec(
    format: Format, codec: CompressionCodec, extension: str
) -> None:
    assert file_extension(format, codec) == extension
    assert layout(format=format, codec=codec).file_extension == extension


def test_gzipped_json_key_ends_in_gz() -> None:
    assert key_of_file(layout(codec=CompressionCodec.GZIP), records([0])).endswith("/000000000000_0_0.gz")


def test_missing_timestamps_show_as_minus_one_in_default_names() -> None:
    rs = records([4], timestamps=[None])
    assert key_of_file(layout(), rs) == "streamReactorBackups/myTopic/1/000000000004_-1_-1.json"


def test_default_layout_can_show_hive_style_names() -> None:
    assert (
        key_of_file(layout(include_keys=True), records([0]))
        == "streamReactorBackups/topic=myTopic/partition=1/000000000000_0_0.json"
    )


# --- lakesink improvements -------------------------------------------------------------------------


def test_nopartition_has_no_double_slash() -> None:
    assert (
        key_of_file(layout(no_partition=True), records([0]))
        == "streamReactorBackups/myTopic(1_000000000000).json"
    )


def test_nopartition_without_prefix_has_no_leading_slash() -> None:
    assert key_of_file(layout(prefix=None, no_partition=True), records([0])) == "myTopic(1_000000000000).json"


def test_prefix_slashes_are_normalised() -> None:
    assert key_of_file(layout(prefix="/a//b/"), records([0])) == "a/b/myTopic/1/000000000000_0_0.json"


def test_slash_in_a_value_makes_path_levels_but_dot_segments_are_escaped() -> None:
    rs = records([0], headers=(("h", "val1/val2"),), value={"p": "../../x"})
    assert (
        key_of_file(layout(specs=("_header.h", "p")), rs)
        == "streamReactorBackups/h=val1/val2/p=%2E%2E/%2E%2E/x/myTopic(1_000000000000).json"
    )


def test_empty_value_becomes_a_visible_marker() -> None:
    rs = records([0], value={"p": ""})
    assert key_of_file(layout(specs=("p",), include_keys=False), rs) == (
        "streamReactorBackups/[empty]/myTopic(1_000000000000).json"
    )


def test_date_values_use_the_configured_zone() -> None:
    rs = records([0], timestamps=[1270166400000])
    key_layout = layout(specs=("_date.yyyy-MM-dd-HH",), include_keys=False, date_timezone="America/New_York")
    assert key_of_file(key_layout, rs) == "streamReactorBackups/2010-04-01-20/myTopic(1_000000000000).json"


@pytest.mark.parametrize("suffix", ["a/b", "a\\b", "a\nb"])
def test_key_suffix_that_could_change_the_path_is_rejected(suffix: str) -> None:
    with pytest.raises(ConfigError, match="key.suffix"):
        layout(key_suffix=suffix)


@pytest.mark.parametrize("topic", ["a/b", "..", "", "bad topic"])
def test_illegal_topic_names_cannot_name_objects(topic: str) -> None:
    with pytest.raises(ConfigError, match="legal Kafka topic"):
        layout(no_partition=True).file_name(
            topic=topic, partition=0, last_offset=0, earliest_ts=0, latest_ts=0
        )


def test_negative_offsets_are_rejected() -> None:
    with pytest.raises(ValueError, match="must not be negative"):
        layout().file_name(topic="t", partition=0, last_offset=-1, earliest_ts=0, latest_ts=0)


def test_values_from_another_layout_are_rejected() -> None:
    foreign = PartitionValues((("name", "x"),))
    with pytest.raises(ValueError, match="do not match"):
        layout().object_key(
            foreign, topic="t", partition=0, first_offset=0, last_offset=0, earliest_ts=0, latest_ts=0
        )


# --- staging directory (reference §2.6) -------------------------------------------------------------


def test_staging_dir_is_prefix_partition_path_and_format_extension() -> None:
    key_layout = layout(prefix="prefix", padding=resolve_padding(kcql_lengths={"partition": 3, "offset": 12}))
    values = key_layout.partition_values(records([0], topic="my-topic", partition=9)[0])
    assert key_layout.staging_relative_dir(values) == "prefix/my-topic/009/json"


def test_staging_dir_uses_the_base_format_extension_for_gzipped_json() -> None:
    key_layout = layout(prefix=None, no_partition=True, codec=CompressionCodec.GZIP)
    assert key_layout.staging_relative_dir(PartitionValues()) == "json"


def test_key_layout_is_hashable_and_survives_pickling() -> None:
    key_layout = layout(specs=("_date.yyyy-MM-dd", "name"), padding=PADS_12, date_timezone="Europe/Paris")
    clone = pickle.loads(pickle.dumps(key_layout))
    assert clone == key_layout and hash(clone) == hash(key_layout)
    rs = records([5], value={"name": "n"}, timestamps=[1270166400000])
    assert key_of_file(clone, rs) == key_of_file(key_layout, rs)
