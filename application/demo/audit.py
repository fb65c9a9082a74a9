"""Exactly-once audit: every record in Kafka must be in the output once, with the same content.

The truth is what the topic holds (:meth:`~lakesink.application.demo.ports.Broker.contents`:
a plain consumer from the low to the high watermark of each partition, not what the producer
meant to send), so the audit needs no knowledge of partitioner or offsets. The output side is
:func:`~lakesink.application.demo.output.read_rows`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from lakesink.application.demo.ports import Position, StoredRow, TopicRecord


@dataclass
class AuditReport:
    """What differs between the topic and the output; empty lists mean exactly-once."""

    expected: int
    stored: int
    missing: list[Position] = field(default_factory=list)
    duplicated: dict[Position, list[str]] = field(default_factory=dict)
    unexpected: list[Position] = field(default_factory=list)
    mismatched: list[tuple[Position, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.duplicated or self.unexpected or self.mismatched)

    def describe(self, limit: int = 5) -> str:
        """One line per kind of problem, with the first few positions; "" when ok."""
        lines = []
        if self.missing:
            lines.append(f"{len(self.missing)} records missing, e.g. {_positions(self.missing[:limit])}")
        if self.duplicated:
            sample = list(self.duplicated.items())[:limit]
            shown = "; ".join(f"{_position(p)} in {', '.join(keys)}" for p, keys in sample)
            lines.append(f"{len(self.duplicated)} records stored more than once, e.g. {shown}")
        if self.unexpected:
            sample = _positions(self.unexpected[:limit])
            lines.append(f"{len(self.unexpected)} records not in Kafka, e.g. {sample}")
        if self.mismatched:
            shown = "; ".join(f"{_position(p)}: {why}" for p, why in self.mismatched[:limit])
            lines.append(f"{len(self.mismatched)} records differ from Kafka, e.g. {shown}")
        return "\n".join(lines)


def _position(position: Position) -> str:
    topic, partition, offset = position
    return f"{topic}-{partition}@{offset}"


def _positions(positions: Iterable[Position]) -> str:
    return ", ".join(_position(p) for p in positions)


def audit(expected: Mapping[Position, TopicRecord], rows: Iterable[StoredRow]) -> AuditReport:
    """Compare the output rows with the topic's records, position by position."""
    holders: dict[Position, list[str]] = defaultdict(list)
    report = AuditReport(expected=len(expected), stored=0)
    for row in rows:
        report.stored += 1
        position = (row.topic, row.partition, row.offset)
        holders[position].append(row.object_key)
        truth = expected.get(position)
        if truth is None:
            continue
        difference = _difference(truth, row)
        if difference and len(holders[position]) == 1:
            report.mismatched.append((position, difference))
    report.missing = sorted(set(expected) - set(holders))
    report.unexpected = sorted(set(holders) - set(expected))
    report.duplicated = {p: keys for p, keys in sorted(holders.items()) if len(keys) > 1}
    return report


def _difference(truth: TopicRecord, row: StoredRow) -> str:
    if row.key != truth.key:
        return f"key {row.key!r} != {truth.key!r}"
    if row.value != truth.value:
        return f"value {row.value!r} != {truth.value!r}"
    if row.headers != truth.headers:
        return f"headers {row.headers!r} != {truth.headers!r}"
    if truth.timestamp is not None and row.timestamp != truth.timestamp:
        return f"timestamp {row.timestamp!r} != {truth.timestamp!r}"
    return ""
