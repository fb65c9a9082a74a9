"""The ``day`` or ``hour`` partition field of an Iceberg table whose object keys ``_date`` cuts.

Iceberg partitions by a transform of a timestamp *column*, so such a table's files carry the record
timestamp as ``_kafka_timestamp``; a file holding two days would fail every commit of its batch,
so the mapping is made only where it is exact (:func:`time_partition`).
See docs/tables.md, "Partitions and schema changes".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import Enum
from typing import Any, ClassVar

from lakesink.domain.errors import FormatError, RecordError
from lakesink.domain.layout.date_zone import is_utc
from lakesink.domain.layout.datetime_pattern import DateTimePattern
from lakesink.domain.records import Record
from lakesink.domain.schema.model import TIMESTAMP_MILLIS, Schema
from lakesink.domain.schema.resolve import schema_for
from lakesink.domain.transforms.kafka_data import struct_schema

TIMESTAMP_COLUMN = "_kafka_timestamp"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _year(letter: str, count: int) -> bool:
    return letter in "uy" and count >= 4


def _month(letter: str, count: int) -> bool:
    return letter in "ML" and 2 <= count <= 4


def _day_of_month(letter: str, count: int) -> bool:
    return letter == "d" and count == 2


def _day_of_year(letter: str, count: int) -> bool:
    return letter == "D" and count == 3


def _hour(letter: str, count: int) -> bool:
    return letter in "Hk" and count == 2


def _half_day_hour(letter: str, count: int) -> bool:
    return letter in "hK" and count == 2


class TimeUnit(Enum):
    """Iceberg's time transform a table is partitioned by."""

    DAY = "day"
    HOUR = "hour"


@dataclass(frozen=True, slots=True)
class TimePartition:
    """A table partitioned by the day or hour of the record timestamp its files carry."""

    unit: TimeUnit
    column: ClassVar[str] = TIMESTAMP_COLUMN
    _last: list[tuple[Any, Schema]] = field(default_factory=list, compare=False, repr=False)
    """The last value schema hint stamped and its stamped form (records of a file share one schema)."""

    @property
    def spec(self) -> str:
        """The partition field as Iceberg writes it: ``day(_kafka_timestamp)``."""
        return f"{self.unit.value}({self.column})"

    def stamp(self, record: Record) -> Record:
        """``record`` with its timestamp added to its value as the column (last field).

        A null value (a tombstone) is left as it is.

        Raises:
            RecordError: the value is not a record (a struct or a map), already has a field of
                the column's name, or the record has no timestamp.
        """
        value = record.value
        if value is None:
            return record
        if not isinstance(value, Mapping):
            raise RecordError(
                f"a table partitioned by {self.spec} takes values that are records, "
                f"not {type(value).__name__}; the column is added to each value"
            )
        if self.column in value:
            raise self._clash("the value")
        if record.timestamp is None:
            raise RecordError("Timestamp not found in message")
        stamped = {**value, self.column: _EPOCH + timedelta(milliseconds=record.timestamp)}
        hint = record.value_schema
        return record.with_value(stamped, None if hint is None else self._schema(value, hint))

    def _clash(self, holder: str) -> RecordError:
        return RecordError(
            f"{holder} has a field {self.column!r}, the column a table partitioned by {self.spec} adds; "
            "rename the field (a ReplaceField$Value transform) or drop _date from PARTITIONBY"
        )

    def _schema(self, value: Mapping[str, Any], hint: Any) -> Schema:
        """The value's schema (its converter's hint, Avro or Connect) with the column appended."""
        for seen, stamped in self._last[:1]:  # one read: another thread may replace the entry
            if seen is hint or seen == hint:  # a schema per message (JSON with schemas) is equal, not the same
                return stamped
        try:
            shape = struct_schema(schema_for(value, hint), f"the {self.column} column")
        except FormatError as error:
            raise RecordError(f"the value's schema cannot take the {self.column} column: {error}") from None
        if shape.field(self.column) is not None:
            raise self._clash("the value schema")
        rebuilt = shape.rebuilt([*shape.fields, {"name": self.column, "type": TIMESTAMP_MILLIS}])
        self._last[:] = [(hint, rebuilt)]
        return rebuilt


def time_partition(patterns: Sequence[DateTimePattern]) -> TimePartition | None:
    """The table's time partition for the statement's ``_date`` patterns; None when they do not
    name one UTC day exactly (fixed-width year, month and day, or day of the year, and the hour for
    ``hour``, in a zone that is UTC at every instant: docs/tables.md, "Partitions and schema changes")."""
    if not patterns or not all(is_utc(pattern.zone) for pattern in patterns):
        return None
    runs = [run for pattern in patterns for run in pattern.letters]

    def named(field_test: Callable[[str, int], bool]) -> bool:
        return any(field_test(letter, count) for letter, count in runs)

    day = named(_year) and (named(_day_of_year) or (named(_month) and named(_day_of_month)))
    if not day:
        return None
    hour = named(_hour) or (named(_half_day_hour) and any(letter == "a" for letter, _count in runs))
    return TimePartition(TimeUnit.HOUR if hour else TimeUnit.DAY)
