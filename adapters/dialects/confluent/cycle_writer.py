"""Write one topic-partition range as Confluent's S3 sink does: cycles of files (runs on executors).

The rules are the domain's (:mod:`lakesink.domain.dialects.confluent.rotation`,
:class:`~lakesink.domain.dialects.confluent.writing.ConfluentWriting`); :class:`CycleWriter` keeps
the cycle's open files, one set per encoded partition, and rolls them all at each rotation.
See docs/dialects.md, "Running a Confluent config".
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lakesink.adapters.formats import open_writer
from lakesink.adapters.formats.json_lines import JsonWriter
from lakesink.adapters.formats.range_writer import RolledFile
from lakesink.adapters.formats.separated_bytes import SeparatedBytesWriter
from lakesink.domain.dialects.confluent.naming import RecordView
from lakesink.domain.dialects.confluent.rotation import Cycle, CycleEnd
from lakesink.domain.dialects.confluent.writing import HEADERS_SCHEMA, ConfluentWriting, FileFormat
from lakesink.domain.errors import FormatError, RecordError, SchemaChangedError
from lakesink.domain.flush.declared_schemas import SchemaHints
from lakesink.domain.flush.rolls import RollReason
from lakesink.domain.formats import Format
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.ports import FormatWriter
from lakesink.domain.records import Record
from lakesink.domain.schema import schema_for
from lakesink.domain.transforms.header_values import convert_to_string

logger = logging.getLogger(__name__)

#: The JSON and Parquet headers view wraps the array: ``{"headers": [...]}`` (struct ``RecordHeaders``).
_ENVELOPED_HEADERS_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "RecordHeaders",
    "fields": [{"name": "headers", "type": HEADERS_SCHEMA}],
}


def _open(files: FileFormat, path: Path) -> FormatWriter:
    if files.format is Format.BYTES:
        return SeparatedBytesWriter(
            path, separator=files.separator, codec=files.codec, level=files.compression_level
        )
    if files.format is Format.JSON:
        return JsonWriter(path, codec=files.codec, level=files.compression_level, decimals=files.decimals)
    return open_writer(files.format, path, codec=files.codec, level=files.compression_level)


@dataclass
class _FileSet:
    """The open files of one encoded partition in the cycle; keys name their first record's offset."""

    topic: str
    encoded: str
    first_offset: int
    writers: dict[RecordView, tuple[FormatWriter, Path, FileFormat]] = field(default_factory=dict)
    last_offset: int = -1

    def discard(self) -> None:
        """Abort every file of the set (its staging files are deleted)."""
        for writer, _path, _format in self.writers.values():
            writer.abort()


