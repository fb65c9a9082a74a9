"""What the Avro and Parquet writers share: one schema per file, fixed when it opens.

The first record's schema, or the merge over a first :meth:`StructuredFile.write_many` batch; a
later record that does not fit raises SchemaChangedError before anything is written, so a file is
never corrupt (new header names widen it instead, :class:`StructuredFile`).
See docs/formats.md, "Values and schemas".
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from lakesink.adapters.formats.staging import CountingFile, StagingFile
from lakesink.domain.errors import FormatError, SchemaChangedError
from lakesink.domain.records import Record, poison
from lakesink.domain.schema import Schema, checker, fits, merge, schema_for
from lakesink.domain.schema.check import Check
from lakesink.domain.schema.envelope import envelope_parts, envelope_schema
from lakesink.domain.schema.envelope_fields import EnvelopeFields
from lakesink.domain.schema.headers import widen_headers


class StructuredFile(StagingFile):
    """A staging file whose rows all follow one Avro schema.

    Except for headers: an envelope record that only brings header names the file has not seen
    (:func:`~lakesink.domain.schema.headers.widen_headers`) widens the file's schema instead of
    rolling it. The file written so far is set aside as a finished segment and a new segment starts
    with the wider schema; rolling the file re-reads the segments and writes every row again with
    the last (widest) schema, which all of them fit: one extra pass, only for files whose header
    names changed, instead of one tiny file per change.
    """

    def __init__(self, path: Path | str, *, envelope: EnvelopeFields | None) -> None:
        super().__init__(path)
        self._envelope = envelope
        self._parts = envelope_parts(envelope) if envelope is not None else ()
        self._schema: Schema | None = None
        self._fits: Check = checker("null")  # replaced when the first record fixes the schema
        self._segments: list[Path] = []
        self._segment_bytes = 0

    @property
    def schema(self) -> Schema | None:
        """The file's schema, once the first record fixed it."""
        return self._schema

    def _row(self, record: Record) -> Any:
        if self._envelope is None:
            return record.value
        return {name: read(record) for name, read in self._parts}

    def _schema_of(self, record: Record, row: Any) -> Schema:
        try:
            if self._envelope is None:
                schema = schema_for(record.value, record.value_schema)
            else:
                schema = envelope_schema(record, self._envelope)
            self._check_representable(schema)
        except FormatError as error:
            raise poison(record, str(error)) from error
        if not fits(row, schema):
            raise poison(record, "the value does not match its own schema")
        return schema

    def _check_representable(self, schema: Schema) -> None:
        """Raise FormatError when the format cannot store rows of ``schema`` (every schema, here):
        checked where a record's schema is first met, so such a record is poison, not a failed file."""

    def _write(self, record: Record) -> None:
        if self._schema is None:
            self._start(self._schema_of(record, self._row(record)))
        if self._put(record):
            return
        row = self._row(record)
        schema = self._schema_of(record, row)  # a poison record raises RecordError here
        wider = widen_headers(self._schema, schema) if self._envelope is not None else None
        if wider is None or not checker(wider)(row):
            raise SchemaChangedError(f"record {record.describe()} does not fit the schema of {self.path}")
        self._next_segment()
        self._start(wider)
        if not self._put(record):
            raise FormatError(f"record {record.describe()} does not fit the widened schema of {self.path}")

    def _next_segment(self) -> None:
        """Finish what was written as a segment file next to the staging file and start it afresh."""
        self._end_segment()
        self._raw.close()
        segment = self.path.with_name(f"{self.path.name}.segment{len(self._segments)}")
        self.path.replace(segment)
        self._segments.append(segment)
        self._segment_bytes += self._raw.count
        self._raw = CountingFile(self.path)
        self._reset_format()

    def _finish(self) -> None:
        """End the file; a widened file is written again from its segments with its last schema."""
        if not self._segments:
            self._end_segment()
            return
        schema, written = self._schema, self._count
        self._next_segment()
        self._start(schema)
        self._count = 0  # counts the rows again, as writers that cut blocks by row number expect
        for segment in self._segments:
            for record in self._read_segment(segment):
                if not self._put(record):
                    raise FormatError(f"a row of {segment} does not fit the widened schema of {self.path}")
                self._count += 1
        if self._count != written:
            raise FormatError(
                f"{self.path}: {self._count} rows read back from its segments, {written} written"
            )
        self._end_segment()
        self._remove_segments()

    def abort(self) -> None:
        super().abort()
        self._remove_segments()

    def _remove_segments(self) -> None:
        for segment in self._segments:
            segment.unlink(missing_ok=True)
        self._segments = []

    def _put(self, record: Record) -> bool:
        """Append the record's row if it fits the file's schema; False, having written nothing, if not.

        Writers with a faster way to check and add a row in one go override this.
        """
        row = self._row(record)
        if not self._fits(row):
            return False
        self._append(row)
        return True

    def write_many(self, records: Sequence[Record]) -> int:
        """Fix the schema over the batch first (see the module docstring), then write."""
        self._check_open()
        if self._schema is None and records:
            schema = self._batch_schema(records)
            if schema is not None:
                self._start(schema)
        return super().write_many(records)

    def _batch_schema(self, records: Sequence[Record]) -> Schema | None:
        schema = None
        for record in records:
            try:
                record_schema = self._schema_of(record, self._row(record))
            except FormatError:
                break  # the poison record is reported when it is written
            merged = record_schema if schema is None else merge(schema, record_schema)
            if merged is None:
                break
            schema = merged
        return schema

    def _start(self, schema: Schema) -> None:
        self._schema = schema
        self._fits = checker(schema)
        self._open(schema)

    def _open(self, schema: Schema) -> None:
        """Start the file with its schema."""
        raise NotImplementedError

    def _append(self, row: Any) -> None:
        """Add one row that fits the schema."""
        raise NotImplementedError

    def _end_segment(self) -> None:
        """Write what the format needs at the end of a file into the staging file."""
        raise NotImplementedError

    def _reset_format(self) -> None:
        """Forget the ended segment's format state, so :meth:`_open` can start a new one."""
        raise NotImplementedError

    def _read_segment(self, path: Path) -> Iterator[Record]:
        """The envelope records of an ended segment."""
        raise NotImplementedError
