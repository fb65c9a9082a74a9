"""What an object key says about the records inside it, once parsed back."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ParsedKey:
    """Kafka coordinates recovered from an object key.

    Attributes:
        topic: the topic named in the key, None when the layout does not carry one.
        partition: the Kafka partition, None when the layout does not carry one.
        offset: the offset the key names (the *last* offset for Lenses layouts, the *first*
            for Aiven ``{{start_offset}}`` and Confluent's start offset); None when absent. Objects of one partition are
            read in ascending order of this number.
    """

    topic: str | None = None
    partition: int | None = None
    offset: int | None = None
