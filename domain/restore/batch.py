"""An object's messages column-wise: what a batch reader yields and a producer sends.

Restore throughput is bounded by the Python work per record, so readers hand over a few thousand
messages at a time as columns (one list per part) instead of one object per record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

HeaderList = list[tuple[str, bytes | None]]


@dataclass(frozen=True, slots=True)
class MessageBatch:
    """Consecutive messages of one object, one list per part (all the same length).

    ``timestamps``: epoch millis, 0 = none (the producer stamps its own time, as Kafka clients
    treat 0). ``headers``: None = no headers. ``partitions``: the origin partition named by the
    key layout or the envelope; None = none named. ``topics``: the topic each message's envelope
    names, read only under ``source.topic.from.envelope`` (None: not read; a None item: none named).
    """

    keys: Sequence[bytes | None]
    values: Sequence[bytes | None]
    headers: Sequence[HeaderList | None]
    timestamps: Sequence[int]
    partitions: Sequence[int | None]
    topics: Sequence[str | None] | None = None

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def of_values(cls, values: Sequence[bytes | None], *, key: bytes | None, partition: int | None) -> MessageBatch:
        """Values that share key and partition and carry no headers or timestamp (no envelope)."""
        count = len(values)
        return cls([key] * count, values, [None] * count, [0] * count, [partition] * count)


def kafka_timestamp(stored: int | None) -> int:
    """A stored timestamp as the producer takes it: none (or negative) becomes 0, "now"."""
    return stored if stored is not None and stored >= 0 else 0


def topic_runs(batch: MessageBatch, start: int, stop: int) -> Iterator[tuple[int, int, str | None]]:
    """Rows ``[start, stop)`` of ``batch`` cut where the topic their envelopes name changes:
    ``(start, stop, topic)`` per run, topic None for the work item's own (no topic read, or none named).

    A backup object holds one topic-partition's records, so a batch is normally one run.
    """
    topics = batch.topics
    if topics is None:
        yield start, stop, None
        return
    run = start
    for row in range(start + 1, stop + 1):
        if row == stop or topics[row] != topics[run]:
            yield run, row, topics[run] or None
            run = row
