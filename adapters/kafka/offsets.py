"""Offsets of the Kafka source: the JSON form Spark checkpoints, ranges, starting positions.

The public form is ``{topic: {"partition": next}}`` (the domain's
:func:`~lakesink.domain.records.positions_json` writes it), ``next`` the next offset to read (Kafka's
convention); inside the source a position map is ``{(topic, partition): next}``. A partition's
range may be cut into chunks (:func:`ranges_between`, :func:`split_for_min_partitions`).
See docs/kafka.md, "Planning, admission control and offsets".
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lakesink.domain.commit.chunks import Chunk, chunk_bounds
from lakesink.domain.errors import ConfigError
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.records import TopicPartition

TopicPartitionKey = TopicPartition
"""The domain's :data:`~lakesink.domain.records.TopicPartition`, named apart from confluent_kafka's class."""
Positions = dict[TopicPartitionKey, int]

EARLIEST = -2
LATEST = -1
STARTING_OFFSETS = "startingOffsets"
ENDING_OFFSETS = "endingOffsets"
FIRST_BATCH_CHUNKS = "firstBatchChunks"


class KafkaDataLossError(RuntimeError):
    """Offsets to read are no longer in Kafka (retention, a deleted topic), with ``failOnDataLoss=true``."""

    def __init__(self, where: str) -> None:
        super().__init__(
            f"{where}: some data may have been lost (aged out by retention, or the topic was deleted). "
            "Set the source option failOnDataLoss=false to continue from the earliest offset available."
        )


def from_json(document: Mapping[str, Any], *, setting: str = "offsets") -> Positions:
    """Parse the public form; raises ConfigError naming ``setting`` when it is malformed."""
    positions: Positions = {}
    for (topic, partition), offset in _entries(document, setting, "offset"):
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < EARLIEST:
            raise ConfigError(f"Invalid {setting}: offset {offset!r} for {topic}-{partition}.")
        positions[(topic, partition)] = offset
    return positions


def _entries(document: Any, setting: str, what: str) -> Iterator[tuple[TopicPartitionKey, Any]]:
    """The ``((topic, partition), value)`` pairs of a ``{topic: {partition: value}}`` document."""
    if not isinstance(document, Mapping):
        raise ConfigError(f"Invalid {setting}: expected a JSON object {{topic: {{partition: {what}}}}}.")
    for topic, partitions in document.items():
        if not isinstance(partitions, Mapping):
            raise ConfigError(f"Invalid {setting}: topic {topic!r} must map partitions to a {what} each.")
        for partition, value in partitions.items():
            try:
                key = (str(topic), int(partition))
            except (TypeError, ValueError):
                raise ConfigError(f"Invalid {setting}: partition {partition!r} of {topic!r}.") from None
            yield key, value


@dataclass(frozen=True, slots=True)
class OffsetSpec:
    """Where reading starts (or ends) per partition: a default plus explicit positions.

    ``startingOffsets`` follows Spark's Kafka source: ``earliest``, ``latest``, or a JSON map in the
    public form where ``-2`` means earliest and ``-1`` latest for one partition. Partitions the map
    does not name start at ``earliest`` (Spark refuses such a map; the sink passes the positions of
    its index, and a partition the index has never seen must be read from its beginning).
    """

    default: int = EARLIEST
    explicit: tuple[tuple[TopicPartitionKey, int], ...] = ()

    @classmethod
    def parse(cls, raw: str | None, *, setting: str, default: int) -> OffsetSpec:
        """``earliest`` / ``latest`` / JSON map; ``None`` or empty gives ``default``."""
        text = (raw or "").strip()
        if not text:
            return cls(default=default)
        if text.lower() == "earliest":
            return cls(default=EARLIEST)
        if text.lower() == "latest":
            return cls(default=LATEST)
        try:
            document = json.loads(text)
        except ValueError:
            raise ConfigError(
                f"Invalid {setting}: expected earliest, latest or a JSON offsets map."
            ) from None
        return cls(default=default, explicit=tuple(sorted(from_json(document, setting=setting).items())))

    def resolve(self, key: TopicPartitionKey, low: int, high: int) -> int:
        """The concrete offset for ``key`` given its current watermarks."""
        wanted = dict(self.explicit).get(key, self.default)
        if wanted == EARLIEST:
            return low
        if wanted == LATEST:
            return high
        return wanted


def ranges_between(
    start: Mapping[TopicPartitionKey, int],
    end: Mapping[TopicPartitionKey, int],
    *,
    max_offsets: int | None = None,
    pinned: Mapping[TopicPartitionKey, Sequence[Chunk]] | None = None,
) -> list[OffsetRange]:
    """The ranges of every partition that advanced from ``start`` to ``end``, in a stable order.

    A partition present in ``end`` but not in ``start`` was registered by the batch that ends
    at ``end`` and is read from the next batch on, so it yields no range here. Each partition's
    ``[start, end)`` is split into chunks of at most ``max_offsets`` offsets around its ``pinned``
    chunks (:func:`~lakesink.domain.commit.chunks.chunk_bounds`); every chunk is one range, one task.
    """
    ranges = []
    for (topic, partition), stop in sorted(end.items()):
        begin = start.get((topic, partition))
        if begin is None:
            continue
        kept = (pinned or {}).get((topic, partition), ())
        ranges.extend(
            OffsetRange(topic, partition, lo, hi) for lo, hi in chunk_bounds(begin, stop, max_offsets, kept)
        )
    return ranges


def split_for_min_partitions(ranges: Sequence[OffsetRange], min_partitions: int | None) -> list[OffsetRange]:
    """``ranges`` split into about ``min_partitions`` ranges, the largest split most (``minPartitions``).

    Spark's Kafka source rule: with fewer non-empty ranges than ``min_partitions``, each range gets
    a number of parts proportional to its share of all offsets (rounded, at least one); ranges that
    get one part are left whole and the parts are apportioned among the others; a range's parts
    are equal but for the rounding, which goes to its last part. A pure function of the ranges, so
    re-planning a batch gives the same splits.
    """
    ranges = [r for r in ranges if r.size > 0]
    if min_partitions is None or len(ranges) >= min_partitions:
        return ranges
    total = sum(r.size for r in ranges)
    whole = [r for r in ranges if _parts(r.size, total, min_partitions) == 1]
    split_total = total - sum(r.size for r in whole)
    split_min = max(min_partitions - len(whole), 1)
    result = []
    for rng in ranges:
        parts = 1 if rng in whole else _parts(rng.size, split_total, split_min)
        remaining, begin = rng.size, rng.start
        for part in range(parts):
            size = remaining // (parts - part)
            remaining -= size
            result.append(OffsetRange(rng.topic, rng.partition, begin, min(begin + size, rng.end)))
            begin += size
    return [r for r in result if r.size > 0]


def _parts(size: int, total: int, min_partitions: int) -> int:
    return max(math.floor(size / total * min_partitions + 0.5), 1)  # half up, as Java's Math.round


def chunks_to_json(
    chunks: Mapping[TopicPartitionKey, Sequence[Chunk]],
) -> dict[str, dict[str, list[list[int]]]]:
    """``{topic: {"partition": [[start, end], ...]}}``: the form of :data:`FIRST_BATCH_CHUNKS`."""
    result: dict[str, dict[str, list[list[int]]]] = {}
    for (topic, partition), pairs in sorted(chunks.items()):
        result.setdefault(topic, {})[str(partition)] = [[int(lo), int(hi)] for lo, hi in sorted(pairs)]
    return result


def chunks_from_json(
    document: Mapping[str, Any], *, setting: str
) -> dict[TopicPartitionKey, tuple[Chunk, ...]]:
    """Parse :func:`chunks_to_json`'s form; raises ConfigError naming ``setting`` when it is malformed."""
    chunks: dict[TopicPartitionKey, tuple[Chunk, ...]] = {}
    for (topic, partition), pairs in _entries(document, setting, "list of [start, end] pairs"):
        if not isinstance(pairs, list) or not all(_is_chunk(pair) for pair in pairs):
            raise ConfigError(
                f"Invalid {setting}: {topic}-{partition} must map to a list of [start, end] offset pairs, "
                "0 <= start < end."
            )
        chunks[(topic, partition)] = tuple(sorted((lo, hi) for lo, hi in pairs))
    return chunks


def _is_chunk(pair: object) -> bool:
    if not isinstance(pair, list) or len(pair) != 2:
        return False
    if not all(isinstance(offset, int) and not isinstance(offset, bool) for offset in pair):
        return False
    return 0 <= pair[0] < pair[1]
