"""Options of the ``lakesink-kafka`` data source (Spark's Kafka source names), and how secrets travel.

Spark's options lakesink cannot honour, the Kafka settings Spark refuses and unknown names are
errors, never ignored. Credentials travel under ``secret.<original key>``
(:func:`encode_options`), which ``spark.redaction.regex`` always hides in query plans.
See docs/library.md, "Options, side by side with Spark's Kafka source" and "Credentials in query
plans".
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
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
)
from lakesink.domain.commit.chunks import Chunk
from lakesink.domain.config.secret import Secret
from lakesink.domain.config.values import as_bool, as_float, as_int
from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.admission import AdmissionPolicy
from lakesink.domain.subscription import ASSIGN, SUBSCRIBE, SUBSCRIBE_PATTERN, TopicSelection

logger = logging.getLogger(__name__)

SECRET_PREFIX = "secret."
KAFKA_PREFIX = "kafka."

# Spark's Kafka source options that lakesink honours.
FAIL_ON_DATA_LOSS = "failOnDataLoss"
MAX_OFFSETS_PER_TRIGGER = "maxOffsetsPerTrigger"
INCLUDE_HEADERS = "includeHeaders"
MIN_PARTITIONS = "minPartitions"
MAX_RECORDS_PER_PARTITION = "maxRecordsPerPartition"
GROUP_ID_PREFIX = "groupIdPrefix"
POLL_TIMEOUT_MS = "kafkaConsumer.pollTimeoutMs"
SPARK_OPTIONS = (
    SUBSCRIBE,
    SUBSCRIBE_PATTERN,
    ASSIGN,
    STARTING_OFFSETS,
    ENDING_OFFSETS,
    FAIL_ON_DATA_LOSS,
    MAX_OFFSETS_PER_TRIGGER,
    INCLUDE_HEADERS,
    MIN_PARTITIONS,
    MAX_RECORDS_PER_PARTITION,
    GROUP_ID_PREFIX,
    POLL_TIMEOUT_MS,
)

# lakesink's own options.
FLUSH_COUNT = "flush.count"
FLUSH_INTERVAL = "flush.interval"
BATCH_RECORDS = "arrowBatchRecords"
STALL_TIMEOUT = "readStallTimeoutSeconds"
FIRST_BATCH_END_OFFSETS = "firstBatchEndOffsets"
RANGES_ONLY = "rangesOnly"
MAX_RANGE_OFFSETS = "maxRangeOffsets"
EXTENSIONS = (
    FLUSH_COUNT,
    FLUSH_INTERVAL,
    BATCH_RECORDS,
    STALL_TIMEOUT,
    FIRST_BATCH_END_OFFSETS,
    FIRST_BATCH_CHUNKS,
    RANGES_ONLY,
    MAX_RANGE_OFFSETS,
)

UNSUPPORTED = {
    "startingOffsetsByTimestamp": "start from offsets with startingOffsets",
    "startingTimestamp": "start from offsets with startingOffsets",
    "startingOffsetsByTimestampStrategy": "start from offsets with startingOffsets",
    "endingOffsetsByTimestamp": "end at offsets with endingOffsets",
    "endingTimestamp": "end at offsets with endingOffsets",
    "minOffsetsPerTrigger": "flush.count and flush.interval hold records back per partition instead",
    "maxTriggerDelay": "flush.interval bounds how long records wait instead",
    "fetchOffset.numRetries": "the driver's metadata and offset requests wait up to 30 s, then fail the batch",
    "fetchOffset.retryIntervalMs": "the driver's metadata and offset requests wait up to 30 s, then fail the batch",
}
"""Spark's Kafka source options lakesink does not implement: refused, with what to use instead."""

