"""Options of the ``lakesink-kafka`` data source, and how secrets travel inside them.

Spark shows data source options in query plans (``explain``, the SQL tab of the UI, event
logs) but redacts every option whose key or value matches ``spark.redaction.regex`` (default
``(?i)secret|password|token|access[.]key``). Keys such as ``sasl.jaas.config`` or
``basic.auth.user.info`` do not match, so :func:`encode_options` moves every credential under
the key ``secret.<original key>``: always redacted, whatever the original name. Options are the
only channel that reaches the driver-side planner and every executor without a shared file
system; :func:`decode_options` restores the keys and wraps the values in
:class:`~lakesink.domain.config.secret.Secret` again.

Spark hands a Python data source its options as strings, so the streaming source parses them
(:meth:`SourceOptions.parse`) into objects, the admission among them
(:class:`~lakesink.domain.flush.admission.AdmissionPolicy`). A caller that holds the objects
builds :class:`SourceOptions` directly; the sink describes its source once, as a
:class:`SinkSource`, and takes either form from it: strings for a streaming query, the options
themselves for a ``--once`` run planned on the driver.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from lakesink.adapters.kafka.client_config import is_sensitive
from lakesink.adapters.kafka.offsets import (
    EARLIEST,
    ENDING_OFFSETS,
    FIRST_BATCH_CHUNKS,
    LATEST,
    STARTING_OFFSETS,
    OffsetSpec,
    TopicPartitionKey,
    chunks_from_json,
    chunks_to_json,
    to_json,
)
from lakesink.adapters.kafka.topic_selection import TopicSelection
from lakesink.domain.commit.chunks import Chunk
from lakesink.domain.config.secret import Secret
from lakesink.domain.config.values import as_bool, as_float, as_int
from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.admission import AdmissionPolicy

SECRET_PREFIX = "secret."

TOPICS = "topics"
TOPICS_REGEX = "topics.regex"
FLUSH_COUNT = "flush.count"
FLUSH_INTERVAL = "flush.interval"
MAX_RECORDS_PER_PARTITION = "maxRecordsPerPartition"
BATCH_RECORDS = "arrowBatchRecords"
STALL_TIMEOUT = "readStallTimeoutSeconds"
GROUP_ID = "group.id"
FIRST_BATCH_END_OFFSETS = "firstBatchEndOffsets"
RANGES_ONLY = "rangesOnly"
MAX_RANGE_OFFSETS = "maxRangeOffsets"
DEFAULT_GROUP_ID = "lakesink-source"
DEFAULT_BATCH_RECORDS = 10_000
DEFAULT_STALL_TIMEOUT_S = 60.0


def encode_options(settings: Mapping[str, str | Secret]) -> dict[str, str]:
    """String options for ``DataStreamReader.options``; credentials moved under ``secret.``."""
    options = {}
    for key, value in settings.items():
        if isinstance(value, Secret) or is_sensitive(key):
            options[SECRET_PREFIX + key] = value.reveal() if isinstance(value, Secret) else value
        else:
            options[key] = value
    return options


def decode_options(options: Mapping[str, str]) -> dict[str, str | Secret]:
    """The settings :func:`encode_options` was given, credentials as Secret again."""
    settings: dict[str, str | Secret] = {}
    for key, value in options.items():
        if key.lower().startswith(SECRET_PREFIX):
            settings[key[len(SECRET_PREFIX) :]] = Secret(value)
        else:
            settings[key] = value
    return settings


@dataclass(frozen=True)
class SourceOptions:
    """The options as objects: parsed from Spark's strings (:meth:`parse`) or built directly.

    The defaults are those of an option left unset. ``client_settings`` keeps everything for the
    Kafka client config (the consumer and admin configs take the client keys from it and ignore
    the rest).
    """

    topics: str | None = None
    topics_regex: str | None = None
    starting: OffsetSpec = OffsetSpec(default=EARLIEST)
    ending: OffsetSpec = OffsetSpec(default=LATEST)
    policy: AdmissionPolicy = AdmissionPolicy()
    first_batch_end: tuple[tuple[TopicPartitionKey, int], ...] = ()
    first_batch_chunks: tuple[tuple[TopicPartitionKey, tuple[Chunk, ...]], ...] = ()
    max_range_offsets: int | None = None
    batch_records: int = DEFAULT_BATCH_RECORDS
    stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S
    group_id: str = DEFAULT_GROUP_ID
    read_committed: bool = True
    ranges_only: bool = False
    client_settings: Mapping[str, str | Secret] = field(default_factory=dict, repr=False)

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> SourceOptions:
        """Parse Spark's (case-insensitive) options; errors name the option at fault."""
        settings = decode_options({key.lower(): value for key, value in options.items()})
        plain = {key: value for key, value in settings.items() if isinstance(value, str)}
        interval = plain.get(FLUSH_INTERVAL.lower())
        policy = AdmissionPolicy(
            flush_count=_optional_int(plain, FLUSH_COUNT),
            flush_interval_ms=(
                None if interval is None else round(as_float(FLUSH_INTERVAL, interval, minimum=0.001) * 1000)
            ),
            max_records_per_partition=_optional_int(plain, MAX_RECORDS_PER_PARTITION),
        )
        stall = plain.get(STALL_TIMEOUT.lower())
        stall_timeout_s = (
            DEFAULT_STALL_TIMEOUT_S if stall is None else as_float(STALL_TIMEOUT, stall, minimum=0.1)
        )
        isolation = plain.get("isolation.level", plain.get("kafka.isolation.level", "read_committed"))
        return cls(
            topics=plain.get(TOPICS),
            topics_regex=plain.get(TOPICS_REGEX),
            starting=OffsetSpec.parse(plain.get(STARTING_OFFSETS.lower()), setting=STARTING_OFFSETS,
                                      default=EARLIEST),
            ending=OffsetSpec.parse(
                plain.get(ENDING_OFFSETS.lower()), setting=ENDING_OFFSETS, default=LATEST
            ),
            policy=policy,
            first_batch_end=OffsetSpec.parse(
                plain.get(FIRST_BATCH_END_OFFSETS.lower()), setting=FIRST_BATCH_END_OFFSETS, default=LATEST
            ).explicit,
            first_batch_chunks=_chunks(plain.get(FIRST_BATCH_CHUNKS.lower())),
            max_range_offsets=_optional_int(plain, MAX_RANGE_OFFSETS),
            batch_records=_optional_int(plain, BATCH_RECORDS) or DEFAULT_BATCH_RECORDS,
            stall_timeout_s=stall_timeout_s,
            group_id=plain.get(GROUP_ID, DEFAULT_GROUP_ID),
            read_committed=isolation.strip().lower() != "read_uncommitted",
            ranges_only=as_bool(RANGES_ONLY, plain.get(RANGES_ONLY.lower(), "false")),
            client_settings=settings,
        )

    def selection(self) -> TopicSelection:
        """The topics to read (validated: exactly one of topics / topics.regex)."""
        return TopicSelection(self.topics, self.topics_regex)


