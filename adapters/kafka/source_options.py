"""Options of the ``lakesink-kafka`` data source, and how secrets travel inside them.

Spark shows data source options in query plans (``explain``, the SQL tab of the UI, event
logs) but redacts every option whose key or value matches ``spark.redaction.regex`` (default
``(?i)secret|password|token|access[.]key``). Keys such as ``sasl.jaas.config`` or
``basic.auth.user.info`` do not match, so :func:`encode_options` moves every credential under
the key ``secret.<original key>``: always redacted, whatever the original name. Options are the
only channel that reaches the driver-side planner and every executor without a shared file
system; :func:`decode_options` restores the keys and wraps the values in
:class:`~lakesink.domain.config.secret.Secret` again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

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
    """The parsed options; ``client_settings`` keeps everything for the Kafka client config."""

    topics: str | None
    topics_regex: str | None
    starting: OffsetSpec
    ending: OffsetSpec
    policy: AdmissionPolicy
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
