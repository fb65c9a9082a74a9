"""Confluent S3 sink rules, re-derived for the end-to-end tests: which files, with which keys.

Written from Confluent's documented behaviour (``TopicPartitionWriter``, the partitioners, the
key layout; /work/shared/reference/aiven-and-confluent.md §C), deliberately sharing no code with
lakesink's writers, so a test comparing the two checks lakesink against an independent model:

* a key is ``<topics.dir>/<topic>/<encoded partition>/<topic>+<partition>+<start %010d><ext>``,
  ``start`` being the offset of the file's first record;
* per topic-partition, in offset order, the *cycle* rotates (all its files together) before a
  record whose time is ``rotate.interval.ms`` or more past the cycle's first record, or whose
  encoded partition differs from the previous record's (both only with record-time rotation and
  a record in the cycle), and after the record that makes ``flush.size`` records;
* the cycle still open after the last record is not written (Confluent keeps it open) unless the
  micro-batch end seals it (``seal_end``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord


@dataclass(frozen=True, slots=True)
class Sent:
    """One produced record, with the offset the broker gives it (checked after producing)."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: str
    value: dict[str, object]
    headers: tuple[tuple[str, str], ...]


@dataclass
class Producer:
    """Produces records to explicit partitions and knows the offset each one gets."""

    kafka: EmbeddedKafka
    next_offset: dict[tuple[str, int], int] = field(default_factory=dict)
    sent: list[Sent] = field(default_factory=list)

    def send(
        self,
        topic: str,
        rows: Iterable[tuple[int, int, dict[str, object]]],
        encode: Callable[[dict[str, object]], bytes] = lambda v: json.dumps(v).encode(),
        key: Callable[[int], str] = lambda offset: f"k{offset % 3}",
    ) -> list[Sent]:
        """Produce ``(partition, timestamp_ms, value)`` rows; each value gets its ``offset`` and
        ``partition``; the key is ``key(offset)`` (``k<offset % 3>``), the headers ``source`` and ``trace``."""
        batch: list[Sent] = []
        for partition, timestamp_ms, fields in rows:
            offset = self.next_offset.get((topic, partition), 0)
            self.next_offset[topic, partition] = offset + 1
            value = {"partition": partition, "offset": offset, **fields}
            headers = (("source", f"web-{offset % 2}"), ("trace", f"t-{partition}-{offset}"))
            batch.append(Sent(topic, partition, offset, timestamp_ms, key(offset), value, headers))
        self.kafka.produce(
            topic,
            [
                ProducedRecord(
                    encode(s.value),
                    key=s.key.encode(),
                    headers=tuple((name, text.encode()) for name, text in s.headers),
                    timestamp_ms=s.timestamp_ms,
                    partition=s.partition,
                )
                for s in batch
            ],
        )
        highs = {p: high for p, (_low, high) in self.kafka.watermarks(topic).items()}
        expected = {p: n for (t, p), n in self.next_offset.items() if t == topic}
        assert {p: highs.get(p, 0) for p in expected} == expected, (
            "the broker's offsets are not the ones assumed"
        )
        self.sent += batch
        return batch


@dataclass(frozen=True, slots=True)
class GoldenFile:
    """One value file Confluent writes: its encoded partition and its records, in offset order."""

    topic: str
    partition: int
    encoded: str
    records: tuple[Sent, ...]

    @property
    def start(self) -> int:
        return self.records[0].offset

    def key(self, extension: str, topics_dir: str = "topics") -> str:
        name = f"{self.topic}+{self.partition}+{self.start:010d}{extension}"
        return f"{topics_dir}/{self.topic}/{self.encoded}/{name}"


@dataclass
class Golden:
    """The files of a set of records, the records held in open cycles, and why cycles rotated."""

    files: list[GoldenFile] = field(default_factory=list)
    held: list[Sent] = field(default_factory=list)
    reasons: set[str] = field(default_factory=set)

    def keys(self, extension: str) -> list[str]:
        return sorted(f.key(extension) for f in self.files)


def golden(
    records: Iterable[Sent],
    encode: Callable[[Sent], str],
    flush_size: int,
    *,
    rotate_interval_ms: int = -1,
    seal_end: bool = False,
) -> Golden:
    """Cut ``records`` into files as Confluent does (``rotate_interval_ms`` > 0: record-time rotation)."""
    result = Golden()
    by_partition: dict[tuple[str, int], list[Sent]] = {}
    for record in records:
        by_partition.setdefault((record.topic, record.partition), []).append(record)
    for (topic, partition), partition_records in sorted(by_partition.items()):
        cycle: dict[str, list[Sent]] = {}
        base, last = 0, ""

        def rotate(
            cycle: dict[str, list[Sent]], reason: str, topic: str = topic, partition: int = partition
        ) -> None:
            result.files.extend(
                GoldenFile(topic, partition, encoded, tuple(rs)) for encoded, rs in cycle.items()
            )
            result.reasons.add(reason)
            cycle.clear()

        for record in sorted(partition_records, key=lambda r: r.offset):
            encoded = encode(record)
            if cycle and rotate_interval_ms > 0:
                if record.timestamp_ms - base >= rotate_interval_ms:
                    rotate(cycle, "time")
                elif encoded != last:
                    rotate(cycle, "partition change")
            if not cycle:
                base = record.timestamp_ms
            cycle.setdefault(encoded, []).append(record)
            last = encoded
            if sum(map(len, cycle.values())) >= flush_size:
                rotate(cycle, "flush.size")
        if cycle:
            if seal_end:
                rotate(cycle, "batch end")
            else:
                result.held += sorted((r for rs in cycle.values() for r in rs), key=lambda r: r.offset)
    return result


def local_bucket(timestamp_ms: int, timezone: str, duration_ms: int) -> datetime:
    """The wall-clock start, in ``timezone``, of the ``duration_ms`` bucket holding ``timestamp_ms``.

    Joda's TimeBasedPartitioner: the UTC instant is converted to local millis, floored to the
    duration, and rendered as local time (this ignores DST gaps, which the tests avoid).
    """
    offset = datetime.fromtimestamp(timestamp_ms / 1000, ZoneInfo(timezone)).utcoffset()
    assert offset is not None
    local_ms = timestamp_ms + int(offset.total_seconds() * 1000)
    return datetime(1970, 1, 1) + timedelta(milliseconds=local_ms // duration_ms * duration_ms)


def utc_ms(text: str) -> int:
    """Epoch millis of an ISO UTC time such as ``2024-03-05T10:07:00``."""
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)
