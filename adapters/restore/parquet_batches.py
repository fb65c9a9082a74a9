"""Parquet objects as message batches, column by column through pyarrow.

String columns are cast to binary inside Arrow (their UTF-8 bytes are what Kafka gets), binary
columns come out as bytes, and only structured or numeric columns are turned into Python values
(with the map fix-up the record reader applies) to be written as JSON. The rules are those of
:func:`~lakesink.adapters.restore.messages.to_bytes` and of the record reader
(:func:`lakesink.adapters.formats.parquet.read_parquet`), whose schema helpers are reused.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from lakesink.adapters.formats.parquet import VALUE_COLUMN, open_parquet, python_fixer
from lakesink.adapters.restore.header_bytes import StoredHeaders
from lakesink.adapters.restore.messages import header_converter
from lakesink.adapters.restore.part_columns import PartKind, column_bytes, envelope_batch
from lakesink.domain.restore.batch import MessageBatch
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot


def _is_json_type(arrow_type: pa.DataType) -> bool:
    """Types whose Python values are never ``str`` or ``bytes``, so always written as JSON."""
    types = pa.types
    return any(
        check(arrow_type)
        for check in (
            types.is_struct, types.is_list, types.is_large_list, types.is_map, types.is_integer,
            types.is_floating, types.is_boolean, types.is_decimal, types.is_temporal,
        )
    )


def arrow_kind(arrow_type: pa.DataType) -> PartKind:
    """How the Python values of an Arrow column (as :func:`_part` gives them) become bytes."""
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return PartKind.TEXT
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type) or pa.types.is_fixed_size_binary(arrow_type):
        return PartKind.BYTES
    return PartKind.JSON if _is_json_type(arrow_type) else PartKind.ANY


def _part(column: pa.Array | None, rows: int) -> tuple[list[Any], PartKind]:
    """A column's Python values and their kind; strings come out as their UTF-8 bytes."""
    if column is None:
        return [None] * rows, PartKind.ANY
    kind = arrow_kind(column.type)
    if kind is PartKind.TEXT:
        return column.cast(pa.large_binary()).to_pylist(), PartKind.BYTES
    values = column.to_pylist()
    fix = python_fixer(column.type)
    return ([fix(value) for value in values] if fix is not None else values), kind


def parquet_batches(root: RestoreRoot, entry: IndexEntry, path: Path, rows_per_batch: int) -> Iterator[MessageBatch]:
    """The batches of one Parquet file.

    Raises:
        FormatError: the file is not Parquet.
    """
    parquet, avro, wrapped = open_parquet(path)
    avro_fields = {field["name"]: field["type"] for field in avro.get("fields", ())} if isinstance(avro, dict) else {}
    stored_headers = StoredHeaders.of(header_converter(root), avro_fields.get("headers", "null"))
    object_key = entry.key.encode("utf-8") if root.key_from_object_key else None
    for batch in parquet.iter_batches(batch_size=rows_per_batch):
        names = batch.schema.names

        def column(name: str, batch: pa.RecordBatch = batch, names: list[str] = names) -> pa.Array | None:
            return batch.column(name) if name in names else None

        rows = batch.num_rows
        if not root.envelope:
            if wrapped:
                values, kind = _part(column(VALUE_COLUMN), rows)
            else:
                values, kind = _part(pa.StructArray.from_arrays(batch.columns, fields=list(batch.schema)), rows)
            yield MessageBatch.of_values(column_bytes(kind, values), key=object_key, partition=entry.partition)
            continue
        keys, key_kind = _part(column("key"), rows)
        values, value_kind = _part(column("value"), rows)
        headers, _ = _part(column("headers"), rows)
        meta, _ = _part(column("metadata"), rows)
        yield envelope_batch(
            keys=keys,
            values=values,
            headers=headers,
            metadata=meta,
            key_kind=key_kind,
            value_kind=value_kind,
            stored_headers=stored_headers,
            partition=entry.partition,
        )
