"""Schemas for the storage formats, as Avro schema dicts.

Why Avro dicts and not a schema model of our own: every schema that reaches a writer already
is one (Schema Registry Avro) or maps onto one without loss (Connect JSON schemas, inferred
schemas of schemaless JSON), the Avro writer takes them as they are, the Parquet writer maps
them to Arrow once per file, Lenses itself converts everything to Avro (Confluent ``AvroData``)
before writing Avro *or* Parquet, and the Avro specification already defines what
"compatible" means. A second model would be one more translation to keep in step.

Conventions of the dicts handled here (see :mod:`.model`):

* primitives are plain strings (``"long"``); a dict is used only when it carries more
  (a logical type, ``connect.*`` properties);
* an optional type is the union ``["null", T]`` and its fields default to ``None``;
* records may be left unnamed while a schema is being inferred; :func:`name_records` gives
  them the Confluent names (``ConnectDefault``, ``ConnectDefault2``… in namespace
  ``io.confluent.connect.avro``) before a file is written.

Values are the plain Python data of :class:`lakesink.domain.records.Record`: ``datetime`` for
timestamps, ``date``, ``time``, ``Decimal``, ``bytes``, mappings and sequences.
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
