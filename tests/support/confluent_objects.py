"""Objects in the Confluent S3 sink's byte formats, written by hand for the restore's tests."""

from __future__ import annotations

import io
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

#: The headers view of an Avro ``.headers`` object: per record an array of ``{key, value}``
#: (Connect's ``Values.convertToString`` text), as Confluent's AvroData names the struct.
HEADERS_SCHEMA = {
    "type": "array",
    "items": {
        "type": "record",
        "name": "ConnectDefault",
        "namespace": "io.confluent.connect.avro",
        "fields": [
            {"name": "key", "type": "string"},
            {"name": "value", "type": ["null", "string"], "default": None},
        ],
    },
}


def avro_bytes(schema: Any, rows: list[Any]) -> bytes:
    """An Avro object container as Confluent's AvroFormat writes it (one datum per record)."""
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(schema), rows)
    return out.getvalue()


def parquet_bytes(rows: list[dict[str, Any]]) -> bytes:
    """A Snappy Parquet file of the rows (Confluent's ParquetFormat default codec)."""
    out = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), out, compression="snappy")
    return out.getvalue()
