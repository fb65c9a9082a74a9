"""The ``lakesink status`` report: per topic-partition where the sink is and how far behind.

An exactly-once sink's truth is its index, the group only kept current beside it; so the report
shows the committed offset from the index (at-least-once: from the group), the group's when it
differs, the end offset, the lag, and the newest object of the partition (tells a stalled sink from
an idle topic). One JSON document (``lakesink.status/1``; fields only ever added) and its text form.
See docs/operations.md, "Lag in Kafka's tools, and ``lakesink status``".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from lakesink.domain.verify.check import records_behind

SCHEMA = "lakesink.status/1"


@dataclass(frozen=True, slots=True)
class NewestObject:
    """The object written last for a partition: its key, bucket and last-modified time (epoch ms)."""

    bucket: str
    key: str
    modified_ms: int | None


@dataclass(frozen=True, slots=True)
class PartitionStatus:
    """Where one topic-partition stands. Offsets are Kafka's: ``committed`` is the last one durable,
    ``group`` the group's next offset to read (as kafka-consumer-groups shows it)."""

    topic: str
    partition: int
    committed: int | None
    group: int | None
    end: int | None
    newest: NewestObject | None

    @property
    def lag(self) -> int | None:
        """Records in the topic after the committed offset (None: the end offset is unknown)."""
        return records_behind(self.end, self.committed)

    @property
    def group_differs(self) -> bool:
        """Whether the group's offset is not the one after the committed offset (lag tools are off)."""
        expected = None if self.committed is None else self.committed + 1
        return self.group != expected


@dataclass(frozen=True, slots=True)
class StatusReport:
    """Everything ``lakesink status`` found. ``source``: where ``committed`` comes from (``index`` or
    ``group``); ``kafka_error`` / ``group_error``: why the end offsets / the group's are missing."""

    connector: str
    group_id: str
    source: str
    partitions: tuple[PartitionStatus, ...]
    kafka_error: str | None = None
    group_error: str | None = None

    @property
    def lag(self) -> int | None:
        """The total lag; None when any partition's is unknown."""
        lags = [status.lag for status in self.partitions]
        return None if any(lag is None for lag in lags) else sum(lag for lag in lags if lag is not None)

    def to_json(self) -> str:
        """The report as one JSON document (schema :data:`SCHEMA`)."""
        return json.dumps(
            {
                "schema": SCHEMA,
                "connector": self.connector,
                "group": self.group_id,
                "committed_from": self.source,
                "lag": self.lag,
                "kafka": {"reachable": self.kafka_error is None, "error": self.kafka_error},
                "group_error": self.group_error,
                "partitions": [
                    {
                        "topic": status.topic,
                        "partition": status.partition,
                        "committed": status.committed,
                        "group": status.group,
                        "group_differs": status.group_differs,
                        "end": status.end,
                        "lag": status.lag,
                        "newest": None
                        if status.newest is None
                        else {
                            "bucket": status.newest.bucket,
                            "key": status.newest.key,
                            "modified_ms": status.newest.modified_ms,
                        },
                    }
                    for status in self.partitions
                ],
            },
            indent=2,
        )

    def to_text(self, *, iso: Callable[[int], str]) -> str:
        """The report for a terminal; ``iso`` renders an epoch-ms time."""
        lines = [
            f"{self.connector}: committed offsets from the {self.source}, lag {_shown(self.lag)} "
            f"(consumer group {self.group_id})"
        ]
        if self.kafka_error is not None:
            lines.append(f"Kafka not reachable: {self.kafka_error}")
        if self.group_error is not None:
            lines.append(f"Group {self.group_id} not read: {self.group_error}")
        for status in self.partitions:
            line = (
                f"  {status.topic}-{status.partition}: committed {_shown(status.committed)}, end {_shown(status.end)}, "
                f"lag {_shown(status.lag)}"
            )
            if self.source == "index" and self.group_error is None and status.group_differs:
                line += f"; the group says next {_shown(status.group)} (lag tools are off: the index is the truth)"
            if status.newest is not None:
                when = "" if status.newest.modified_ms is None else f" at {iso(status.newest.modified_ms)}"
                line += f"; newest {status.newest.bucket}/{status.newest.key}{when}"
            lines.append(line)
        if not self.partitions:
            lines.append("  nothing written and no partition on the cluster")
        return "\n".join(lines)


def _shown(value: int | None) -> str:
    return "-" if value is None else str(value)
