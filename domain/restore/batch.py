"""An object's messages column-wise: what a batch reader yields and a producer sends.

Restore throughput is bounded by the Python work per record, so readers hand over a few thousand
messages at a time as columns (one list per part) instead of one object per record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

HeaderList = list[tuple[str, bytes | None]]


@dataclass(frozen=True, slots=True)
class MessageBatch:
    """Consecutive messages of one object, one list per part (all the same length).

    ``timestamps``: epoch millis, 0 = none (the producer stamps its own time, as Kafka clients
    treat 0). ``headers``: None = no headers. ``partitions``: the origin partition named by the
    key layout or the envelope; None = none named.
    """

    keys: Sequence[bytes | None]
    values: Sequence[bytes | None]
    headers: Sequence[HeaderList | None]
    timestamps: Sequence[int]
    partitions: Sequence[int | None]

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
