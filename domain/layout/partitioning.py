"""PARTITIONBY: which record fields become path segments of the object key, and their values.

The rules copy the Lenses sink because they decide every object key and a bucket must be
shareable between the two: no PARTITIONBY is the default layout, ``PARTITIONBY a, b`` a custom
Hive-style one, ``NOPARTITION`` custom with no fields. See docs/naming.md, "PARTITIONBY entries".
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.layout.datetime_pattern import DateTimePattern
from lakesink.domain.layout.field_paths import FieldPathError, java_string, read_path
from lakesink.domain.layout.key_segments import has_control_character
from lakesink.domain.layout.padding import PaddingSettings
from lakesink.domain.records import Record

MISSING_VALUE = "[missing]"

NAME_RULE_MESSAGE = "Name must not be empty and must not contain a slash character"


class FieldKind(Enum):
    """Where a partition value comes from."""

    WHOLE_KEY = "whole key"
    KEY = "key field"
    VALUE = "value field"
    HEADER = "header"
    TOPIC = "topic"
    PARTITION = "partition"
    DATE = "date"


class PartitionDisplay(Enum):
    """``name=value`` (Hive style) or bare values."""

    KEYS_AND_VALUES = "KeysAndValues"
    VALUES = "Values"


@dataclass(frozen=True, slots=True)
class PartitionField:
    """One parsed PARTITIONBY entry."""

    kind: FieldKind
    path: tuple[str, ...] = ()
    date_pattern: DateTimePattern | None = None
    spec: str = field(default="", compare=False)

    @property
    def name(self) -> str:
        """The name shown in Hive display: ``key``, ``topic``, ``partition``, ``date`` or the dotted path."""
        return _FIXED_NAMES.get(self.kind) or ".".join(self.path)


_FIXED_NAMES = {
    FieldKind.WHOLE_KEY: "key",
    FieldKind.TOPIC: "topic",
    FieldKind.PARTITION: "partition",
    FieldKind.DATE: "date",
}


TOPIC_FIELD = PartitionField(FieldKind.TOPIC, spec="_topic")
PARTITION_FIELD = PartitionField(FieldKind.PARTITION, spec="_partition")


@dataclass(frozen=True, slots=True)
class PartitionValues:
    """The partition values of one record, in PARTITIONBY order, as (name, value) pairs.

    Pairs rather than a dict because names can repeat (``_date.uuuu, _date.MM`` are both
    ``date``). Hashable, so writers can be grouped by it.
    """

    items: tuple[tuple[str, str], ...] = ()

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def names(self) -> tuple[str, ...]:
        """The field names, in order."""
        return tuple(name for name, _ in self.items)

    @property
    def values(self) -> tuple[str, ...]:
        """The values, in order."""
        return tuple(value for _, value in self.items)


_COORDINATES = frozenset({FieldKind.TOPIC, FieldKind.PARTITION})


@dataclass(frozen=True, slots=True)
class PartitionSelection:
    """The partition fields of one KCQL statement and how the key shows them.

    ``names`` are the fields' names, worked out once rather than for every record.
    """

    fields: tuple[PartitionField, ...]
    display: PartitionDisplay
    is_custom: bool
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(f.name for f in self.fields))

    @classmethod
    def create(
        cls,
        specs: Sequence[str],
        *,
        no_partition: bool = False,
        include_keys: bool | None = None,
        date_timezone: str = "UTC",
    ) -> PartitionSelection:
        """Build the selection from the raw PARTITIONBY specs (backticks as written).

        Raises:
            ConfigError: both NOPARTITION and PARTITIONBY, or an invalid spec.
        """
        if no_partition and specs:
            raise ConfigError("PARTITIONBY and NOPARTITION cannot be used together.")
        if no_partition:
            return cls((), _display(include_keys, PartitionDisplay.VALUES), is_custom=True)
        if not specs:
            return cls((TOPIC_FIELD, PARTITION_FIELD), _display(include_keys, PartitionDisplay.VALUES), False)
        fields = tuple(parse_partition_spec(spec, date_timezone=date_timezone) for spec in specs)
        return cls(fields, _display(include_keys, PartitionDisplay.KEYS_AND_VALUES), is_custom=True)

    def read(self, record: Record, padding: PaddingSettings) -> list[str]:
        """The raw (not yet path-safe) partition values of ``record``, in field order (the names
        are :attr:`names`); ``[missing]`` for absent fields.

        Raises:
            RecordError: naming the record and the field, when the record cannot be partitioned
                (null key/value, absent header, no timestamp, non-primitive field...).
        """
        return [_value_of(f, record, padding) for f in self.fields]

    @property
    def reads_only_coordinates(self) -> bool:
        """Whether every value comes from the record's topic or partition (default layout,
        NOPARTITION, ``_topic``/``_partition``): then all records of a partition share them."""
        return all(f.kind in _COORDINATES for f in self.fields)


def _display(include_keys: bool | None, default: PartitionDisplay) -> PartitionDisplay:
    if include_keys is None:
        return default
    return PartitionDisplay.KEYS_AND_VALUES if include_keys else PartitionDisplay.VALUES


def split_spec(spec: str) -> list[str]:
    """Split on dots outside backticks; backticks are removed and empty parts between dots dropped."""
    parts: list[str] = []
    current = ""
    quoted = False
    for char in spec:
        if char == "`" and not quoted and current == "":
            quoted = True
        elif char == "`" and quoted:
            parts.append(current)
            current, quoted = "", False
        elif char == "." and not quoted:
            if current:
                parts.append(current)
            current = ""
        else:
            current += char
    if current:
        parts.append(current)
    return parts


_SPECIFIERS = {"_key", "_value", "_header", "_topic", "_partition", "_date"}
#: What Java's String.trim() strips: every code point up to and including the space.
_JAVA_TRIM = "".join(chr(code) for code in range(0x21))


def parse_partition_spec(spec: str, *, date_timezone: str = "UTC") -> PartitionField:
    """One PARTITIONBY entry as a field.

    A spec is split on dots (backtick groups kept whole, backticks removed); a first segment equal to
    ``_key``, ``_value``, ``_header``, ``_topic``, ``_partition`` or ``_date`` selects the source,
    anything else is a path in the value. Configuration mistakes are ConfigErrors here; problems with
    one record's data are RecordErrors naming the record and the field.

    Raises:
        ConfigError: with Lenses' reason (``cannot partition by Header partition field without
            path``, ``partitioning by topic requires no path``, the name rule...).
    """
    parts = split_spec(spec)
    if not parts:
        raise ConfigError(f"Invalid PARTITIONBY entry {spec!r}: the entry is empty.")
    head, tail = (parts[0], tuple(parts[1:])) if parts[0] in _SPECIFIERS else ("_value", tuple(parts))
    try:
        return _field(head, tail, spec, date_timezone)
    except _SpecError as error:
        raise ConfigError(f"Invalid PARTITIONBY entry {spec!r}: {error}") from None


class _SpecError(Exception):
    """Why a spec is invalid; wrapped into a ConfigError naming the spec."""


def _field(head: str, tail: tuple[str, ...], spec: str, date_timezone: str) -> PartitionField:
    if head == "_topic":
        if tail:
            raise _SpecError("partitioning by topic requires no path")
        return TOPIC_FIELD
    if head == "_partition":
        if tail:
            raise _SpecError("partitioning by partition requires no path")
        return PARTITION_FIELD
    if head == "_date":
        if not tail:
            raise _SpecError("cannot partition by Date partition field without format")
        if len(tail) > 1:
            raise _SpecError("only one format should be provided for date")
        try:
            pattern = DateTimePattern.compile(tail[0], date_timezone)
        except ConfigError as error:
            raise _SpecError(str(error)) from None
        return PartitionField(FieldKind.DATE, tail, pattern, spec)
    if head == "_key" and not tail:
        return PartitionField(FieldKind.WHOLE_KEY, spec=spec)
    if not tail:
        source = "Header" if head == "_header" else "Value"
        raise _SpecError(f"cannot partition by {source} partition field without path")
    for name in tail:
        _check_name(name)
    kind = {"_key": FieldKind.KEY, "_header": FieldKind.HEADER}.get(head, FieldKind.VALUE)
    return PartitionField(kind, tail, spec=spec)


def _check_name(name: str) -> None:
    """Lenses' rule (non-blank, no ``/`` or ``\\``), plus no control characters (they would land in keys)."""
    if not name.strip(_JAVA_TRIM) or "/" in name or "\\" in name:
        raise _SpecError(NAME_RULE_MESSAGE)
    if has_control_character(name):
        raise _SpecError("Name must not contain control characters")