REFUSED_CLIENT_KEYS = {
    "auto.offset.reset": (
        "set the source option startingOffsets to earliest or latest instead; it applies when a query "
        "starts, and a resumed query continues where it left off"
    ),
    "key.deserializer": "keys are read as bytes; deserialize them with DataFrame operations",
    "value.deserializer": "values are read as bytes; deserialize them with DataFrame operations",
    "enable.auto.commit": "the source tracks offsets in Spark's checkpoint and never commits them to Kafka",
    "interceptor.classes": "interceptors could change the records read",
}
"""Kafka settings Spark's Kafka source refuses (as ``kafka.<key>``), and why; refused here too."""

DEFAULT_GROUP_ID = "lakesink-source"
DEFAULT_BATCH_RECORDS = 10_000
DEFAULT_STALL_TIMEOUT_S = 60.0
_KNOWN = {name.lower(): name for name in (*SPARK_OPTIONS, *EXTENSIONS)}


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

    The defaults are those of an option left unset. ``starting`` / ``ending`` stay None when
    unset: their defaults depend on the query (:meth:`for_stream`, :meth:`for_batch`).
    ``client_settings`` are the ``kafka.`` settings without the prefix.
    """

    subscribe: str | None = None
    subscribe_pattern: str | None = None
    assign: str | None = None
    starting: OffsetSpec | None = None
    ending: OffsetSpec | None = None
    policy: AdmissionPolicy = AdmissionPolicy()
    first_batch_end: tuple[tuple[TopicPartitionKey, int], ...] = ()
    first_batch_chunks: tuple[tuple[TopicPartitionKey, tuple[Chunk, ...]], ...] = ()
    max_range_offsets: int | None = None
    min_partitions: int | None = None
    batch_records: int = DEFAULT_BATCH_RECORDS
    stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S
    group_id: str = DEFAULT_GROUP_ID
    read_committed: bool = True
    fail_on_data_loss: bool = True
    include_headers: bool = False
    ranges_only: bool = False
    client_settings: Mapping[str, str | Secret] = field(default_factory=dict, repr=False)

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> SourceOptions:
        """Parse Spark's (case-insensitive) options; errors name the option at fault."""
        client, plain = _split(decode_options({key.lower(): value for key, value in options.items()}))
        if "bootstrap.servers" not in client:
            raise ConfigError(
                "Option kafka.bootstrap.servers must be set (the Kafka brokers, host:port,...)."
            )
        interval = plain.get(FLUSH_INTERVAL)
        policy = AdmissionPolicy(
            flush_count=_optional_int(plain, FLUSH_COUNT),
            flush_interval_ms=(
                None if interval is None else round(as_float(FLUSH_INTERVAL, interval, minimum=0.001) * 1000)
            ),
            max_records_per_partition=_optional_int(plain, MAX_RECORDS_PER_PARTITION),
            max_offsets_per_trigger=_optional_int(plain, MAX_OFFSETS_PER_TRIGGER),
        )
        parsed = cls(
            subscribe=plain.get(SUBSCRIBE),
            subscribe_pattern=plain.get(SUBSCRIBE_PATTERN),
            assign=plain.get(ASSIGN),
            starting=_offsets(plain, STARTING_OFFSETS, unnamed=EARLIEST),
            ending=_offsets(plain, ENDING_OFFSETS, unnamed=LATEST),
            policy=policy,
            first_batch_end=(_offsets(plain, FIRST_BATCH_END_OFFSETS, unnamed=LATEST) or OffsetSpec()).explicit,
            first_batch_chunks=_chunks(plain.get(FIRST_BATCH_CHUNKS)),
            max_range_offsets=_optional_int(plain, MAX_RANGE_OFFSETS),
            min_partitions=_optional_int(plain, MIN_PARTITIONS),
            batch_records=_optional_int(plain, BATCH_RECORDS) or DEFAULT_BATCH_RECORDS,
            stall_timeout_s=_stall_timeout_s(plain),
            group_id=consumer_group_id(client, plain.get(GROUP_ID_PREFIX)),
            read_committed=reads_committed(client),
            fail_on_data_loss=as_bool(FAIL_ON_DATA_LOSS, plain.get(FAIL_ON_DATA_LOSS, "true")),
            include_headers=as_bool(INCLUDE_HEADERS, plain.get(INCLUDE_HEADERS, "false")),
            ranges_only=as_bool(RANGES_ONLY, plain.get(RANGES_ONLY, "false")),
            client_settings=client,
        )
        parsed.selection()  # refuse a missing or malformed subscription when the query is defined
        return parsed

    def selection(self) -> TopicSelection:
        """The topic-partitions to read (validated: exactly one of subscribe / subscribePattern / assign)."""
        return TopicSelection(self.subscribe, self.subscribe_pattern, self.assign)

    def for_stream(self) -> SourceOptions:
        """These options in a streaming query: ``startingOffsets`` defaults to latest, no ``endingOffsets``."""
        if self.ending is not None:
            raise ConfigError(
                f"{ENDING_OFFSETS} is not valid in streaming queries: it bounds a batch read (spark.read)."
            )
        return self if self.starting is not None else replace(self, starting=OffsetSpec(default=LATEST))

    def for_batch(self) -> SourceOptions:
        """These options in a batch read: ``earliest`` to ``latest`` by default, as Spark checks them."""
        starting = self.starting or OffsetSpec(default=EARLIEST)
        ending = self.ending or OffsetSpec(default=LATEST)
        _check_batch_bound(starting, STARTING_OFFSETS, refused=LATEST, word="latest")
        _check_batch_bound(ending, ENDING_OFFSETS, refused=EARLIEST, word="earliest")
        _check_start_before_end(starting, ending)
        ignored = self._stream_only()
        if ignored:
            logger.warning("%s ignored in batch reads (they apply to streaming queries)", ", ".join(ignored))
        return replace(self, starting=starting, ending=ending)

    @property
    def split_offsets(self) -> int | None:
        """The most offsets of one range: ``maxRangeOffsets`` or ``maxRecordsPerPartition``, the smaller."""
        sizes = [s for s in (self.max_range_offsets, self.policy.max_records_per_partition) if s is not None]
        return min(sizes, default=None)

    def _stream_only(self) -> list[str]:
        """The options set here that only a streaming query uses (Spark warns about its own)."""
        policy = self.policy
        values = {
            FLUSH_COUNT: policy.flush_count,
            FLUSH_INTERVAL: policy.flush_interval_ms,
            MAX_OFFSETS_PER_TRIGGER: policy.max_offsets_per_trigger,
            FIRST_BATCH_END_OFFSETS: self.first_batch_end or None,
        }
        return [name for name, value in values.items() if value is not None]


