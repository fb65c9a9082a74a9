"""The offset ranges a ``lakesink-kafka`` stream reader plans for one micro-batch, unwrapped from the
``InputPartition`` each one travels to its task in."""

from __future__ import annotations

from typing import Any

from lakesink.adapters.kafka.source import KafkaStreamReader
from lakesink.domain.offset_range import OffsetRange


def planned_ranges(reader: KafkaStreamReader, start: dict[str, Any], end: dict[str, Any]) -> list[OffsetRange]:
    """What Spark's ``partitions(start, end)`` call gets, as the ranges themselves."""
    return [partition.value for partition in reader.partitions(start, end)]
