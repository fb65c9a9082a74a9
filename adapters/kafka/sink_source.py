"""The ``lakesink-kafka`` source a sink run reads, described once and given in either form.

The command plans its batches on the driver from the options themselves (:mod:`.batch_planner`);
a continuous sink runs a ``lakesink-kafka`` stream, which receives them as strings. One value
(:class:`SinkSource`) gives both, so the two can never describe different sources.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from lakesink.adapters.kafka.offsets import (
    EARLIEST,
    FIRST_BATCH_CHUNKS,
    STARTING_OFFSETS,
    OffsetSpec,
    TopicPartitionKey,
    chunks_to_json,
)
from lakesink.adapters.kafka.source_options import (
    FAIL_ON_DATA_LOSS,
    FIRST_BATCH_END_OFFSETS,
    FLUSH_COUNT,
    FLUSH_INTERVAL,
    INCLUDE_HEADERS,
    KAFKA_PREFIX,
    MAX_OFFSETS_PER_TRIGGER,
    MAX_RANGE_OFFSETS,
    MAX_RECORDS_PER_PARTITION,
    RANGES_ONLY,
    REFUSED_CLIENT_KEYS,
    SourceOptions,
    consumer_group_id,
    encode_options,
    reads_committed,
)
from lakesink.domain.commit.chunks import Chunk
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.admission import AdmissionPolicy
from lakesink.domain.records import positions_json
from lakesink.domain.subscription import SUBSCRIBE, SUBSCRIBE_PATTERN


@dataclass(frozen=True)
class SinkSource:
    """The ``lakesink-kafka`` source a sink run reads, from the driver's objects: one value, two forms.

    The command plans on the driver with :meth:`options` (:mod:`.batch_planner`), in both modes.
    :meth:`encode` gives the same source as the string options of a ``lakesink-kafka`` stream
    (a Python data source gets its options as strings and parses them back with
    :meth:`SourceOptions.parse`): ``SourceOptions.parse(source.encode()).for_stream()`` and
    ``source.options()`` are equal (the parsed client settings wrap every credential key's value
    in a Secret), which tests/unit/adapters/kafka/test_sink_source.py proves for any run. The sink always reads ranges only (``rangesOnly``): its
    tasks read their range from Kafka themselves, with the headers column (filled or not, see
    :meth:`~lakesink.adapters.kafka.range_rows.RangeReader.without_headers`).

    It always sets ``startingOffsets`` (``earliest``, or its positions), so Spark's streaming
    default (``latest``) never decides where a sink starts, and ``failOnDataLoss=false``: a
    position that retention removed resumes at the earliest record left, as a Kafka Connect sink
    does. The client settings go under ``kafka.``; the Kafka Connect consumer settings the source
    refuses (:data:`REFUSED_CLIENT_KEYS`, e.g. ``consumer.auto.offset.reset``) are left out, as
    lakesink's readers set those themselves.

    Attributes:
        client_settings: the Kafka client settings, ``bootstrap.servers`` included; credentials
            as :class:`~lakesink.domain.config.secret.Secret`.
        topics: comma-separated topic names (``subscribe``); when empty, ``topics_regex`` selects.
        topics_regex: the topic pattern (``subscribePattern``), used when ``topics`` is empty.
        policy: admission, usually
            :meth:`AdmissionPolicy.for_flushes <lakesink.domain.flush.admission.AdmissionPolicy.for_flushes>`
            of the statements; a None field leaves the option unset.
        starting: the next offset to read per partition (``startingOffsets``); partitions it does
            not name start at earliest.
        first_batch_end: where the first batch ends per partition (``firstBatchEndOffsets``,
            the replay of pending range plans); empty: unset.
        first_batch_chunks: the chunks the first batch keeps whole (``firstBatchChunks``); empty:
            unset.
        max_range_offsets: the most offsets of one range (``maxRangeOffsets``); None: unset.
    """

    client_settings: Mapping[str, str | Secret] = field(repr=False)
    topics: str | None
    topics_regex: str | None
    policy: AdmissionPolicy
    starting: Mapping[TopicPartitionKey, int] = field(default_factory=dict)
    first_batch_end: Mapping[TopicPartitionKey, int] = field(default_factory=dict)
    first_batch_chunks: Mapping[TopicPartitionKey, Sequence[Chunk]] = field(default_factory=dict)
    max_range_offsets: int | None = None

    def __post_init__(self) -> None:
        if self.max_range_offsets is not None and self.max_range_offsets < 1:
            raise ConfigError(
                f"Invalid value {self.max_range_offsets} for {MAX_RANGE_OFFSETS}: must be at least 1."
            )

    def encode(self) -> dict[str, str]:
        """The string options of a streaming query: ``kafka.`` client settings, then the run's options."""
        client = {KAFKA_PREFIX + key: value for key, value in self._client().items()}
        return encode_options({**client, **self._run_options()})

    def options(self) -> SourceOptions:
        """The options :meth:`encode`'s strings parse into (for a stream), built from the objects."""
        client = self._client()
        return SourceOptions(
            subscribe=self.topics or None,
            subscribe_pattern=None if self.topics else self.topics_regex,
            starting=OffsetSpec(default=EARLIEST, explicit=_positions(self.starting)),
            policy=self.policy,
            first_batch_end=_positions(self.first_batch_end),
            first_batch_chunks=_chunk_lists(self.first_batch_chunks),
            max_range_offsets=self.max_range_offsets,
            group_id=consumer_group_id(client, None),
            read_committed=reads_committed(client),
            fail_on_data_loss=False,
            include_headers=True,
            ranges_only=True,
            client_settings=client,
        )

    def _client(self) -> dict[str, str | Secret]:
        return {
            key: value
            for key, value in self.client_settings.items()
            if key not in REFUSED_CLIENT_KEYS
        }

    def _run_options(self) -> dict[str, str]:
        """The options the run sets, as strings (each parses back to the value :meth:`options` takes)."""
        policy = self.policy
        options: dict[str, str] = {}
        if policy.flush_interval_ms is not None:
            options[FLUSH_INTERVAL] = str(policy.flush_interval_ms / 1000)
        if policy.flush_count is not None:
            options[FLUSH_COUNT] = str(policy.flush_count)
        if policy.max_records_per_partition is not None:
            options[MAX_RECORDS_PER_PARTITION] = str(policy.max_records_per_partition)
        if policy.max_offsets_per_trigger is not None:
            options[MAX_OFFSETS_PER_TRIGGER] = str(policy.max_offsets_per_trigger)
        options[RANGES_ONLY] = "true"
        options[INCLUDE_HEADERS] = "true"
        options[FAIL_ON_DATA_LOSS] = "false"
        if self.topics:
            options[SUBSCRIBE] = self.topics
        else:
            options[SUBSCRIBE_PATTERN] = self.topics_regex or ""
        options[STARTING_OFFSETS] = _json(positions_json(self.starting)) if self.starting else "earliest"
        if self.first_batch_end:
            options[FIRST_BATCH_END_OFFSETS] = _json(positions_json(self.first_batch_end))
        if self.first_batch_chunks:
            options[FIRST_BATCH_CHUNKS] = _json(chunks_to_json(self.first_batch_chunks))
        if self.max_range_offsets is not None:
            options[MAX_RANGE_OFFSETS] = str(self.max_range_offsets)
        return options


def _key(key: TopicPartitionKey) -> TopicPartitionKey:
    topic, partition = key
    return str(topic), int(partition)


def _positions(positions: Mapping[TopicPartitionKey, int]) -> tuple[tuple[TopicPartitionKey, int], ...]:
    return tuple(sorted((_key(key), int(offset)) for key, offset in positions.items()))


def _chunk_lists(
    chunks: Mapping[TopicPartitionKey, Sequence[Chunk]],
) -> tuple[tuple[TopicPartitionKey, tuple[Chunk, ...]], ...]:
    return tuple(
        sorted((_key(key), tuple(sorted((int(lo), int(hi)) for lo, hi in pairs))) for key, pairs in chunks.items())
    )


def _json(document: object) -> str:
    return json.dumps(document, separators=(",", ":"))