def _split(settings: Mapping[str, str | Secret]) -> tuple[dict[str, str | Secret], dict[str, str]]:
    """``(client settings without kafka., the other options by their canonical name)``; refuses the rest."""
    client: dict[str, str | Secret] = {}
    plain: dict[str, str] = {}
    for key, value in settings.items():
        if key.startswith(KAFKA_PREFIX):
            name = key[len(KAFKA_PREFIX) :]
            if name in REFUSED_CLIENT_KEYS:
                raise ConfigError(f"Kafka option {key} is not supported: {REFUSED_CLIENT_KEYS[name]}.")
            client[name] = value
            continue
        unsupported = next((name for name in UNSUPPORTED if name.lower() == key), None)
        if unsupported is not None:
            raise ConfigError(
                f"Option {unsupported} of Spark's Kafka source is not supported by lakesink-kafka; "
                f"{UNSUPPORTED[unsupported]}."
            )
        if key not in _KNOWN:
            raise ConfigError(
                f"Unknown option {key!r} for lakesink-kafka. Valid options: kafka.<Kafka client setting>, "
                f"{', '.join(SPARK_OPTIONS)}; lakesink extensions: {', '.join(EXTENSIONS)}."
            )
        plain[_KNOWN[key]] = value.reveal() if isinstance(value, Secret) else value
    return client, plain


