"""The key or the value of a record, for the transforms Kafka Connect has in ``$Key`` and ``$Value`` forms.

A part's data comes with an optional schema hint from its converter (an Avro schema, or a
Connect schema from ``JsonConverter`` with ``schemas.enable=true``). Transforms follow Connect's
"with schema" behaviour when the part has one and its schemaless behaviour otherwise; a transform
that reshapes the data hands back a schema in lakesink's Avro model
(:mod:`lakesink.domain.schema.model`), which every writer accepts as a hint.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from enum import Enum
from typing import Any

from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.schema.model import Schema
from lakesink.domain.schema.resolve import schema_for
from lakesink.domain.transforms.chain import Transform, TransformFactory
from lakesink.domain.transforms.options import TransformOptions


class Part(Enum):
    """Which half of the record a ``$Key`` / ``$Value`` transform works on."""

    KEY = "Key"
    VALUE = "Value"

    def data(self, record: Record) -> Any:
        """The part's data."""
        return record.key if self is Part.KEY else record.value

    def hint(self, record: Record) -> Any:
        """The part's schema hint as the converter gave it (None when schemaless)."""
        return record.key_schema if self is Part.KEY else record.value_schema

    def schema(self, record: Record) -> Schema | None:
        """The part's schema in lakesink's Avro model, None when the part is schemaless.

        Raises:
            FormatError: the hint is not a schema.
        """
        hint = self.hint(record)
        return None if hint is None else schema_for(self.data(record), hint)

    def replace(self, record: Record, data: Any, schema: Any) -> Record:
        """The record with this part's data and schema hint replaced."""
        if self is Part.KEY:
            return dataclasses.replace(record, key=data, key_schema=schema)
        return record.with_value(data, schema)


def variants(
    base: str, build: Callable[[TransformOptions, Clock, Part], Transform]
) -> dict[str, TransformFactory]:
    """``{base$Key: …, base$Value: …}``: the two registrations of a transform Connect has per part."""
    return {
        f"{base}${part.value}": (lambda options, clock, part=part: build(options, clock, part))  # type: ignore[misc]
        for part in Part
    }
