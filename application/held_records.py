"""Records a Confluent config's open cycles hold back: where each partition's next range starts.

Under a Confluent config whose cycles wait for their rotation rule, a range is durable only up to
its last complete cycle (:class:`~lakesink.adapters.dialects.confluent.cycle_writer.CycleWriter`), so
the partition's next range starts back at its first record not yet durable, as one range: a cycle
is placed by one task from its first record on, and a re-read writes exactly Confluent's files.
See docs/sink.md, "Start-up (the store is the source of truth)" ("Records held back").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.records import TopicPartition


class HeldRecords:
    """The first offset not yet durable per partition, and the ranges stretched back to it."""

    def __init__(self, resume: Mapping[TopicPartition, int]) -> None:
        self._resume = dict(resume)

    def stretch(self, ranges: Sequence[OffsetRange]) -> list[OffsetRange]:
        """One range per partition, from its first offset not yet durable to the batch's end (none
        when that is past the end: Spark replayed a batch the index already covers)."""
        spans: dict[TopicPartition, tuple[int, int]] = {}
        for chunk in ranges:
            where = (chunk.topic, chunk.partition)
            start, end = spans.get(where, (chunk.start, chunk.end))
            spans[where] = (min(start, chunk.start), max(end, chunk.end))
        stretched = []
        for (topic, partition), (start, end) in spans.items():
            resume = self._resume.setdefault((topic, partition), start)
            if resume < end:  # else every record of the range is durable already (a replayed batch)
                stretched.append(OffsetRange(topic, partition, resume, end))
        return stretched

    def committed(self, ends: Mapping[TopicPartition, int]) -> None:
        """The partitions of ``ends`` are durable up to those offsets."""
        for where, last in ends.items():
            self._resume[where] = max(self._resume.get(where, last + 1), last + 1)
