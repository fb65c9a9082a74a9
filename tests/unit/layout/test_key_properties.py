"""Properties of object keys that must hold for any data (hypothesis)."""

from __future__ import annotations

import posixpath

from hypothesis import given, settings
from hypothesis import strategies as st

from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.layout.key_segments import normalise_prefix
from lakesink.domain.layout.naming import KeyLayout
from lakesink.domain.layout.padding import PaddingStrategy, PaddingType, resolve_padding
from lakesink.domain.records import Record

MAX_DEFAULT_OFFSET = 10**12 - 1
CONTROL = {chr(code) for code in (*range(0x20), 0x7F)}

offsets = st.integers(min_value=0, max_value=MAX_DEFAULT_OFFSET)
any_text = st.text(st.characters(codec=None, exclude_categories=("Cs",)), max_size=30)
nasty_text = st.one_of(
    any_text,
    st.lists(
        st.sampled_from(["/", "..", ".", "\\", "\x00", "\n", "\x7f", "a", "é", "", "//"]), max_size=8
    ).map("".join),
)
prefixes = st.one_of(
    st.none(), st.from_regex(r"/?[a-zA-Z0-9_\-]{1,8}(/{1,2}[a-zA-Z0-9_\-=][a-zA-Z0-9_\-=.]{0,7}){0,3}/?", fullmatch=True)
)
topics = st.from_regex(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,20}", fullmatch=True)
include_keys = st.sampled_from([None, True, False])


def _layout(prefix: str | None, include: bool | None) -> KeyLayout:
    return KeyLayout.create(
        prefix=prefix,
        partition_specs=("a", "_key", "_header.h", "_value.`x.y`", "_partition", "_topic"),
        no_partition=False,
        include_keys=include,
        padding=resolve_padding(),
        key_suffix=None,
        format=Format.JSON,
        codec=CompressionCodec.UNCOMPRESSED,
    )


@given(offsets, offsets)
def test_default_padded_offsets_sort_like_their_integers(first: int, second: int) -> None:
    padding = resolve_padding()
    assert (padding.pad("offset", str(first)) < padding.pad("offset", str(second))) == (first < second)


@given(offsets, offsets, st.integers(min_value=0, max_value=30), st.sampled_from(["0", " ", "-"]))
def test_any_left_pad_at_least_as_long_as_the_digits_preserves_order(
    first: int, second: int, extra: int, char: str
) -> None:
    """Holds for '0' and any pad character that sorts before the digits (not for e.g. 'a')."""
    length = max(len(str(first)), len(str(second))) + extra
    strategy = PaddingStrategy(PaddingType.LEFT_PAD, length, char)
    assert (strategy.pad(str(first)) < strategy.pad(str(second))) == (first < second)


@given(offsets, offsets, topics)
def test_default_layout_keys_sort_in_offset_order(first: int, second: int, topic: str) -> None:
    layout = KeyLayout.create(
        prefix="p",
        partition_specs=(),
        no_partition=False,
        include_keys=None,
        padding=resolve_padding(),
        key_suffix=None,
        format=Format.PARQUET,
        codec=CompressionCodec.SNAPPY,
    )
    values = layout.partition_values(Record(topic, 0, 0))

    def key(offset: int) -> str:
        return layout.object_key(
            values, topic=topic, partition=0, first_offset=0, last_offset=offset, earliest_ts=5, latest_ts=9
        )

    assert (key(first) < key(second)) == (first < second)


@settings(max_examples=300)
@given(prefixes, include_keys, nasty_text, nasty_text, nasty_text, nasty_text, topics, offsets)
def test_keys_stay_under_the_prefix_with_only_safe_segments_whatever_the_values(
    prefix: str | None,
    include: bool | None,
    a: str,
    key: str,
    header: str,
    dotted: str,
    topic: str,
    offset: int,
) -> None:
    layout = _layout(prefix, include)
    record = Record(topic, 7, offset, 0, key=key, value={"a": a, "x.y": dotted}, headers=(("h", header),))
    object_key = layout.object_key(
        layout.partition_values(record),
        topic=topic,
        partition=7,
        first_offset=offset,
        last_offset=offset,
        earliest_ts=0,
        latest_ts=0,
    )
    root = normalise_prefix(prefix)
    if root:
        assert object_key.startswith(root + "/")
    segments = object_key.split("/")
    assert all(segment not in ("", ".", "..") for segment in segments)
    assert not CONTROL & set(object_key)
    assert "\\" not in object_key
    assert posixpath.normpath(object_key) == object_key
    assert not object_key.startswith("/")


@given(any_text)
def test_arbitrary_prefixes_are_normalised_or_rejected_never_unsafe(prefix: str) -> None:
    try:
        root = normalise_prefix(prefix)
    except ConfigError:
        return
    assert posixpath.normpath(root) == root or root == ""
    assert not CONTROL & set(root)
    assert all(segment not in ("", ".", "..") for segment in root.split("/")) or root == ""


@given(
    prefixes,
    include_keys,
    nasty_text,
    nasty_text,
    topics,
    offsets,
    st.integers(0, 10**6),
    st.integers(0, 10**6),
)
def test_keys_are_deterministic(
    prefix: str | None, include: bool | None, a: str, key: str, topic: str, offset: int, ts1: int, ts2: int
) -> None:
    def build() -> str:
        layout = _layout(prefix, include)
        record = Record(topic, 3, offset, ts1, key=key, value={"a": a, "x.y": 1}, headers=(("h", "v"),))
        values = layout.partition_values(record)
        return layout.object_key(
            values, topic=topic, partition=3, first_offset=0, last_offset=offset, earliest_ts=ts1, latest_ts=ts2
        )

    assert build() == build()
