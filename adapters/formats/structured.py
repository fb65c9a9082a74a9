"""What the Avro and Parquet writers share: one schema per file, fixed when it opens.

The file's schema is the first record's (its converter's schema, or one inferred from the
data), or, for a first :meth:`write_many` batch, the merge of the schemas of the leading
records that merge. A later record that does not :func:`~lakesink.domain.schema.fits` the
schema raises SchemaChangedError before anything is written, so a file is never corrupt; a
record that does not even fit its own declared schema is a poison record (RecordError).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lakesink.adapters.formats.staging import StagingFile, poison
from lakesink.domain.errors import FormatError, SchemaChangedError
from lakesink.domain.records import Record
from lakesink.domain.schema import Schema, checker, fits, merge, schema_for
from lakesink.domain.schema.check import Check
from lakesink.domain.schema.envelope import envelope_parts, envelope_schema
from lakesink.domain.schema.envelope_fields import EnvelopeFields


class StructuredFile(StagingFile):
    """A staging file whose rows all follow one Avro schema."""

    def __init__(self, path: Path | str, *, envelope: EnvelopeFields | None) -> None:
        super().__init__(path)
        self._envelope = envelope
        self._parts = envelope_parts(envelope) if envelope is not None else ()
        self._schema: Schema | None = None
        self._fits: Check = checker("null")  # replaced when the first record fixes the schema

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
        except FormatError as error:
            raise poison(record, str(error)) from error
        if not fits(row, schema):
            raise poison(record, "the value does not match its own schema")
        return schema

    def _write(self, record: Record) -> None:
        if self._schema is None:
            self._start(self._schema_of(record, self._row(record)))
        if not self._put(record):
            self._schema_of(record, self._row(record))  # a poison record raises RecordError here
            raise SchemaChangedError(f"record {record.describe()} does not fit the schema of {self.path}")

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
