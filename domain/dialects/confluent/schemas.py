"""``schema.compatibility`` of the Confluent S3 sink: which schema change rotates, and projection.

Schemas are the domain's Avro dicts; compatibility is Avro schema resolution and projection
:func:`lakesink.domain.schema.adapt` (:meth:`SchemaCompatibility.incompatible`,
:meth:`SchemaCompatibility.project`). See docs/dialects.md, "Running a Confluent config".
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from lakesink.domain.errors import FormatError, RecordError
from lakesink.domain.schema import Schema, adapt, can_read

SWITCH = "Switch between schema-based and schema-less data is not supported"


class SchemaCompatibility(Enum):
    """The ``schema.compatibility`` values."""

    NONE = "NONE"
    BACKWARD = "BACKWARD"
    FORWARD = "FORWARD"
    FULL = "FULL"

    def incompatible(self, incoming: Schema | None, current: Schema | None) -> bool:
        """Whether a record declaring ``incoming`` cannot go into a file of ``current`` (rotate).

        Confluent's rules (``StorageSchemaCompatibility#validateAndCheck``), ``incoming`` being None for
        schemaless data and tombstones: both None, or the same schema: compatible; one None and the
        other not: "Switch between schema-based and schema-less data is not supported"; ``NONE``: any
        other difference is incompatible; ``BACKWARD`` / ``FULL``: both need a version, incompatible when
        the file's schema cannot take the record's structure or the record's version is newer;
        ``FORWARD``: the same, but when the record's version is older. Confluent's structural check walks
        types (with numeric promotion), names, parameters and required fields; here the file's schema
        must be able to read data written with the record's schema (Avro schema resolution,
        :func:`lakesink.domain.schema.can_read`), which accepts the same promotions and missing fields
        with defaults. Versions are Connect's ``connect.version``, which
        :func:`lakesink.domain.schema.connect.connect_to_avro` keeps.

        Raises:
            RecordError: a switch between schema-based and schema-less data, or (other than
                NONE) a schema without a version.
        """
        if incoming is current or incoming == current:
            return False
        if incoming is None or current is None:
            raise RecordError(SWITCH)
        if self is SchemaCompatibility.NONE:
            return True
        incoming_version, current_version = _version(incoming), _version(current)
        if incoming_version is None or current_version is None:
            raise RecordError(f"Schema version required for {self.value} compatibility")
        if not can_read(current, incoming):
            return True
        if self is SchemaCompatibility.FORWARD:
            return incoming_version < current_version
        return incoming_version > current_version

    def project(self, value: Any, incoming: Schema | None, current: Schema | None) -> Any:
        """``value`` (declaring ``incoming``) in the shape of the file's ``current`` schema.

        Raises:
            RecordError: the value cannot be projected (Confluent's SchemaProjectorException).
        """
        if self is SchemaCompatibility.NONE or incoming is None or current is None or incoming == current:
            return value
        try:
            return adapt(value, current)
        except FormatError as error:
            raise RecordError(f"cannot project the value into the file's schema: {error}") from None


def _version(schema: Schema) -> int | None:
    if isinstance(schema, dict):
        version = schema.get("connect.version")
        return version if isinstance(version, int) else None
    return None
