"""The record model shared by the sink and the restore.

A :class:`Record` is one Kafka message after the key/value converters ran, keys, values and
header values as plain Python data (``bytes``, ``str``, numbers, ``Decimal``, ``datetime``,
mappings and sequences, ``None`` for a null key or a tombstone), so the domain reasons about them
without a serialization library. See docs/formats.md, "Values and schemas".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lakesink.domain.errors import RecordError

Headers = tuple[tuple[str, Any], ...]

TopicPartition = tuple[str, int]
"""A Kafka topic-partition, ``(topic, partition)``: the one type every layer keys partitions by."""


def positions_json(positions: Mapping[TopicPartition, int]) -> dict[str, dict[str, int]]:
    """``{topic: {"partition": next offset}}``, topics and partitions sorted: the JSON form Spark
    checkpoints a Kafka source's offsets in, and how logs and reports show a set of positions."""
    result: dict[str, dict[str, int]] = {}
    for (topic, partition), offset in sorted(positions.items()):
        result.setdefault(topic, {})[str(partition)] = int(offset)
    return result

#: Timestamp recorded for a record without one (Lenses uses -1, which then shows in file names).
NO_TIMESTAMP = -1


@dataclass(frozen=True, slots=True)
class Record:
    """One Kafka message: coordinates, timestamp, key, value and headers.

    ``timestamp`` is epoch milliseconds, or None when the message carries none.
    ``key_schema`` / ``value_schema`` are optional schema descriptions supplied by a converter
    (an Avro schema dict or a Connect schema); formats that need a schema use them when present.
    ``header_schemas`` are the Avro schemas the header converter gave, one per header in order;
    empty when headers were not converted, and None for a header whose schema nobody gave (its
    schema is then inferred from the value). Transforms edit headers through
    :meth:`add_headers` / :meth:`keep_headers` so the two stay aligned.
    """

    topic: str
    partition: int
    offset: int
    timestamp: int | None = None
    key: Any = None
    value: Any = None
    headers: Headers = ()
    key_schema: Any = field(default=None, compare=False)
    value_schema: Any = field(default=None, compare=False)
    header_schemas: tuple[Any, ...] = field(default=(), compare=False)

    def header(self, name: str) -> Any:
        """The value of the last header called ``name``; KeyError when there is none."""
        for header_name, value in reversed(self.headers):
            if header_name == name:
                return value
        raise KeyError(name)

    def has_header(self, name: str) -> bool:
        """Whether a header called ``name`` is present (its value may be None)."""
        return any(header_name == name for header_name, _ in self.headers)

    def with_value(self, value: Any, value_schema: Any) -> Record:
        """This record with another value and value schema. Built directly: ``dataclasses.replace``
        costs about 4 µs a call, a price the per-record paths would pay on every record."""
        return Record(
            topic=self.topic, partition=self.partition, offset=self.offset, timestamp=self.timestamp,
            key=self.key, value=value, headers=self.headers, key_schema=self.key_schema,
            value_schema=value_schema, header_schemas=self.header_schemas,
        )

    def add_headers(self, added: Headers, schemas: Sequence[Any] | None = None) -> Record:
        """This record with ``added`` appended, each with its schema in ``schemas`` (None: inferred)."""
        if schemas is None and not self.header_schemas:
            return replace(self, headers=self.headers + added)
        new = tuple(schemas) if schemas is not None else (None,) * len(added)
        return replace(self, headers=self.headers + added, header_schemas=self.aligned_header_schemas() + new)

    def keep_headers(self, keep: Callable[[str], bool]) -> Record:
        """This record with only the headers whose name ``keep`` accepts (their schemas kept)."""
        if not self.header_schemas:
            return replace(self, headers=tuple(pair for pair in self.headers if keep(pair[0])))
        kept = [
            (pair, schema)
            for pair, schema in zip(self.headers, self.aligned_header_schemas(), strict=True)
            if keep(pair[0])
        ]
        return replace(
            self, headers=tuple(pair for pair, _ in kept), header_schemas=tuple(schema for _, schema in kept)
        )

    def aligned_header_schemas(self) -> tuple[Any, ...]:
        """One schema (or None) per header, whether or not the headers were converted."""
        if len(self.header_schemas) == len(self.headers):
            return self.header_schemas
        return (None,) * len(self.headers)

    def headers_dict(self) -> dict[str, Any]:
        """Headers as a dict; the last value wins when a name repeats."""
        return dict(self.headers)

    def describe(self) -> str:
        """``topic-partition@offset``: how errors name a record."""
        return f"{self.topic}-{self.partition}@{self.offset}"


def poison(record: Record, reason: str) -> RecordError:
    """A RecordError naming the record, for data that can never be written (a poison record)."""
    return RecordError(f"record {record.describe()}: {reason}")