def _text(value: str | Secret | None) -> str | None:
    return value.reveal() if isinstance(value, Secret) else value


def consumer_group_id(client: Mapping[str, str | Secret], prefix: str | None) -> str:
    """``kafka.group.id``, else ``groupIdPrefix``, else lakesink's own name.

    The readers never join the group nor commit to it (they assign partitions and Spark's
    checkpoint holds the offsets), so the id only names the consumers: Spark's unique suffix,
    which keeps concurrent queries out of each other's group, is not needed.
    """
    return _text(client.get("group.id")) or (prefix or "").strip() or DEFAULT_GROUP_ID


def reads_committed(client: Mapping[str, str | Secret]) -> bool:
    """Whether the readers skip aborted transactions: unless ``isolation.level=read_uncommitted``."""
    return (_text(client.get("isolation.level")) or "read_committed").strip().lower() != "read_uncommitted"


def _stall_timeout_s(options: Mapping[str, str]) -> float:
    """``readStallTimeoutSeconds``, or Spark's ``kafkaConsumer.pollTimeoutMs`` in seconds: one of them."""
    stall, poll = options.get(STALL_TIMEOUT), options.get(POLL_TIMEOUT_MS)
    if stall is not None and poll is not None:
        raise ConfigError(f"Set one of {STALL_TIMEOUT} and {POLL_TIMEOUT_MS} (both bound a task's wait for Kafka).")
    if poll is not None:
        return as_int(POLL_TIMEOUT_MS, poll, minimum=100) / 1000
    return DEFAULT_STALL_TIMEOUT_S if stall is None else as_float(STALL_TIMEOUT, stall, minimum=0.1)


def _offsets(options: Mapping[str, str], name: str, *, unnamed: int) -> OffsetSpec | None:
    """The offsets option ``name`` (None when unset); partitions a JSON map does not name get ``unnamed``."""
    raw = options.get(name)
    return None if raw is None or not raw.strip() else OffsetSpec.parse(raw, setting=name, default=unnamed)


def _check_batch_bound(spec: OffsetSpec, name: str, *, refused: int, word: str) -> None:
    if spec.default == refused:
        raise ConfigError(f"{name} can't be {word} for batch queries on Kafka.")
    for (topic, partition), offset in spec.explicit:
        if offset == refused:
            raise ConfigError(f"{name} for {topic}-{partition} can't be {word} ({refused}) for batch queries on Kafka.")


def _check_start_before_end(starting: OffsetSpec, ending: OffsetSpec) -> None:
    """Spark's check of two JSON maps: the same partitions, and no start after its end."""
    if not starting.explicit or not ending.explicit:
        return
    start, end = dict(starting.explicit), dict(ending.explicit)
    if start.keys() != end.keys():
        raise ConfigError(
            f"{STARTING_OFFSETS} and {ENDING_OFFSETS} must name the same partitions "
            f"({sorted(start)} vs {sorted(end)})."
        )
    for key, offset in sorted(start.items()):
        if 0 <= end[key] < offset:
            raise ConfigError(
                f"{STARTING_OFFSETS} for {key[0]}-{key[1]} ({offset}) is after its {ENDING_OFFSETS} ({end[key]})."
            )


def _chunks(raw: str | None) -> tuple[tuple[TopicPartitionKey, tuple[Chunk, ...]], ...]:
    if raw is None or not raw.strip():
        return ()
    try:
        document = json.loads(raw)
    except ValueError:
        raise ConfigError(f"Invalid {FIRST_BATCH_CHUNKS}: expected a JSON object.") from None
    return tuple(sorted(chunks_from_json(document, setting=FIRST_BATCH_CHUNKS).items()))


def _optional_int(options: Mapping[str, str], key: str) -> int | None:
    raw = options.get(key)
    return None if raw is None else as_int(key, raw, minimum=1)
