"""The sink's source described once: the streaming strings and the --once options come from one value."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakesink.adapters.kafka.client_config import admin_config, consumer_config
from lakesink.adapters.kafka.offsets import (
    EARLIEST,
    FIRST_BATCH_CHUNKS,
    OffsetSpec,
    chunks_to_json,
)
from lakesink.adapters.kafka.sink_source import SinkSource
from lakesink.adapters.kafka.source_options import MAX_RANGE_OFFSETS, SourceOptions
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


def _without_client_settings(options: SourceOptions) -> SourceOptions:
    return dataclasses.replace(options, client_settings={})


def _assert_same_source(source: SinkSource) -> None:
    """What a streaming query parses from the strings is what the --once run gets directly."""
    direct = source.options()
    parsed = SourceOptions.parse(source.encode()).for_stream()
    assert _without_client_settings(direct) == _without_client_settings(parsed)
    assert consumer_config(direct.client_settings, group_id=direct.group_id) == consumer_config(
        parsed.client_settings, group_id=parsed.group_id
    )
    assert admin_config(direct.client_settings) == admin_config(parsed.client_settings)


def test_a_resuming_sink_passes_spark_option_names_and_its_positions() -> None:
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

    assert source.encode() == {
        "kafka.bootstrap.servers": "b:1",
        "kafka.security.protocol": "SASL_SSL",
        "secret.kafka.sasl.password": "pw",
        "secret.kafka.sasl.jaas.config": CLIENT["sasl.jaas.config"],
        "kafka.max.poll.records": "5",
        "flush.interval": "5.0",
        "flush.count": "100",
        "rangesOnly": "true",
        "includeHeaders": "true",
        "failOnDataLoss": "false",
        "subscribe": "orders",
        "startingOffsets": _json({"orders": {"0": 42, "1": 7}}),
        "firstBatchEndOffsets": _json({"orders": {"0": 90}}),
        FIRST_BATCH_CHUNKS: _json(chunks_to_json(first_chunks)),
        MAX_RANGE_OFFSETS: "1000",
    }
    options = source.options()
    assert options.policy == AdmissionPolicy(flush_count=100, flush_interval_ms=5_000)
    assert options.starting == OffsetSpec(EARLIEST, ((("orders", 0), 42), (("orders", 1), 7)))
    assert options.first_batch_end == ((("orders", 0), 90),)
    assert options.first_batch_chunks == ((("orders", 0), ((42, 60), (60, 90))),)
    assert (options.subscribe, options.max_range_offsets, options.ranges_only) == ("orders", 1_000, True)
    assert (options.include_headers, options.fail_on_data_loss) == (True, False)
    assert options.client_settings["sasl.password"] == Secret("pw")
    _assert_same_source(source)


def test_a_fresh_sink_on_a_topic_pattern_starts_at_earliest_explicitly() -> None:
    flushes = [FlushPolicy(count=None, interval_ms=3_600_000)]
    source = SinkSource(
        {"bootstrap.servers": "b:1"}, topics=None, topics_regex="orders-.*", policy=AdmissionPolicy.for_flushes(flushes)
    )

    assert source.encode() == {
        "kafka.bootstrap.servers": "b:1",
        "flush.interval": "3600.0",
        "rangesOnly": "true",
        "includeHeaders": "true",
        "failOnDataLoss": "false",
        "subscribePattern": "orders-.*",
        "startingOffsets": "earliest",
    }
    options = source.options()
    assert options.selection().matches("orders-eu")
    assert options.starting == OffsetSpec(default=EARLIEST)
    assert options.policy == AdmissionPolicy(flush_interval_ms=3_600_000)
    assert options.max_range_offsets is None
    _assert_same_source(source)


def test_client_group_and_isolation_apply_and_settings_the_source_refuses_are_left_out() -> None:
    client = {
        "bootstrap.servers": "b:1",
        "group.id": "mine",
        "isolation.level": "read_uncommitted",
        "auto.offset.reset": "latest",
        "enable.auto.commit": "true",
    }
    source = SinkSource(client, topics="t", topics_regex=None, policy=AdmissionPolicy(flush_count=100))

    options = source.options()

    assert (options.group_id, options.read_committed) == ("mine", False)
    assert "kafka.auto.offset.reset" not in source.encode() and "kafka.enable.auto.commit" not in source.encode()
    _assert_same_source(source)


def test_a_non_positive_range_split_is_rejected_as_the_option_would_be() -> None:
    with pytest.raises(ConfigError, match="Invalid value 0 for maxRangeOffsets: must be at least 1"):
        SinkSource({"bootstrap.servers": "b:1"}, topics="t", topics_regex=None, policy=AdmissionPolicy(),
                   max_range_offsets=0)


_KEYS = st.tuples(st.sampled_from(["orders", "clicks", "a.b"]), st.integers(0, 3))
_CLIENT_EXTRA = st.fixed_dictionaries(
    {},
    optional={  # client keys, some the source refuses (left out: the readers set them)
        "client.id": st.just("lakesink"),
        "ssl.key.password": st.just("secret"),
        "group.id": st.just("mine"),
        "isolation.level": st.sampled_from(["read_committed", "read_uncommitted"]),
        "auto.offset.reset": st.sampled_from(["earliest", "latest"]),
        "max.poll.records": st.integers(1, 100).map(str),
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
        "topics_regex": "orders.*" if topics is None else draw(st.sampled_from(["orders.*", None])),
        "starting": draw(st.dictionaries(_KEYS, st.integers(0, 10**9), max_size=4)),
        "first_end": first_end,
        "first_chunks": chunks,
        "range_split_offsets": draw(st.sampled_from([0, 1, 250_000])),
    }


@settings(max_examples=200, deadline=None)
@given(run=_sink_runs())
def test_both_forms_come_from_one_value(run: dict[str, object]) -> None:
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

    _assert_same_source(source)
