"""Offsets of the Kafka source: the JSON form Spark checkpoints, ranges, starting positions.

Spark stores a source offset as JSON, so the public form is ``{topic: {"partition": next}}``
(JSON object keys are strings): ``next`` is the next offset to read, the Kafka convention, so
``{"orders": {"0": 42}}`` means records 0..41 of orders-0 are behind us. Inside the source a
position map is ``{(topic, partition): next}``.

``startingOffsets`` follows Spark's Kafka source: ``earliest``, ``latest``, or a JSON map in
the public form where ``-2`` means earliest and ``-1`` latest for one partition. Partitions the
map does not name start at ``earliest`` (the sink passes the positions of its index, and a
partition the index has never seen must be read from its beginning).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import InputPartition

from lakesink.domain.errors import ConfigError

TopicPartitionKey = tuple[str, int]
Positions = dict[TopicPartitionKey, int]
OffsetJson = dict[str, dict[str, int]]

EARLIEST = -2
LATEST = -1
STARTING_OFFSETS = "startingOffsets"
ENDING_OFFSETS = "endingOffsets"


@dataclass(frozen=True)
class OffsetRange(InputPartition):
    """One Spark task's work: offsets ``[start, end)`` of one topic-partition.

    A retried task receives the same range and so reads exactly the same records.
    """

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        """Upper bound of the records in the range (gaps make the real count smaller)."""
        return self.end - self.start

    def describe(self) -> str:
        """``topic-partition[start, end)`` for logs and errors."""
        return f"{self.topic}-{self.partition}[{self.start}, {self.end})"


def to_json(positions: Mapping[TopicPartitionKey, int]) -> OffsetJson:
    """The JSON-serialisable form Spark checkpoints; topics and partitions sorted."""
    result: OffsetJson = {}
    for (topic, partition), offset in sorted(positions.items()):
        result.setdefault(topic, {})[str(partition)] = int(offset)
    return result


def from_json(document: Mapping[str, Any], *, setting: str = "offsets") -> Positions:
    """Parse the public form; raises ConfigError naming ``setting`` when it is malformed."""
    positions: Positions = {}
    if not isinstance(document, Mapping):
        raise ConfigError(f"Invalid {setting}: expected a JSON object {{topic: {{partition: offset}}}}.")
    for topic, partitions in document.items():
        if not isinstance(partitions, Mapping):
            raise ConfigError(f"Invalid {setting}: topic {topic!r} must map partitions to offsets.")
        for partition, offset in partitions.items():
            try:
                key = (str(topic), int(partition))
            except (TypeError, ValueError):
                raise ConfigError(f"Invalid {setting}: partition {partition!r} of {topic!r}.") from None
            if isinstance(offset, bool) or not isinstance(offset, int) or offset < EARLIEST:
                raise ConfigError(f"Invalid {setting}: offset {offset!r} for {topic}-{partition}.")
            positions[key] = offset
    return positions


@dataclass(frozen=True, slots=True)
class OffsetSpec:
    """Where reading starts (or ends) per partition: a default plus explicit positions."""

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
    start: Mapping[TopicPartitionKey, int], end: Mapping[TopicPartitionKey, int]
) -> list[OffsetRange]:
    """One range per partition that advanced from ``start`` to ``end``, in a stable order.

    A partition present in ``end`` but not in ``start`` was registered by the batch that ends
    at ``end`` and is read from the next batch on, so it yields no range here.
    """
    ranges = []
    for (topic, partition), stop in sorted(end.items()):
        begin = start.get((topic, partition))
        if begin is not None and stop > begin:
            ranges.append(OffsetRange(topic, partition, begin, stop))
    return ranges
