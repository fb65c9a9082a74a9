"""Stored envelope headers back to Kafka headers, through the restore's ``header.converter``.

The ``list`` layout's bytes are produced as they are, in order, duplicates included; the ``struct``
layout's values are written back by :meth:`~lakesink.adapters.kafka.header_converters.HeaderConverter.from_connect`
with each field's stored schema, under the original name. With a schema (Avro, Parquet) a null
field is a header the record did not have and is left out; a JSON envelope keeps a null header.
See docs/restore.md, "Records".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lakesink.adapters.kafka.header_converters import HeaderConverter
from lakesink.domain.restore.batch import HeaderList
from lakesink.domain.schema.headers import HEADER_NAME
from lakesink.domain.schema.model import Schema, kind, non_null


@dataclass(frozen=True, slots=True)
class StoredHeaders:
    """How the headers of one file become Kafka headers.

    ``fields``: field name → (header name, schema) of a struct-layout schema; None for a file
    without one (JSON), whose null headers are kept.
    """

    converter: HeaderConverter
    fields: Mapping[str, tuple[str, Schema]] | None = None

    @classmethod
    def of(cls, converter: HeaderConverter, headers: Schema | None) -> StoredHeaders:
        """For a file whose ``headers`` field has this schema (None: a JSON envelope)."""
        if headers is None:
            return cls(converter)
        core = non_null(headers)
        record = (
            core[0] if len(core) == 1 and isinstance(core[0], Mapping) and kind(core[0]) == "record" else None
        )
        fields = {
            field["name"]: (field.get(HEADER_NAME, field["name"]), field["type"])
            for field in (record["fields"] if record else ())
        }
        return cls(converter, fields)

    def row(self, stored: Any) -> HeaderList | None:
        """One record's headers (None when it has none)."""
        if not stored:
            return None
        if not isinstance(stored, Mapping):  # the list layout: bytes as Kafka had them
            return [(pair["key"], pair["value"]) for pair in stored]
        convert = self.converter.from_connect
        if self.fields is None:
            return [(name, convert(value, None)) for name, value in stored.items()]
        pairs = []
        for field, value in stored.items():
            if value is not None:
                name, schema = self.fields.get(field, (field, None))
                pairs.append((name, convert(value, schema)))
        return pairs or None

    def rows(self, stored: Sequence[Any]) -> list[HeaderList | None]:
        """The headers of consecutive records."""
        return [self.row(headers) for headers in stored]

    def columns(self, stored: Mapping[str, Sequence[Any]]) -> list[HeaderList | None]:
        """The headers of consecutive records of the struct layout, from one column per field (a
        null struct has every field null): each column is converted in one pass, which costs half
        of :meth:`rows` on dicts, and no dict is built per record."""
        convert = self.converter.from_connect
        fields = self.fields or {}
        names, converted = [], []
        for field, values in stored.items():
            name, schema = fields.get(field, (field, None))
            names.append(name)
            converted.append([None if value is None else convert(value, schema) for value in values])
        if not any(None in column for column in converted):  # every record has every header
            return [list(zip(names, row, strict=True)) for row in zip(*converted, strict=True)]
        return [
            [(name, data) for name, data in zip(names, row, strict=True) if data is not None] or None
            for row in zip(*converted, strict=True)
        ]
