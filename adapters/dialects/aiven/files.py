"""Write one topic-partition range as one flush of Aiven's S3 sink: a file per group (runs on executors).

Which file a record goes to and what it holds are the domain's
(:class:`~lakesink.domain.dialects.aiven.grouping.AivenGrouper`,
:mod:`lakesink.domain.dialects.aiven.output`); :class:`AivenFiles` keeps the open staging files by
name and rolls them all when the range ends, durable through its last record.
See docs/dialects.md, "Running an Aiven config".
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from lakesink.adapters.dialects.aiven.writers import open_aiven_writer
from lakesink.adapters.formats.range_writer import RolledFile
from lakesink.domain.dialects.aiven.grouping import AivenGrouper
from lakesink.domain.dialects.aiven.writing import AivenWriting
from lakesink.domain.errors import RecordError, SchemaChangedError
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.ports import FormatWriter
from lakesink.domain.records import Record

logger = logging.getLogger(__name__)


@dataclass
class _File:
    """One open staging file: its writer, object key, and first and last offsets."""

    writer: FormatWriter
    path: Path
    key: str
    first_offset: int
    last_offset: int


@dataclass
class AivenFiles:
    """The files of one topic-partition range under an Aiven config.

    Call :meth:`write` for each record in offset order, then :meth:`finish` (or :meth:`abort`).

    Grouped by key, a name's file holds only its latest record: each new record of the name gets a
    fresh file and the previous one is dropped, and the object is uploaded over the one an earlier
    flush wrote (``RolledFile.replaces``). Nothing is held back for the next range (unlike Confluent's
    cycles). Only ``{{local_date}}`` in ``aws.s3.prefix`` reads the executor's time zone (as Aiven
    reads its JVM's), so executors must share one.
    """

    writing: AivenWriting
    bucket: str
    staging_root: Path
    clock_ms: int | None = None
    """The batch clock (wall-clock names read it); None when nothing reads one."""
    first_seen: int = -1
    """The offset of the first record handed to :meth:`write`: where the range's plan starts."""
    held: ClassVar[int] = 0
    """Always 0: a flush writes every record it took."""
    _grouper: AivenGrouper = field(init=False)
    _files: dict[str, _File] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._grouper = AivenGrouper(self.writing.naming, 0 if self.clock_ms is None else self.clock_ms)

    def replay_start(self, range_first: int) -> int:
        """Where the range's groups start: its first record, written or not."""
        return self.first_seen

    def durable_end(self, range_last: int) -> int:
        return range_last

    def write(self, record: Record, values: PartitionValues) -> None:
        """File ``record`` under its group's name.

        ``values`` (the Lenses partition values) are not used: the template names the files. A
        record that fails leaves no trace: no file, no head, no count.

        Raises:
            RecordError: the record cannot name a file or be written (poison record); a key or
                value schema other than its file's (headers of another type: Aiven fails the
                flush with "Illegal schema change").
        """
        del values
        if self.first_seen < 0:
            self.first_seen = record.offset
        placement = self._grouper.place(record)
        current = self._files.get(placement.name)
        if current is not None and not self._grouper.replaces:
            _append(current.writer, record)
            current.last_offset = record.offset
        else:
            self._files[placement.name] = self._start(placement.name, record)
            if current is not None:
                current.writer.abort()
        self._grouper.filed(placement)

    def _start(self, name: str, record: Record) -> _File:
        # The key is known from the file's first record (prefix mode names it, not the head):
        # a record that cannot name one fails here, as poison, not at the roll.
        key = self.writing.naming.object_key(name, record, self._grouper.now_ms)
        directory = self.staging_root / "aiven"
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{record.topic}-{record.partition}-{record.offset}-{uuid.uuid4().hex}"
        writer = open_aiven_writer(self.writing.output, path)
        try:
            _append(writer, record)
        except BaseException:
            writer.abort()
            raise
        return _File(writer, path, key, record.offset, record.offset)

    def finish(self) -> list[RolledFile]:
        """Roll every file; returns them with their object keys. A file of no bytes (csv of one null
    value) is no object, as in Aiven: under key grouping the object of an earlier flush stays."""
        rolled = []
        for file in self._files.values():
            records = file.writer.record_count
            file.writer.close()
            if file.path.stat().st_size == 0:  # Aiven's S3OutputStream creates no object for no bytes
                file.path.unlink()
                continue
            rolled.append(
                RolledFile(
                    file.path,
                    self.bucket,
                    file.key,
                    records,
                    file.first_offset,
                    file.last_offset,
                    self._grouper.replaces,
                )
            )
            logger.debug("rolled %s with %d records", file.key, records)
        self._files.clear()
        return rolled

    def abort(self) -> None:
        """Discard every staging file (the task failed; a retry writes them again)."""
        for file in self._files.values():
            file.writer.abort()
        self._files.clear()


def _append(writer: FormatWriter, record: Record) -> None:
    try:
        writer.write(record)
    except SchemaChangedError:
        raise RecordError(
            f"record {record.describe()} does not fit the schema of its file, which came from the file's first "
            "record (Aiven fails the flush: 'Illegal schema change'); its headers differ in type from the "
            "first record's, or its key or value schema changed where the template does not start a new file"
        ) from None
