"""Avro objects as message batches.

Envelope files polars can decode exactly go through :mod:`.avro_frames` (column-wise, about
9x faster). Everything else is decoded row by row by fastavro (about 11 µs a row for the
benchmark's envelope); after that a batch is a handful of list comprehensions, the byte
conversion of keys, values and headers chosen once from the writer schema (:func:`avro_kind`).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from lakesink.adapters.formats.avro import open_avro_reader
from lakesink.adapters.restore.avro_frames import frame_batches, frame_plan, read_frame
from lakesink.adapters.restore.header_bytes import StoredHeaders
from lakesink.adapters.restore.messages import header_converter
from lakesink.adapters.restore.part_columns import PartKind, column_bytes, envelope_batch
from lakesink.domain.restore.batch import MessageBatch
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot

_JSON_TYPES = frozenset({"record", "error", "map", "array", "int", "long", "float", "double", "boolean"})


def avro_kind(schema: Any) -> PartKind:
    """What the values of an Avro (writer) schema decode to; a nullable type counts as its non-null branch."""
    branches = [branch for branch in (schema if isinstance(schema, list) else [schema]) if branch != "null"]
    if len(branches) != 1:
        return PartKind.ANY
    branch = branches[0]
    if isinstance(branch, dict):
        if "logicalType" in branch:
            return PartKind.ANY
        branch = branch.get("type")
    if branch in ("string", "enum"):
        return PartKind.TEXT
    if branch in ("bytes", "fixed"):
        return PartKind.BYTES
    return PartKind.JSON if branch in _JSON_TYPES else PartKind.ANY


def avro_batches(root: RestoreRoot, entry: IndexEntry, path: Path, rows_per_batch: int) -> Iterator[MessageBatch]:
    """The batches of one Avro object container file.

    Raises:
        FormatError: the file is not an Avro object container file.
    """
    with open(path, "rb") as data:
        reader = open_avro_reader(data, path)
        schema = reader.writer_schema
        fields = {field["name"]: field["type"] for field in schema.get("fields", ())} if isinstance(schema, dict) else {}
        stored_headers = StoredHeaders.of(header_converter(root), fields.get("headers", "null"))
        plan = frame_plan(schema) if root.envelope else None
        frame = read_frame(path) if plan is not None else None
        if plan is not None and frame is not None:
            yield from frame_batches(frame, plan, stored_headers, entry.partition, rows_per_batch)
            return
        key_kind, value_kind = avro_kind(fields.get("key", "null")), avro_kind(fields.get("value", "null"))
        whole_kind = avro_kind(schema)
        object_key = entry.key.encode("utf-8") if root.key_from_object_key else None
        while rows := list(islice(reader, rows_per_batch)):
            if not root.envelope:
                yield MessageBatch.of_values(column_bytes(whole_kind, rows), key=object_key, partition=entry.partition)
                continue
            yield envelope_batch(
                keys=[row.get("key") for row in rows],
                values=[row.get("value") for row in rows],
                headers=[row.get("headers") for row in rows],
                metadata=[row.get("metadata") for row in rows],
                key_kind=key_kind,
                value_kind=value_kind,
                stored_headers=stored_headers,
                partition=entry.partition,
            )