@dataclass(frozen=True)
class SinkSource:
    """The ``lakesink-kafka`` source a sink run reads, from the driver's objects: one value, two forms.

    A continuous run hands :meth:`encode` to ``DataStreamReader.options`` (Spark passes options
    to a Python data source as strings; the source parses them back with
    :meth:`SourceOptions.parse`); a ``--once`` run plans on the driver with :meth:`options`,
    without strings in between. ``SourceOptions.parse(source.encode())`` and
    ``source.options()`` agree on everything but the non-client keys kept in
    ``client_settings``, which no client config reads. The sink always reads ranges only
    (``rangesOnly``): its tasks read their range from Kafka themselves.

    The client settings are the bottom layer and what the run sets goes on top, as when both were
    one options map: a client setting that names a source option (``consumer.group.id``,
    ``consumer.isolation.level``, ``consumer.maxRecordsPerPartition``...) applies unless the run
    sets that option itself.

    Attributes:
        client_settings: the Kafka client settings, ``bootstrap.servers`` included; credentials
            as :class:`~lakesink.domain.config.secret.Secret`.
        topics: comma-separated topic names; when empty, ``topics_regex`` selects.
        topics_regex: the topic pattern (``topics.regex``), used when ``topics`` is empty.
        policy: admission, usually
            :meth:`AdmissionPolicy.for_flushes <lakesink.domain.flush.admission.AdmissionPolicy.for_flushes>`
            of the statements; a None field leaves the option unset.
        starting: the next offset to read per partition (``startingOffsets``); partitions it does
            not name start at earliest, and an empty mapping leaves the option unset.
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
        """The string options of a streaming query: client settings, then the run's options."""
        return encode_options({**self.client_settings, **self._run_options()})

    def options(self) -> SourceOptions:
        """The options :meth:`encode`'s strings parse into, built from the objects."""
        base = SourceOptions.parse(encode_options(self.client_settings))
        policy = self.policy
        return replace(
            base,
            topics=self.topics if self.topics else base.topics,
            topics_regex=base.topics_regex if self.topics else (self.topics_regex or ""),
            starting=(
                OffsetSpec(default=EARLIEST, explicit=_positions(self.starting))
                if self.starting
                else base.starting
            ),
            policy=AdmissionPolicy(
                flush_count=_set_or(policy.flush_count, base.policy.flush_count),
                flush_interval_ms=_set_or(policy.flush_interval_ms, base.policy.flush_interval_ms),
                max_records_per_partition=_set_or(
                    policy.max_records_per_partition, base.policy.max_records_per_partition
                ),
            ),
            first_batch_end=(
                _positions(self.first_batch_end) if self.first_batch_end else base.first_batch_end
            ),
            first_batch_chunks=(
                _chunk_lists(self.first_batch_chunks) if self.first_batch_chunks else base.first_batch_chunks
            ),
            max_range_offsets=_set_or(self.max_range_offsets, base.max_range_offsets),
            ranges_only=True,
        )

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
        options[RANGES_ONLY] = "true"
        if self.topics:
            options[TOPICS] = self.topics
        else:
            options[TOPICS_REGEX] = self.topics_regex or ""
        if self.starting:
            options[STARTING_OFFSETS] = _json(to_json(self.starting))
        if self.first_batch_end:
            options[FIRST_BATCH_END_OFFSETS] = _json(to_json(self.first_batch_end))
        if self.first_batch_chunks:
            options[FIRST_BATCH_CHUNKS] = _json(chunks_to_json(self.first_batch_chunks))
        if self.max_range_offsets is not None:
            options[MAX_RANGE_OFFSETS] = str(self.max_range_offsets)
        return options


def _set_or(value: int | None, fallback: int | None) -> int | None:
    return fallback if value is None else value


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


def _chunks(raw: str | None) -> tuple[tuple[TopicPartitionKey, tuple[Chunk, ...]], ...]:
    if raw is None or not raw.strip():
        return ()
    try:
        document = json.loads(raw)
    except ValueError:
        raise ConfigError(f"Invalid {FIRST_BATCH_CHUNKS}: expected a JSON object.") from None
    return tuple(sorted(chunks_from_json(document, setting=FIRST_BATCH_CHUNKS).items()))


def _optional_int(options: Mapping[str, str], key: str) -> int | None:
    raw = options.get(key.lower())
    return None if raw is None else as_int(key, raw, minimum=1)
