"""TEXT: the value as text, ``\\n`` after each record (Lenses ``TEXT``).

``bytes`` values are copied as they are (raw passthrough), ``str`` is written as UTF-8, other
primitives as Java's ``toString`` would print them (``true``/``false`` for booleans). Codecs
are ignored, as in Lenses. Reading yields one ``str`` value per line.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

from lakesink.adapters.formats.staging import LineFile
from lakesink.domain.records import Record, poison

NOT_TEXT = "Unable to retrieve text field value.  Text format is only for output of kafka string values."


def text_of(record: Record, value: Any) -> bytes:
    """The bytes TEXT (and CSV cells) write for a primitive value; RecordError otherwise."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, int | float | Decimal):
        return str(value).encode("ascii")
    raise poison(record, NOT_TEXT)


class TextWriter(LineFile):
    """Writes one line per record."""

    def _write(self, record: Record) -> None:
        self._out.write(text_of(record, record.value) + b"\n")


def read_text(path: Path) -> Iterator[Record]:
    """Yield one record per line, the value decoded as UTF-8 without its line break."""
    with open(path, "rb") as lines:
        for index, line in enumerate(lines):
            yield Record(topic="", partition=0, offset=index, value=line.rstrip(b"\n").decode("utf-8"))