def _value_of(partition_field: PartitionField, record: Record, padding: PaddingSettings) -> str:
    try:
        return _read(partition_field, record, padding)
    except (_RecordProblem, FieldPathError) as problem:
        raise RecordError(
            f"Cannot partition record {record.describe()} by {partition_field.spec!r} "
            f"(field '{partition_field.name}'): {problem}"
        ) from None


class _RecordProblem(Exception):
    """Why one record cannot be partitioned; wrapped into a RecordError naming the record."""


def _read(partition_field: PartitionField, record: Record, padding: PaddingSettings) -> str:
    kind, path = partition_field.kind, partition_field.path
    if kind is FieldKind.VALUE or kind is FieldKind.KEY:  # first: the usual PARTITIONBY
        data = record.value if kind is FieldKind.VALUE else record.key
        if data is None:
            raise _RecordProblem("Value is null." if kind is FieldKind.VALUE else "Key is null.")
        return _or_missing(read_path(data, path))
    if kind is FieldKind.TOPIC:
        return record.topic
    if kind is FieldKind.PARTITION:
        return padding.pad("partition", str(record.partition))
    if kind is FieldKind.DATE:
        if record.timestamp is None:
            raise _RecordProblem("Timestamp not found in message")
        assert partition_field.date_pattern is not None  # every DATE field is built with one
        try:
            return partition_field.date_pattern.format_epoch_millis(record.timestamp)
        except ValueError as error:
            raise _RecordProblem(str(error)) from None
    if kind is FieldKind.WHOLE_KEY:
        return _whole_key(record.key)
    return _header(record, path)  # the only kind left


def _whole_key(key: Any) -> str:
    if key is None:
        raise _RecordProblem("Key is null, but requested to partition by whole key")
    try:
        return java_string(key)
    except FieldPathError:
        raise _RecordProblem("Non primitive struct provided, PARTITIONBY _key requested in KCQL") from None


def _header(record: Record, path: tuple[str, ...]) -> str:
    if not record.has_header(path[0]):
        raise _RecordProblem(f"Header '{'.'.join(path)}' not found in message")
    value = record.header(path[0])
    if value is None:
        raise _RecordProblem(f"Header '{path[0]}' is null.")
    return _or_missing(read_path(value, path[1:]))


def _or_missing(value: str | None) -> str:
    return MISSING_VALUE if value is None else value
