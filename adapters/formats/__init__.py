"""Storage-format writers and readers: Parquet, Avro, JSON lines, CSV, TEXT, BYTES.

:func:`open_writer` gives a :class:`~lakesink.domain.ports.FormatWriter` streaming into a
local staging file; :func:`open_reader` yields the records of such a file back. The format
rules are documented per module and in ``docs/formats.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lakesink.domain.dialects.quix.naming import StoreLayout
from lakesink.domain.errors import FormatError
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.ports import FormatWriter
from lakesink.domain.records import Record
from lakesink.domain.schema.envelope_fields import EnvelopeFields


def _check_envelope(format: Format, envelope: object) -> None:
    if envelope and not format.supports_envelope:
        raise FormatError(f"store.envelope is not supported for {format.value}; use JSON, AVRO or PARQUET")


def open_writer(
    format: Format,
    path: Path | str,
    *,
    codec: CompressionCodec = CompressionCodec.UNCOMPRESSED,
    level: int | None = None,
    envelope: EnvelopeFields | None = None,
    csv_headers: bool = False,
    store: StoreLayout = StoreLayout.LENSES,
) -> FormatWriter:
    """A writer of ``format`` creating (or truncating) the staging file ``path``; ``store`` QUIX
    writes Quix Streams' JSON lines or Parquet tables (JSON and PARQUET only).

    Raises:
        FormatError: the codec, level or envelope is not valid for the format.
    """
    _check_envelope(format, envelope)
    if format is Format.PARQUET and store is StoreLayout.QUIX:
        from lakesink.adapters.dialects.quix.parquet import QuixParquetWriter

        return QuixParquetWriter(path, codec=codec, level=level)
    if format is Format.PARQUET:
        from lakesink.adapters.formats.parquet import ParquetWriter

        return ParquetWriter(path, codec=codec, level=level, envelope=envelope)
    if format is Format.AVRO:
        from lakesink.adapters.formats.avro import AvroWriter

        return AvroWriter(path, codec=codec, level=level, envelope=envelope)
    if format is Format.JSON:
        from lakesink.adapters.formats.json_lines import JsonWriter

        return JsonWriter(path, codec=codec, level=level, envelope=envelope, store=store)
    if format is Format.CSV:
        from lakesink.adapters.formats.csv_file import CsvWriter

        return CsvWriter(path, headers=csv_headers)
    if format is Format.TEXT:
        from lakesink.adapters.formats.text import TextWriter

        return TextWriter(path)
    from lakesink.adapters.formats.binary import BytesWriter

    return BytesWriter(path)


def open_reader(
    format: Format,
    path: Path | str,
    *,
    envelope: bool = False,
    csv_headers: bool = False,
    codec: CompressionCodec = CompressionCodec.UNCOMPRESSED,
) -> Iterator[Record]:
    """The records of a local file written in ``format``, in order.

    Without an envelope, records carry the value only, with ``offset`` set to the 0-based index
    of the record in the file; with one, topic/partition/offset/timestamp/key/headers come from
    the envelope.

    Raises:
        FormatError: the file is not valid for the format, or envelope is not supported.
    """
    _check_envelope(format, envelope)
    path = Path(path)
    if format is Format.PARQUET:
        from lakesink.adapters.formats.parquet import read_parquet

        return read_parquet(path, envelope=envelope)
    if format is Format.AVRO:
        from lakesink.adapters.formats.avro import read_avro

        return read_avro(path, envelope=envelope)
    if format is Format.JSON:
        from lakesink.adapters.formats.json_lines import read_json

        return read_json(path, envelope=envelope, codec=codec)
    if format is Format.CSV:
        from lakesink.adapters.formats.csv_file import read_csv

        return read_csv(path, headers=csv_headers)
    if format is Format.TEXT:
        from lakesink.adapters.formats.text import read_text

        return read_text(path)
    from lakesink.adapters.formats.binary import read_bytes

    return read_bytes(path)
