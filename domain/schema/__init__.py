"""Schemas of what is written, as Avro schema dicts: inferred from schemaless JSON or taken from
Connect and Schema Registry, values checked against them, schemas merged and judged compatible.
Why Avro dicts rather than a model of our own, and their conventions: :mod:`.model`.
"""

from __future__ import annotations

from lakesink.domain.schema.check import checker, fits
from lakesink.domain.schema.compat import can_read
from lakesink.domain.schema.connect import connect_to_avro, decode_connect_payload, from_connect_envelope
from lakesink.domain.schema.infer import infer, merge
from lakesink.domain.schema.model import (
    CONNECT_DEFAULT_NAME,
    CONNECT_DEFAULT_NAMESPACE,
    Schema,
    from_avro,
    is_nullable,
    name_records,
    optional,
)
from lakesink.domain.schema.resolve import adapt, schema_for

__all__ = [
    "CONNECT_DEFAULT_NAME",
    "CONNECT_DEFAULT_NAMESPACE",
    "Schema",
    "adapt",
    "can_read",
    "checker",
    "connect_to_avro",
    "decode_connect_payload",
    "fits",
    "from_avro",
    "from_connect_envelope",
    "infer",
    "is_nullable",
    "merge",
    "name_records",
    "optional",
    "schema_for",
]
