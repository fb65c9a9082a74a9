"""A database table's Debezium changes, written as a change statement's objects (Lenses envelopes).

:class:`ChangeLog` draws changes (uniform over every key, or skewed to the keys inserted since the
snapshot) and keeps the state they lead to; :func:`write_objects` writes a batch through lakesink's
PARQUET envelope writer, one object per partition as the sink's flush does; :func:`write_snapshot`
writes the initial snapshot (``r`` events of every key) in that writer's schema with pyarrow in one
call, as the record-by-record writer would take minutes for a million keys.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from lakesink.adapters.formats import open_writer
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.records import Record
from lakesink.domain.schema.envelope_fields import EnvelopeFields

TOPIC = "pg.public.customers"
PARTITIONS = 4
"""A key lives in partition ``id % 4``, as Debezium's partitioner keeps a key in one partition."""
T0 = 1_767_225_600_000
DELETES = 0.1
"""The share of changes to an existing key that delete it (the rest update it)."""

Row = dict[str, object]


@dataclass(slots=True)
class ChangeLog:
    """The source table's changes as Debezium publishes them, and the state they lead to."""

    seed: int
    state: dict[int, Row] = field(default_factory=dict)
    next_key: int = 0
    snapshot_keys: int = 0
    offsets: list[int] = field(default_factory=lambda: [0] * PARTITIONS)
    clock: int = T0
    _rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def snapshot(self, keys: int) -> list[Record]:
        """Debezium's initial snapshot: an ``r`` event of each of ``keys`` new keys."""
        self.snapshot_keys = self.next_key + keys
        return [record for key in range(self.next_key, self.snapshot_keys) for record in self._change(key, "r")]

    def uniform(self, changes: int) -> list[Record]:
        """``changes`` changes to keys drawn uniformly over every key ever created (a deleted one is
        created again): a batch touches rows all over the table."""
        return [record for _ in range(changes) for record in self._change(self._rng.randrange(self.next_key))]

    def skewed(self, changes: int) -> list[Record]:
        """``changes`` changes, half of them new keys, half to keys created since the snapshot (an
        orders table: new orders, then their updates): the snapshot's rows are never touched."""
        picks = []
        for _ in range(changes):
            recent = self.next_key > self.snapshot_keys and self._rng.random() < 0.5
            picks.append(self._rng.randrange(self.snapshot_keys, self.next_key) if recent else self.next_key)
            self.next_key = max(self.next_key, picks[-1] + 1)
        return [record for key in picks for record in self._change(key)]

    def _change(self, key: int, read: str | None = None) -> list[Record]:
        """The change of ``key`` (a tombstone follows a delete); ``read`` is the op of a snapshot read."""
        self.next_key = max(self.next_key, key + 1)
        self.clock += 1
        before = self.state.get(key)
        deleting = before is not None and self._rng.random() < DELETES
        after = None if deleting else {"id": key, "name": f"customer {key}", "version": self.clock - T0}
        op = read or ("d" if deleting else ("u" if before is not None else "c"))
        event = {"before": before, "after": after, "op": op, "ts_ms": self.clock}
        if after is None:
            self.state.pop(key, None)
            return [self._record(key, event), self._record(key, None)]
        self.state[key] = after
        return [self._record(key, event)]

    def _record(self, key: int, event: Row | None) -> Record:
        partition = key % PARTITIONS
        offset, self.offsets[partition] = self.offsets[partition], self.offsets[partition] + 1
        return Record(TOPIC, partition, offset, self.clock, key={"id": key}, value=event)


@dataclass(frozen=True, slots=True)
class WrittenObject:
    """One change object: its key in the bucket and the offsets it holds."""

    partition: int
    first: int
    last: int
    key: str


def _object_key(prefix: str, partition: int, first: int) -> str:
    return f"{prefix}/{TOPIC}/{partition}/{first:012d}.parquet"


def write_objects(records: Sequence[Record], bucket_dir: Path, prefix: str) -> list[WrittenObject]:
    """``records`` as the sink writes them for a change statement: per partition, PARQUET envelopes
    through lakesink's writer (snappy), a new object where a record does not fit the file's schema."""
    written = []
    for partition in range(PARTITIONS):
        pending = [record for record in records if record.partition == partition]
        while pending:
            key = _object_key(prefix, partition, pending[0].offset)
            (bucket_dir / key).parent.mkdir(parents=True, exist_ok=True)
            writer = open_writer(Format.PARQUET, bucket_dir / key, codec=CompressionCodec.SNAPPY,
                                 envelope=EnvelopeFields())
            taken = writer.write_many(pending)
            writer.close()
            written.append(WrittenObject(partition, pending[0].offset, pending[taken - 1].offset, key))
            pending = pending[taken:]
    return written


def write_snapshot(records: Sequence[Record], bucket_dir: Path, prefix: str) -> list[WrittenObject]:
    """A snapshot's ``r`` events (all of one shape) as :func:`write_objects` writes them, built in one
    pyarrow call per partition in the schema lakesink's writer gives the first event."""
    schema_of = write_objects(records[:1], bucket_dir, f"{prefix}/.schema")
    schema = pq.read_schema(bucket_dir / schema_of[0].key)
    (bucket_dir / schema_of[0].key).unlink()
    written = []
    for partition in range(PARTITIONS):
        mine = [record for record in records if record.partition == partition]
        if not mine:
            continue
        rows = pa.Table.from_pylist([
            {"key": r.key, "value": r.value, "headers": None,
             "metadata": {"timestamp": r.timestamp, "topic": r.topic, "partition": r.partition, "offset": r.offset}}
            for r in mine
        ], schema)
        key = _object_key(prefix, partition, mine[0].offset)
        (bucket_dir / key).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(rows, bucket_dir / key, compression="snappy")
        written.append(WrittenObject(partition, mine[0].offset, mine[-1].offset, key))
    return written
