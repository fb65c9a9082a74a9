"""What restoring one origin did: the figures a task hands back to the driver's summary."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OriginResult:
    """What restoring one origin did.

    ``last_offset`` / ``last_key``: the position of the last object gone through (delivered,
    skipped as bad or found already restored); ``(-1, "")`` when there was none.
    """

    origin: str
    objects: int
    records: int
    bytes: int
    skipped_objects: int
    last_offset: int
    last_key: str
    seconds: float
    transactions: int = 0
    """Kafka transactions committed."""
