"""BYTES: exactly one record per file, its value's bytes as they are (Lenses ``BYTES``).

A null value makes an empty file. A second record raises SchemaChangedError (with Lenses'
message) so the caller rolls to a new file, which is what one-record-per-file means; a value
that is not bytes is a poison record. Reading an empty file yields no record, as in Lenses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lakesink.adapters.formats.staging import StagingFile
from lakesink.domain.errors import SchemaChangedError
from lakesink.domain.records import Record, poison

ALREADY_WRITTEN = "Output stream already written to, can only write a single record for BYTES type."


def not_binary(type_name: str) -> str:
    """Lenses' message for a value that is not bytes."""
    return (
        f"Non-binary content received: {type_name}.  It is required the converter to be set to "
        "[org.apache.kafka.connect.converters.ByteArrayConverter]."
    )


class BytesWriter(StagingFile):
    """Writes the single record's value."""

    def _write(self, record: Record) -> None:
        if self._count:
            raise SchemaChangedError(ALREADY_WRITTEN)
        value = record.value
        if value is None:
            return
        if not isinstance(value, bytes | bytearray | memoryview):
            raise poison(record, not_binary(type(value).__name__))
        self._raw.write(value)


def read_bytes(path: Path) -> Iterator[Record]:
    """Yield the file's content as one record, or nothing for an empty file."""
    data = path.read_bytes()
    if data:
        yield Record(topic="", partition=0, offset=0, value=data)
