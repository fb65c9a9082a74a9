"""CSV with opencsv's defaults, as Lenses writes it (``CSV`` / ``CSV_WITHHEADERS``).

Every cell quoted, one schema of top-level columns per file (:class:`CsvWriter`); reading tells a
null cell from an empty string (:func:`read_csv`). See docs/formats.md, "Per format".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date, time
from pathlib import Path
from typing import Any

from lakesink.adapters.formats.staging import StagingFile
from lakesink.adapters.formats.text import text_of
from lakesink.domain.errors import FormatError, SchemaChangedError
from lakesink.domain.records import Record, poison
from lakesink.domain.schema import schema_for


def _quote(text: bytes) -> bytes:
    return b'"' + text.replace(b'"', b'""') + b'"'


class CsvWriter(StagingFile):
    """Writes one row per record; the first record fixes the columns.

    Separator ``,``; every cell quoted with ``"`` and an inner ``"`` doubled; a newline after each
    row; a null or missing cell is empty and unquoted; a header row of quoted column names when
    headers are on. The columns are the top-level fields of the first record's value (its schema's
    field order, else the mapping's key order); a value with a field outside them does not fit
    (SchemaChangedError: the caller rolls); a nested value in a cell is a poison record, as in
    Lenses. Codecs are ignored.
    """

    def __init__(self, path: Path | str, *, headers: bool = False) -> None:
        super().__init__(path)
        self._headers = headers
        self._columns: tuple[str, ...] | None = None

    def _write(self, record: Record) -> None:
        value = record.value
        if not isinstance(value, Mapping):
            raise poison(record, f"CSV needs a struct or map value, got {type(value).__name__}")
        if self._columns is None:
            self._columns = _columns_of(record, value)
            if self._headers:
                self._raw.write(b",".join(_quote(name.encode("utf-8")) for name in self._columns) + b"\n")
        elif not set(value) <= set(self._columns):
            extra = sorted(set(value) - set(self._columns))
            raise SchemaChangedError(f"record {record.describe()} has fields {extra} outside the CSV columns")
        self._raw.write(b",".join(self._cell(record, value.get(name)) for name in self._columns) + b"\n")

    @staticmethod
    def _cell(record: Record, value: Any) -> bytes:
        if value is None:
            return b""
        if isinstance(value, Mapping) or (isinstance(value, Sequence) and not isinstance(value, str | bytes)):
            raise poison(record, f"CSV cannot hold a nested value ({type(value).__name__})")
        if isinstance(value, date | time):
            return _quote(value.isoformat().encode("ascii"))
        return _quote(text_of(record, value))


def _columns_of(record: Record, value: Mapping[str, Any]) -> tuple[str, ...]:
    if record.value_schema is not None:
        schema = schema_for(value, record.value_schema)
        core = [branch for branch in (schema if isinstance(schema, list) else [schema]) if branch != "null"]
        if len(core) == 1 and isinstance(core[0], dict) and core[0].get("type") == "record":
            return tuple(field["name"] for field in core[0]["fields"])
    return tuple(str(name) for name in value)


def read_csv(path: Path, *, headers: bool) -> Iterator[Record]:
    """Yield one record per row: a dict by column name with headers, else a list of cells.

    A null (empty, unquoted) cell is told from an empty string (``""``), which Python's ``csv``
    module cannot do before 3.12.

    Raises:
        FormatError: a quote is not closed, or a row has more cells than the header.
    """
    rows = _rows(path.read_bytes().decode("utf-8"), path)
    names: list[str | None] | None = None
    index = 0
    for row in rows:
        if headers and names is None:
            names = row
            continue
        if names is not None:
            if len(row) > len(names):
                raise FormatError(f"{path} row {index + 1} has {len(row)} cells for {len(names)} columns")
            value: Any = {str(name): cell for name, cell in zip(names, row, strict=False)}
        else:
            value = row
        yield Record(topic="", partition=0, offset=index, value=value)
        index += 1


def _rows(text: str, path: Path) -> Iterator[list[str | None]]:
    """Parse opencsv output: quoted cells with doubled quotes, empty unquoted cell = null."""
    position, length = 0, len(text)
    while position < length:
        row: list[str | None] = []
        while True:
            if position < length and text[position] == '"':
                parts = []
                position += 1
                while True:
                    end = text.find('"', position)
                    if end < 0:
                        raise FormatError(f"{path}: unclosed quote")
                    parts.append(text[position:end])
                    if text.startswith('"', end + 1):
                        parts.append('"')
                        position = end + 2
                        continue
                    position = end + 1
                    break
                row.append("".join(parts))
            else:
                end = position
                while end < length and text[end] not in ",\n":
                    end += 1
                cell = text[position:end]
                row.append(cell if cell else None)
                position = end
            if position >= length or text[position] == "\n":
                position += 1
                break
            position += 1  # the separator
        yield row