@dataclass
class CycleWriter:
    """The files of one topic-partition range under a Confluent config.

    Call :meth:`write` for each record in offset order, then :meth:`finish` (or :meth:`abort`).

    A cycle still open when the range ends is rolled too when the config rotates on the wall clock
    (``CycleEnd.SEAL``); otherwise its records are not written (``held``) and the range is durable
    only up to the last record of its last complete cycle (``durable_through``): the sink commits
    that far and the next range reads the held records again, so files start and end where
    Confluent's do. Nothing here reads a clock (the batch clock is given).
    """

    writing: ConfluentWriting
    bucket: str
    partition: int
    staging_root: Path
    clock_ms: int | None = None
    """The batch clock (the Wallclock extractor reads it); None when nothing reads one."""
    rolled: list[RolledFile] = field(default_factory=list)
    durable_through: int = -1
    """The last offset of the last complete cycle (-1: none completed yet)."""
    held: int = 0
    """Records of the cycle left open at :meth:`finish`, not written (the next range writes them)."""
    first_seen: int = -1
    """The offset of the first record handed to :meth:`write`, written or not: where the range's
    cycles start, so where its plan starts (a replay must place the same records from there)."""
    _cycle: Cycle = field(init=False)
    _open: dict[tuple[str, str], _FileSet] = field(default_factory=dict)
    _hints: SchemaHints = field(default_factory=SchemaHints)

    def __post_init__(self) -> None:
        self._cycle = Cycle(self.writing.rotation)

    def replay_start(self, range_first: int) -> int:
        """Where the range's cycles start: its first record, written or not."""
        return self.first_seen

    def durable_end(self, range_last: int) -> int:
        """The end of the last complete cycle while one is held open, else the range's last record."""
        return self.durable_through if self.held else range_last

    def write(self, record: Record, values: PartitionValues) -> None:
        """Place ``record`` in the cycle, rotating before or after it as Confluent would.

        ``values`` (the Lenses partition values) are not used: the encoded partition is Confluent's.
        A record that fails leaves no trace in any file (its views are all built before any is
        written, and a file set it would have opened is dropped), as Confluent drops its start offset.

        Raises:
            RecordError: the record cannot be placed or written (poison record).
            FormatError: a view failed after another view of the record was written (the files
                would no longer line up record for record): the range fails.
        """
        del values
        writing, cycle = self.writing, self._cycle
        if self.first_seen < 0:
            self.first_seen = record.offset
        writing.check_null(record)
        now = 0 if self.clock_ms is None else self.clock_ms
        schema = self._hints.declared(record) if record.value is not None else None
        while True:
            time_ms = writing.time_of(record, now)
            cycle.begin_record(time_ms)
            encoded = writing.encoded_partition(record, now)
            current, flip = cycle.file_schema(encoded, schema)
            incompatible = functools.partial(writing.compatibility.incompatible, schema, current)
            if not cycle.rotates_before(encoded, time_ms, flip=flip, incompatible=incompatible):
                break
            self._rotate(cycle.reason or RollReason.COUNT)
        projected = writing.compatibility.project(record.value, schema, current)
        if projected is not record.value:
            record = dataclasses.replace(record, value=projected, value_schema=current)
        where = (record.topic, encoded)
        files = self._open.get(where) or self._start(record.topic, encoded, record.offset)
        try:
            self._append(files, record)
        except BaseException:
            if files.last_offset < 0:  # opened for this record: never named after it
                del self._open[where]
                files.discard()
            raise
        files.last_offset = record.offset
        if cycle.wrote(encoded):
            self._rotate(RollReason.COUNT)

    def finish(self) -> list[RolledFile]:
        """Roll the complete cycles (and the open one under ``CycleEnd.SEAL``); returns every rolled file."""
        if self._cycle.count and self.writing.rotation.cycle_end is CycleEnd.SEAL:
            self._rotate(RollReason.END_OF_BATCH)
        self.held = self._cycle.count
        self._discard_open()
        return self.rolled

    def abort(self) -> None:
        """Discard open and rolled staging files (the task failed; a retry writes them again)."""
        self._discard_open()
        for rolled in self.rolled:
            rolled.path.unlink(missing_ok=True)
        self.rolled.clear()

    def _start(self, topic: str, encoded: str, first_offset: int) -> _FileSet:
        files = _FileSet(topic, encoded, first_offset)
        directory = self.staging_root / "confluent"
        directory.mkdir(parents=True, exist_ok=True)
        stem = f"{topic}-{self.partition}-{first_offset}-{uuid.uuid4().hex}"
        kinds = (
            (RecordView.VALUE, self.writing.values if self.writing.writes_value(encoded) else None),
            (RecordView.KEYS, self.writing.keys),
            (RecordView.HEADERS, self.writing.headers),
        )
        try:
            for view, format in kinds:
                if format is not None:
                    path = directory / f"{stem}{view.value or '.value'}"
                    files.writers[view] = (_open(format, path), path, format)
        except BaseException:
            files.discard()
            raise
        self._open[topic, encoded] = files
        return files

    def _append(self, files: _FileSet, record: Record) -> None:
        views = [(writer, _view(record, view, format.format)) for view, (writer, _path, format) in files.writers.items()]
        for written, (writer, view_record) in enumerate(views):
            try:
                writer.write(view_record)
            except SchemaChangedError as error:
                if written:
                    raise FormatError(f"{error} (record {record.describe()}, after its other views were written)") from None
                raise RecordError(
                    f"record {record.describe()} does not fit the schema of its file, which came from the file's first "
                    "record: AvroFormat and ParquetFormat need values (and keys) with a declared schema, e.g. "
                    "JsonConverter with schemas.enable=true"
                ) from None
            except RecordError as error:
                if written:
                    raise FormatError(f"{error} (after the record's other views were written)") from None
                raise

    def _rotate(self, reason: RollReason) -> None:
        """Commit every file of the cycle (Confluent's ``commitFiles``); ``reason`` is why (the metrics')."""
        last = -1
        for files in self._open.values():
            last = max(last, files.last_offset)
            value_key = self.writing.object_key(
                files.topic, self.partition, files.encoded, files.first_offset
            )
            for view, (writer, path, _format) in files.writers.items():
                records = writer.record_count
                writer.close()
                key = value_key if view is RecordView.VALUE else self.writing.view_key(value_key, view)
                self.rolled.append(
                    RolledFile(path, self.bucket, key, records, files.first_offset, files.last_offset, reason=reason)
                )
                logger.debug("rolled %s with %d records", key, records)
        self._open.clear()
        self._cycle.rotated()
        self.durable_through = max(self.durable_through, last)

    def _discard_open(self) -> None:
        for files in self._open.values():
            files.discard()
        self._open.clear()


def _view(record: Record, view: RecordView, format: Format) -> Record:
    """What the ``view`` file of ``record`` holds: the record itself, its key, or its headers.

    Keys and headers are enveloped where Confluent envelopes them: Parquet keys as ``RecordKey{key}``,
    JSON and Parquet headers as ``RecordHeaders{headers}``. A record without headers gets an empty
    headers array (Confluent fails it instead).

    Raises:
        RecordError: a null key with keys stored, or a null header value with headers stored.
    """
    if view is RecordView.VALUE:
        return record
    if view is RecordView.KEYS:
        if record.key is None:
            raise RecordError(
                f"Key cannot be null for record {record.describe()} (store.kafka.keys=true stores every key)."
            )
        if format is Format.PARQUET:
            key_schema = schema_for(record.key, record.key_schema)
            schema = {"type": "record", "name": "RecordKey", "fields": [{"name": "key", "type": key_schema}]}
            return dataclasses.replace(record, value={"key": record.key}, value_schema=schema, headers=())
        return dataclasses.replace(record, value=record.key, value_schema=record.key_schema, headers=())
    headers = []
    for name, value in record.headers:
        text = convert_to_string(value)
        if text is None:
            raise RecordError(
                f"record {record.describe()}: header {name!r} has a null value, which Confluent's headers file "
                "cannot hold (store.kafka.headers=true)."
            )
        headers.append({"key": name, "value": text})
    if format is Format.AVRO:
        return dataclasses.replace(record, value=headers, value_schema=HEADERS_SCHEMA, headers=())
    return dataclasses.replace(record, value={"headers": headers}, value_schema=_ENVELOPED_HEADERS_SCHEMA, headers=())
