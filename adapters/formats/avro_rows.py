"""From a record straight to the Avro bytes of its row: the value, or the envelope's fields.

Why not build the row first: an envelope row is a new dict per record that the encoder would
only read back field by field. Here each envelope field is read from the record
(:func:`~lakesink.domain.schema.envelope.envelope_parts`, the readers the row is built with)
and encoded with that field's schema, in the schema's field order: exactly the encoding of
the row, since every field of an envelope row is always present.
"""

from __future__ import annotations

from operator import attrgetter

from lakesink.adapters.formats.avro_encoder import Encode, compile_fields_encoder
from lakesink.domain.schema import Schema
from lakesink.domain.schema.envelope import envelope_parts
from lakesink.domain.schema.envelope_fields import EnvelopeFields
from lakesink.domain.schema.model import kind

RowEncode = Encode
"""Takes a :class:`~lakesink.domain.records.Record`: appends the encoding of its row and returns
True, or returns False when the row does not fit the schema (see :data:`.avro_encoder.Encode`)."""


def row_encoder(schema: Schema, envelope: EnvelopeFields | None) -> RowEncode | None:
    """The encoder of the rows of a file with ``schema``; None when fastavro must write them.

    ``envelope`` None: the row is the record's value. Otherwise the row is the envelope, whose
    schema is a record of the envelope's fields in row order (see
    :func:`~lakesink.domain.schema.envelope.envelope_schema`).
    """
    if envelope is None:
        return compile_fields_encoder([(attrgetter("value"), schema)])
    parts = envelope_parts(envelope)
    if kind(schema) != "record" or [field["name"] for field in schema["fields"]] != [name for name, _ in parts]:
        return None
    return compile_fields_encoder(
        [(read, field["type"]) for (_, read), field in zip(parts, schema["fields"], strict=True)]
    )
