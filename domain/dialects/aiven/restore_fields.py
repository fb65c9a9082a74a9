"""One record of an Aiven S3 sink file read back into what Kafka gets: the inverse of :mod:`lakesink.domain.dialects.aiven.output`.

Only what the sink wrote comes back, and the records of a file keep their order
(:func:`csv_record`). See docs/restore.md, "Restoring what an Aiven S3 sink wrote".
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from lakesink.domain.dialects.aiven.output import OutputField
from lakesink.domain.errors import FormatError
from lakesink.domain.restore.batch import HeaderList

_ISO_INSTANT = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?Z", re.ASCII)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """A record's parts as Kafka gets them; None where the file holds nothing (or null)."""

    key: bytes | None = None
    value: bytes | None = None
    headers: HeaderList | None = None
    timestamp: int | None = None


def csv_record(line: bytes, fields: Sequence[OutputField], where: str) -> StoredRecord:
    """One csv line (without its ``\\n``) as a record; ``where`` names it in errors.

    Only what the sink wrote comes back: a field not in ``format.output.fields`` is absent (no key: a
    null key; no timestamp: the producer's clock; no headers: none), and ``offset`` is not produced
    (Kafka assigns offsets). The key is Base64 always, the value Base64 (``none`` is refused at plan
    time: raw bytes may hold ``,`` or a line break), the timestamp decimal epoch millis, the headers
    ``b64(name):b64(value);`` per header. An empty cell is null: Aiven writes a null and an empty key
    or value alike.

    Raises:
        FormatError: another number of cells than fields, bad Base64, a timestamp that is not a number.
    """
    cells = line.split(b",")
    if len(cells) != len(fields):
        raise FormatError(f"{where}: {len(cells)} cells, but format.output.fields names {len(fields)}.")
    parts: dict[str, object] = {}
    for field, cell in zip(fields, cells, strict=True):
        if field.name == "key" or (field.name == "value" and field.encoding == "base64"):
            parts[field.name] = _base64(cell, where) or None
        elif field.name == "value":
            parts["value"] = cell or None
        elif field.name == "timestamp":
            parts["timestamp"] = _number(cell, where)
        elif field.name == "headers":
            parts["headers"] = _csv_headers(cell, where)
    return StoredRecord(**parts)  # type: ignore[arg-type]


def instant_millis(text: str | None, where: str) -> int | None:
    """Epoch millis of a JSON ``timestamp`` (``DateTimeFormatter.ISO_INSTANT``, ``.SSS`` optional), None for null.

    Raises:
        FormatError: it is not such a text.
    """
    if text is None:
        return None
    match = _ISO_INSTANT.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise FormatError(f"{where}: timestamp {text!r} is not an ISO-8601 instant.")
    year, month, day, hour, minute, second, millis = match.groups()
    moment = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), tzinfo=UTC)
    return (moment - _EPOCH) // timedelta(milliseconds=1) + int(millis or 0)


def _csv_headers(cell: bytes, where: str) -> HeaderList | None:
    headers: HeaderList = []
    items = cell.split(b";")
    if not items[-1]:
        items.pop()  # each header ends with ";"
    for item in items:
        name, colon, value = item.partition(b":")
        if not colon:
            raise FormatError(f"{where}: header {item[:80]!r} is not b64(name):b64(value).")
        headers.append((_base64(name, where).decode("utf-8"), _base64(value, where)))
    return headers or None


def _base64(cell: bytes, where: str) -> bytes:
    try:
        return base64.b64decode(cell, validate=True)
    except binascii.Error:
        raise FormatError(f"{where}: {cell[:80]!r} is not Base64.") from None


def _number(cell: bytes, where: str) -> int | None:
    if not cell:
        return None
    if not cell.lstrip(b"-").isdigit():
        raise FormatError(f"{where}: timestamp {cell[:40]!r} is not epoch milliseconds.")
    return int(cell)
