"""An Aiven S3 sink object read back as message batches (the restore of an Aiven sink config).

The object is decompressed whole, split by its format's framing
(:data:`~lakesink.domain.dialects.aiven.output.FRAMING`), and each record's fields become Kafka
bytes (:func:`aiven_batches`, :mod:`lakesink.domain.dialects.aiven.restore_fields`).
See docs/restore.md, "Restoring what an Aiven S3 sink wrote".
"""

from __future__ import annotations

import base64
import binascii
import io
import json
from collections.abc import Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any

from lakesink.adapters.dialects.aiven.compression import decompressed
from lakesink.adapters.formats.jsoncodec import dumps
from lakesink.adapters.kafka.converters import BYTE_ARRAY, JSON, canonical_name
from lakesink.adapters.kafka.header_converters import HeaderConverter
from lakesink.adapters.restore.messages import header_converter, to_bytes
from lakesink.domain.dialects.aiven.naming import AivenFormat
from lakesink.domain.dialects.aiven.output import FRAMING
from lakesink.domain.dialects.aiven.restore_fields import StoredRecord, csv_record, instant_millis
from lakesink.domain.dialects.aiven.restore_layout import AivenSinkLayout
from lakesink.domain.errors import FormatError
from lakesink.domain.restore.batch import MessageBatch, kafka_timestamp
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot

ROWS = 4096


def aiven_batches(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
    """The messages of one downloaded Aiven object, in file order.

    Key / value: bytes stay bytes; in json/jsonl, where ``JsonConverter`` wrote bytes as Base64 text,
    a ``ByteArrayConverter`` part (the sink's default) is Base64-decoded; a ``JsonConverter`` part is
    its compact JSON text (the original spacing is not stored); text is its UTF-8, anything else
    compact JSON. Timestamp: epoch millis (json's ISO-8601 instant parsed back); none → the
    producer's clock. Headers: in file order (avro/parquet store a map: one value per name, order
    lost), each written back by the restore's header converter, Base64-decoded first in json when
    that is ``ByteArrayConverter``. A file that does not parse is a FormatError naming the object
    (``errors.tolerance=all`` skips it).

    Raises:
        FormatError: the object is not a file of the sink config's format and compression.
    """
    layout = root.layout
    assert isinstance(layout, AivenSinkLayout), "an Aiven sink root"
    records = iter(_records(layout, header_converter(root), entry.key, path))
    while chunk := list(islice(records, ROWS)):
        yield MessageBatch(
            keys=[record.key for record in chunk],
            values=[record.value for record in chunk],
            headers=[record.headers for record in chunk],
            timestamps=[kafka_timestamp(record.timestamp) for record in chunk],
            partitions=[entry.partition] * len(chunk),
        )


def _records(
    layout: AivenSinkLayout, headers: HeaderConverter, key: str, path: Path
) -> Iterator[StoredRecord]:
    output = layout.output
    if output.format is AivenFormat.PARQUET:
        yield from _rows(layout, headers, key, _parquet_rows(key, path), text=False)
        return
    try:
        content = decompressed(output.compression, path.read_bytes())
    except ValueError as error:
        raise FormatError(f"{key} is not {output.compression.value} data: {error}") from None
    if output.format is AivenFormat.CSV:
        for number, line in enumerate(content.split(FRAMING[AivenFormat.CSV].separator), start=1):
            yield csv_record(line, output.fields, f"{key} line {number}")
    elif output.format is AivenFormat.AVRO:
        yield from _rows(layout, headers, key, _avro_rows(key, content), text=False)
    else:
        yield from _rows(layout, headers, key, _json_rows(output.format, key, content), text=True)


def _json_rows(fmt: AivenFormat, key: str, content: bytes) -> Iterator[Any]:
    """jsonl: one document per line; json: the array ``[\\n`` … ``,\\n`` … ``\\n]``."""
    try:
        if fmt is AivenFormat.JSON:
            documents = json.loads(content)
            if not isinstance(documents, list):
                raise FormatError(f"{key} is not a JSON array of records.")
            yield from documents
            return
        for line in content.split(FRAMING[AivenFormat.JSONL].separator):
            yield json.loads(line)
    except ValueError as error:
        raise FormatError(f"{key} is not Aiven's {fmt.value}: {error}") from None


def _avro_rows(key: str, content: bytes) -> Iterator[Any]:
    from fastavro import reader

    try:
        yield from reader(io.BytesIO(content))
    except (ValueError, EOFError, TypeError) as error:
        raise FormatError(f"{key} is not an Avro object container: {error}") from None


def _parquet_rows(key: str, path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pylist()
    except Exception as error:  # noqa: BLE001 - pyarrow raises several kinds for a bad file
        raise FormatError(f"{key} is not a Parquet file: {error}") from None


def _rows(
    layout: AivenSinkLayout, headers: HeaderConverter, key: str, rows: Iterator[Any], *, text: bool
) -> Iterator[StoredRecord]:
    """Records of a json/jsonl (``text``: bytes are Base64 text) or avro/parquet file."""
    name = layout.output.fields[0].name
    for row in rows:
        if layout.output.envelope:
            if not isinstance(row, Mapping):
                raise FormatError(f"{key}: a record is not an object of the output fields: {str(row)[:200]}")
            fields = row
        else:  # the single field bare; avro/parquet wrap a non-struct one in {name: …} (aiven_output.avro_datum)
            unwrapped = not text and isinstance(row, Mapping) and set(row) == {name}
            fields = {name: row[name] if unwrapped else row}
        stamp = fields.get("timestamp")
        yield StoredRecord(
            key=_part(fields.get("key"), layout.key_converter, text=text),
            value=_part(fields.get("value"), layout.value_converter, text=text),
            headers=_headers(fields.get("headers"), headers, key, text=text),
            timestamp=instant_millis(stamp, key) if text else stamp,
        )


def _part(stored: Any, converter: str | None, *, text: bool) -> bytes | None:
    """A key or value as the bytes the sink's converter had received."""
    name = canonical_name(converter or BYTE_ARRAY)
    if text and name == BYTE_ARRAY and isinstance(stored, str):
        return _base64(stored)
    if name == JSON and stored is not None and not isinstance(stored, bytes):
        return dumps(stored).encode("utf-8")
    return to_bytes(stored)


def _headers(
    stored: Any, converter: HeaderConverter, key: str, *, text: bool
) -> list[tuple[str, bytes | None]] | None:
    """json: ``[{"key", "value"}]``; avro/parquet: a map (a list of pairs once through pyarrow)."""
    if stored is None:
        return None
    pairs = stored.items() if isinstance(stored, Mapping) else stored
    found = []
    for pair in pairs:
        name, value = (pair.get("key"), pair.get("value")) if isinstance(pair, Mapping) else pair
        if not isinstance(name, str):
            raise FormatError(f"{key}: a header is not {{key, value}}: {str(pair)[:200]}")
        if text and converter.name == "ByteArrayConverter" and isinstance(value, str):
            value = _base64(value)
        found.append((name, converter.from_connect(value, None)))
    return found or None


def _base64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise FormatError(f"{text[:80]!r} is not Base64 (the sink's ByteArrayConverter bytes).") from None
