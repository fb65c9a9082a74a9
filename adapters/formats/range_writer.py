"""Write the records of one topic-partition range into rolled staging files (runs on executors).

One writer per partition-value combination, under ``<staging root>/<KeyLayout.staging_relative_dir>/``.
Nothing here reads a clock (``flush.interval`` is the driver's admission), so file boundaries, keys
and bytes depend only on the records: a retried task writes the same objects.
See docs/sink.md, "One micro-batch".
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Protocol

import numpy as np

from lakesink.adapters.formats import open_writer
from lakesink.adapters.formats.arrow_rows import ArrowRows
from lakesink.adapters.formats.encoded_lines import EncodedLines
from lakesink.adapters.formats.parquet import ParquetWriter
from lakesink.adapters.formats.staging import LineFile
from lakesink.domain.dialects.quix.naming import StoreLayout
from lakesink.domain.errors import SchemaChangedError
from lakesink.domain.flush.declared_schemas import DeclaredSchemas, FileSchemas
from lakesink.domain.flush.policy import FileRoom, FileStats
from lakesink.domain.flush.rolls import RollReason
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.ports import FormatWriter
from lakesink.domain.records import NO_TIMESTAMP, Record
from lakesink.domain.statement_plan import StatementPlan
from lakesink.domain.tables.time_partition import TimePartition

logger = logging.getLogger(__name__)

_EMPTY_FILE = FileStats(0, 0, created_ms=0)


@dataclass(frozen=True, slots=True)
class RolledFile:
    """A finished staging file and the object key it is uploaded to."""

    path: Path
    bucket: str
    key: str
    records: int
    first_offset: int
    last_offset: int
    replaces: bool = False
    """Uploaded over an existing object (Aiven's key-grouped files), not create-only."""
    reason: RollReason = RollReason.END_OF_BATCH
    """Why the file was closed (counted for the metrics only)."""


Append = Callable[[FormatWriter, int, int], None]
"""Appends records ``start..end-1`` of a slice to a writer."""


class _Slices(Protocol):
    """Records of one partition value in offset order: cumulative sizes, offsets, timestamps."""

    ends: np.ndarray
    offsets: np.ndarray
    timestamps: np.ndarray


@dataclass(frozen=True, slots=True)
class Run:
    """Records ``start..end-1`` of a slice go into one file, rolled after them when ``rolled``.

    ``continues`` is True when that file is the one already open (only the first run can be).
    """

    start: int
    end: int
    rolled: bool
    continues: bool


@dataclass
class _OpenFile:
    """A file being written and what its key needs; ``room`` is what it takes before it flushes."""

    writer: FormatWriter
    path: Path
    first_offset: int
    room: FileRoom
    last_offset: int = -1
    earliest_ts: int | None = None
    latest_ts: int | None = None
    schemas: FileSchemas | None = None

    def note(self, record: Record) -> None:
        ts = NO_TIMESTAMP if record.timestamp is None else record.timestamp
        if self.last_offset < 0:  # the first record written, not a poison record the file was opened for
            self.first_offset = record.offset
        self.last_offset = record.offset
        if self.earliest_ts is None or self.latest_ts is None:
            self.earliest_ts = self.latest_ts = ts
        elif ts < self.earliest_ts:
            self.earliest_ts = ts
        elif ts > self.latest_ts:
            self.latest_ts = ts

    def full(self) -> bool:
        """Whether count or size flushes the file now (it started empty, so its room is absolute)."""
        writer, room = self.writer, self.room
        if room.records is not None and writer.record_count >= room.records:
            return True
        return writer.bytes_written >= room.bytes

    def full_reason(self) -> RollReason:
        """Why a full file (:meth:`full`) flushes: its record count, else its size."""
        records = self.room.records
        return RollReason.COUNT if records is not None and self.writer.record_count >= records else RollReason.SIZE

    def note_span(self, last_offset: int, earliest_ts: int, latest_ts: int) -> None:
        """Records up to ``last_offset`` with timestamps in ``[earliest_ts, latest_ts]`` were added."""
        self.last_offset = last_offset
        self.earliest_ts = earliest_ts if self.earliest_ts is None else min(self.earliest_ts, earliest_ts)
        self.latest_ts = latest_ts if self.latest_ts is None else max(self.latest_ts, latest_ts)


@dataclass
class RangeWriter:
    """The writers of one statement for one topic-partition range.

    Call :meth:`write` for each record in offset order, then :meth:`finish` (or :meth:`abort`
    on failure, which deletes every staging file).

    A file rolls when ``flush.count`` or ``flush.size`` is reached or a record does not fit its
    schema; at the end of the range every open file is rolled, because the admitted micro-batch *is*
    the flush. Deliberate deviation from Lenses: when one writer of a partition rolls, the others keep
    their files open (Lenses flushes all writers of the partition together to compute a safe offset;
    the batch commit makes that unnecessary), so fewer, larger files are written.
    """

    plan: StatementPlan
    topic: str
    partition: int
    staging_root: Path
    rolled: list[RolledFile] = field(default_factory=list)
    held: ClassVar[int] = 0
    """Always 0: a statement's files are all rolled when the range ends."""
    _open: dict[PartitionValues, _OpenFile] = field(default_factory=dict)
    _schemas: DeclaredSchemas | None = None
    _time_partition: TimePartition | None = None

    def __post_init__(self) -> None:
        # Quix's Parquet columns come from the values of the whole file, not from declared schemas.
        if DeclaredSchemas.applies(self.plan.format) and self.plan.layout.store is StoreLayout.LENSES:
            self._schemas = DeclaredSchemas(self.plan.schema_rules)
        table = self.plan.table
        self._time_partition = table.time_partition if table is not None else None

    def replay_start(self, range_first: int) -> int:
        """The range's first record: a replay skips what its locks already hold."""
        return range_first

    def durable_end(self, range_last: int) -> int:
        return range_last

    def write(self, record: Record, values: PartitionValues) -> None:
        """Append ``record`` to the file of ``values``, rolling before or after it as needed.

        A record whose value declares a schema rolls the file as ``schema.change.detector``
        decides (:mod:`.declared_schemas`); any record the file's schema cannot hold rolls it too.
        The files of a table partitioned by day or hour get the record timestamp as a column
        (:mod:`~lakesink.domain.tables.time_partition`).

        Raises:
            RecordError: the record can never be written in this format (poison record).
        """
        if self._time_partition is not None:
            record = self._time_partition.stamp(record)
        current = self._open.get(values)
        fresh, declared = record, None
        if self._schemas is not None:
            step = self._schemas.step(record, current.schemas if current else None)
            record, fresh, declared = step.record, step.fresh, step.declared
            if step.roll and current is not None:
                self._roll(values, RollReason.SCHEMA_CHANGE)
                current = None
        current = current or self._start(values, record.offset)
        try:
            current.writer.write(record)
        except SchemaChangedError:
            self._roll(values, RollReason.SCHEMA_CHANGE)
            current = self._start(values, record.offset)
            current.writer.write(fresh)
        if declared is not None:
            current.schemas = DeclaredSchemas.remember(current.schemas, declared)
        current.note(record)
        # The interval never fires here (the driver's admission applies it), so only the record
        # count and file size, both functions of the records, cut files.
        if current.full():
            self._roll(values, current.full_reason())

    def write_lines(self, values: PartitionValues, lines: EncodedLines) -> None:
        """Append pre-encoded lines (the columnar path) to the file of ``values``.

        Files roll at exactly the records :meth:`write` would roll them at (see :meth:`runs`).
        """

        def append(writer: FormatWriter, start: int, end: int) -> None:
            if not isinstance(writer, LineFile):
                raise TypeError(f"{self.plan.format.value} files cannot take pre-encoded lines")
            writer.write_lines(lines.data(start, end), end - start)

        self._write_groups([(values, lines, append)])

    def write_rows(self, groups: Sequence[tuple[PartitionValues, ArrowRows]]) -> None:
        """Append rows parsed into Arrow (the columnar PARQUET path), one slice per partition value.

        Files roll at exactly the records :meth:`write` would roll them at (see :meth:`runs`),
        and are started and rolled in the same order as record by record. The caller guarantees
        every row fits its ``rows.schema`` and that every file the rows continue or start has
        that schema (the per-record path would give it that schema).
        """

        def appender(rows: ArrowRows) -> Append:
            def append(writer: FormatWriter, start: int, end: int) -> None:
                if not isinstance(writer, ParquetWriter):
                    raise TypeError(f"{self.plan.format.value} files cannot take Arrow rows")
                writer.write_batch(rows.schema, rows.batch.slice(start, end - start), rows.sizes[start:end])

            return append

        self._write_groups([(values, rows, appender(rows)) for values, rows in groups])

    def open_file(self, values: PartitionValues) -> FormatWriter | None:
        """The writer of the file open for ``values``, None when none is open."""
        current = self._open.get(values)
        return None if current is None else current.writer

    def runs(self, values: PartitionValues, ends: Sequence[int]) -> list[Run]:
        """Where the next records of ``values`` go: the file open now, then new files.

        ``ends[i]`` is the cumulative size (in the writer's ``bytes_written`` measure) of
        records ``0..i``. The flush policy is asked, for a whole slice at once, which record
        first reaches flush.count or flush.size
        (:meth:`~lakesink.domain.flush.policy.FlushPolicy.records_before_flush`), which is where
        :meth:`write` would roll; a file started here holds nothing yet.
        """
        current = self._open.get(values)
        records, size = (current.writer.record_count, current.writer.bytes_written) if current else (0, 0)
        runs: list[Run] = []
        start, total = 0, len(ends)
        while start < total:
            base = int(ends[start - 1]) if start else 0
            # Sizes are relative to the slice start: shift the file size by the same amount.
            stats = FileStats(records, size - base, created_ms=0)
            taken = self.plan.flush.records_before_flush(stats, ends[start:])
            end = total if taken is None else start + taken
            runs.append(Run(start, end, rolled=taken is not None, continues=current is not None and start == 0))
            records, size, start = 0, 0, end
        return runs

    def _write_groups(self, groups: Sequence[tuple[PartitionValues, _Slices, Append]]) -> None:
        """Write each group's runs, starting and rolling files in the order of the offsets at which
        the per-record path would (so :attr:`rolled` and the open files keep its order)."""
        events: list[tuple[int, bool, int, Run]] = []
        for number, (values, slices, _append) in enumerate(groups):
            for run in self.runs(values, slices.ends):
                events.append((int(slices.offsets[run.start]), False, number, run))
                if run.rolled:
                    events.append((int(slices.offsets[run.end - 1]), True, number, run))
        for _offset, roll, number, run in sorted(events, key=lambda event: event[:2]):
            values, slices, append = groups[number]
            if roll:
                self._roll(values, self._open[values].full_reason())
                continue
            current = self._open.get(values) or self._start(values, int(slices.offsets[run.start]))
            append(current.writer, run.start, run.end)
            span = slices.timestamps[run.start : run.end]
            current.note_span(int(slices.offsets[run.end - 1]), int(span.min()), int(span.max()))

    def finish(self) -> list[RolledFile]:
        """Roll every open file; returns all rolled files of the range in the order they were cut."""
        for values in list(self._open):
            self._roll(values, RollReason.END_OF_BATCH)
        return self.rolled

    def abort(self) -> None:
        """Discard open and rolled staging files (the task failed; a retry writes them again)."""
        for current in self._open.values():
            current.writer.abort()
        self._open.clear()
        for rolled in self.rolled:
            rolled.path.unlink(missing_ok=True)
        self.rolled.clear()

    def _start(self, values: PartitionValues, first_offset: int) -> _OpenFile:
        directory = self.staging_root / self.plan.layout.staging_relative_dir(values)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.topic}-{self.partition}-{first_offset}-{uuid.uuid4().hex}"
        writer = open_writer(
            self.plan.format,
            path,
            codec=self.plan.codec,
            level=self.plan.compression_level,
            envelope=self.plan.envelope,
            csv_headers=self.plan.statement.csv_headers,
            store=self.plan.layout.store,
        )
        current = _OpenFile(writer, path, first_offset, self.plan.flush.room(_EMPTY_FILE))
        self._open[values] = current
        return current

    def _roll(self, values: PartitionValues, reason: RollReason) -> None:
        current = self._open.pop(values)
        if current.writer.record_count == 0:
            current.writer.abort()
            return
        current.writer.close()
        key = self.plan.layout.object_key(
            values,
            topic=self.topic,
            partition=self.partition,
            first_offset=current.first_offset,
            last_offset=current.last_offset,
            earliest_ts=NO_TIMESTAMP if current.earliest_ts is None else current.earliest_ts,
            latest_ts=NO_TIMESTAMP if current.latest_ts is None else current.latest_ts,
        )
        self.rolled.append(
            RolledFile(
                current.path,
                self.plan.bucket,
                key,
                current.writer.record_count,
                current.first_offset,
                current.last_offset,
                reason=reason,
            )
        )
        logger.debug("rolled %s with %d records", key, current.writer.record_count)
