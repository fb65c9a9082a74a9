"""The sink's source described once: the streaming strings and the --once options come from one value."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakesink.adapters.kafka.client_config import admin_config, consumer_config
from lakesink.adapters.kafka.offsets import (
    EARLIEST,
    FIRST_BATCH_CHUNKS,
    OffsetSpec,
    TopicPartitionKey,
    chunks_to_json,
    to_json,
)
from lakesink.adapters.kafka.source_options import (
    MAX_RANGE_OFFSETS,
    SinkSource,
    SourceOptions,
    encode_options,
)
from lakesink.domain.commit.chunks import Chunk
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.admission import AdmissionPolicy
from lakesink.domain.flush.policy import FlushPolicy

CLIENT: dict[str, str | Secret] = {
    "bootstrap.servers": "b:1",
    "security.protocol": "SASL_SSL",
    "sasl.password": Secret("pw"),
    "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";',
    "max.poll.records": "5",
}


def _json(document: object) -> str:
    return json.dumps(document, separators=(",", ":"))


def _before(
    client: Mapping[str, str | Secret],
    flushes: Sequence[FlushPolicy],
    *,
    topics: str | None,
    topics_regex: str | None,
    starting: Mapping[TopicPartitionKey, int],
    first_end: Mapping[TopicPartitionKey, int],
    first_chunks: Mapping[TopicPartitionKey, Sequence[Chunk]],
    range_split_offsets: int,
) -> dict[str, str]:
    """The options the sink driver built before SinkSource (SinkJob._source_options and _admission)."""
    counts = [f.count for f in flushes if f.count is not None]
    intervals = [f.interval_ms for f in flushes]
    admission = {"flush.interval": str(min(intervals) / 1000)}
    if counts:
        admission["flush.count"] = str(min(counts))
    options: dict[str, str | Secret] = {**client, **admission, "rangesOnly": "true"}
    options["topics" if topics else "topics.regex"] = topics or topics_regex or ""
    if starting:
        options["startingOffsets"] = _json(to_json(starting))
    if first_end:
        options["firstBatchEndOffsets"] = _json(to_json(first_end))
        options[FIRST_BATCH_CHUNKS] = _json(chunks_to_json(first_chunks))
    if range_split_offsets:
        options[MAX_RANGE_OFFSETS] = str(range_split_offsets)
    return encode_options(options)


def _without_client_settings(options: SourceOptions) -> SourceOptions:
    return dataclasses.replace(options, client_settings={})


def _assert_same_source(source: SinkSource) -> None:
    """What a streaming query parses from the strings is what the --once run gets directly."""
    direct = source.options()
    parsed = SourceOptions.parse(source.encode())
    assert _without_client_settings(direct) == _without_client_settings(parsed)
    assert consumer_config(direct.client_settings, group_id=direct.group_id) == consumer_config(
        parsed.client_settings, group_id=parsed.group_id
    )
    assert admin_config(direct.client_settings) == admin_config(parsed.client_settings)


def test_a_resuming_sink_gets_the_options_it_always_got() -> None:
    flushes = [FlushPolicy(count=100, interval_ms=60_000), FlushPolicy(count=None, interval_ms=5_000)]
    starting = {("orders", 0): 42, ("orders", 1): 7}
    first_end = {("orders", 0): 90}
    first_chunks = {("orders", 0): ((42, 60), (60, 90))}

    source = SinkSource(
        CLIENT,
        topics="orders",
        topics_regex=None,
        policy=AdmissionPolicy.for_flushes(flushes),
        starting=starting,
        first_batch_end=first_end,
        first_batch_chunks=first_chunks,
        max_range_offsets=1_000,
    )

    assert source.encode() == _before(
        CLIENT, flushes, topics="orders", topics_regex=None, starting=starting, first_end=first_end,
        first_chunks=first_chunks, range_split_offsets=1_000,
    )
    options = source.options()
    assert options.policy == AdmissionPolicy(flush_count=100, flush_interval_ms=5_000)
    assert options.starting == OffsetSpec(EARLIEST, ((("orders", 0), 42), (("orders", 1), 7)))
    assert options.first_batch_end == ((("orders", 0), 90),)
    assert options.first_batch_chunks == ((("orders", 0), ((42, 60), (60, 90))),)
    assert (options.topics, options.max_range_offsets, options.ranges_only) == ("orders", 1_000, True)
    assert options.client_settings["sasl.password"] == Secret("pw")
    _assert_same_source(source)


def test_a_fresh_sink_on_a_topic_pattern_sets_no_offsets() -> None:
    flushes = [FlushPolicy(count=None, interval_ms=3_600_000)]
    source = SinkSource(
        {"bootstrap.servers": "b:1"}, topics=None, topics_regex="orders-.*", policy=AdmissionPolicy.for_flushes(flushes)
    )

    assert source.encode() == {
        "bootstrap.servers": "b:1",
        "flush.interval": "3600.0",
        "rangesOnly": "true",
        "topics.regex": "orders-.*",
    }
    assert source.encode() == _before(
        {"bootstrap.servers": "b:1"}, flushes, topics=None, topics_regex="orders-.*", starting={}, first_end={},
        first_chunks={}, range_split_offsets=0,
    )
    options = source.options()
    assert options.selection().matches("orders-eu")
    assert options.policy == AdmissionPolicy(flush_interval_ms=3_600_000)
    assert options.max_range_offsets is None
    _assert_same_source(source)


def test_client_settings_named_like_source_options_apply_unless_the_run_sets_them() -> None:
    client = {
        "bootstrap.servers": "b:1",
        "group.id": "mine",
        "isolation.level": "read_uncommitted",
        "maxRecordsPerPartition": "5",
        "flush.count": "3",
        "arrowBatchRecords": "123",
    }
    source = SinkSource(client, topics="t", topics_regex=None, policy=AdmissionPolicy(flush_count=100))

    options = source.options()

    assert (options.group_id, options.read_committed, options.batch_records) == ("mine", False, 123)
    assert options.policy == AdmissionPolicy(flush_count=100, max_records_per_partition=5)
    _assert_same_source(source)


def test_a_non_positive_range_split_is_rejected_as_the_option_would_be() -> None:
    with pytest.raises(ConfigError, match="Invalid value 0 for maxRangeOffsets: must be at least 1"):
        SinkSource({"bootstrap.servers": "b:1"}, topics="t", topics_regex=None, policy=AdmissionPolicy(),
                   max_range_offsets=0)


_KEYS = st.tuples(st.sampled_from(["orders", "clicks", "a.b"]), st.integers(0, 3))
_CLIENT_EXTRA = st.fixed_dictionaries(
    {},
    optional={  # client keys, some named like source options (they apply unless the run sets them)
        "client.id": st.just("lakesink"),
        "ssl.key.password": st.just("secret"),
        "group.id": st.just("mine"),
        "isolation.level": st.sampled_from(["read_committed", "read_uncommitted"]),
        "maxRecordsPerPartition": st.integers(1, 100).map(str),
        "flush.count": st.integers(1, 100).map(str),
        "startingoffsets": st.sampled_from(["earliest", "latest"]),
        "readStallTimeoutSeconds": st.sampled_from(["5", "0.5"]),
    },
)


@st.composite
def _sink_runs(draw: st.DrawFn) -> dict[str, object]:
    flushes = draw(st.lists(
        st.builds(FlushPolicy, count=st.none() | st.integers(1, 10**6), interval_ms=st.integers(1, 10**8)),
        min_size=1, max_size=4,
    ))
    first_end = draw(st.dictionaries(_KEYS, st.integers(1, 10**9), max_size=3))
    chunks = {
        key: tuple(sorted({(lo, lo + size) for lo, size in draw(
            st.lists(st.tuples(st.integers(0, end - 1), st.integers(1, 50)), min_size=1, max_size=3)
        )}))
        for key, end in first_end.items()
    }
    topics = draw(st.sampled_from(["orders", "orders,clicks", None]))
    return {
        "client": {"bootstrap.servers": "b:1", **draw(_CLIENT_EXTRA)},
        "flushes": flushes,
        "topics": topics,
        "topics_regex": draw(st.sampled_from(["orders.*", None])),
        "starting": draw(st.dictionaries(_KEYS, st.integers(0, 10**9), max_size=4)),
        "first_end": first_end,
        "first_chunks": chunks,
        "range_split_offsets": draw(st.sampled_from([0, 1, 250_000])),
    }


@settings(max_examples=200, deadline=None)
@given(run=_sink_runs())
def test_both_forms_come_from_one_value_and_match_what_the_driver_built_before(run: dict[str, object]) -> None:
    source = SinkSource(
        run["client"],  # type: ignore[arg-type]
        topics=run["topics"],  # type: ignore[arg-type]
        topics_regex=run["topics_regex"],  # type: ignore[arg-type]
        policy=AdmissionPolicy.for_flushes(run["flushes"]),  # type: ignore[arg-type]
        starting=run["starting"],  # type: ignore[arg-type]
        first_batch_end=run["first_end"],  # type: ignore[arg-type]
        first_batch_chunks=run["first_chunks"],  # type: ignore[arg-type]
        max_range_offsets=run["range_split_offsets"] or None,  # type: ignore[arg-type]
    )

    assert source.encode() == _before(**run)  # type: ignore[arg-type]
    _assert_same_source(source)
