"""The ``day`` or ``hour`` partition field of an Iceberg table whose object keys ``_date`` cuts.

``PARTITIONBY _date.uuuu-MM-dd`` already groups a statement's records into one file per day of
their Kafka timestamp. Iceberg partitions by day or hour through a transform of a timestamp
*column* (hidden partitioning: a reader filtering on the column skips every file of the other
days), so the files of such a table carry the record timestamp as one: the top-level value field
``_kafka_timestamp``, a timestamp in milliseconds, UTC. Each file then holds one day (hour) of that
column, which is the partition value Iceberg reads from the file's statistics.

The mapping holds only where it is exact: the ``_date`` patterns together name the year, month and
day (or the day of the year) — and the hour, for ``hour`` — in a zone that is UTC all year, since
Iceberg's days and hours are UTC ones. Anything coarser (``_date.uuuu-MM``), a two-digit year (it
repeats every century, so one key would hold two days) or another zone keeps ``_date`` in the
object keys only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import Enum

from lakesink.domain.errors import RecordError
from lakesink.domain.layout.date_zone import Zone
from lakesink.domain.layout.datetime_pattern import DateTimePattern
from lakesink.domain.records import Record
from lakesink.domain.schema.model import TIMESTAMP_MILLIS, Schema
from lakesink.domain.transforms.kafka_data import struct_schema

TIMESTAMP_COLUMN = "_kafka_timestamp"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SEASONS = (datetime(2026, 1, 15, tzinfo=UTC), datetime(2026, 7, 15, tzinfo=UTC))
_YEARS = frozenset("uy")
_MONTHS = frozenset("ML")
_HOURS = frozenset("Hk")
_HALF_DAY_HOURS = frozenset("hK")


class TimeUnit(Enum):
    """Iceberg's time transform a table is partitioned by."""

    DAY = "day"
    HOUR = "hour"


@dataclass(frozen=True, slots=True)
class TimePartition:
    """A table partitioned by the day or hour of the record timestamp its files carry."""

    unit: TimeUnit
    column: str = TIMESTAMP_COLUMN
    _last: list[tuple[Schema, Schema]] = field(default_factory=list, compare=False, repr=False)
    """The last value schema stamped and its stamped form (records of a file share one schema)."""

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
        schema = record.value_schema
        return record.with_value(stamped, None if schema is None else self._schema(schema))

    def _clash(self, holder: str) -> RecordError:
        return RecordError(
            f"{holder} has a field {self.column!r}, the column a table partitioned by {self.spec} adds; "
            "rename the field (a ReplaceField$Value transform) or drop _date from PARTITIONBY"
        )

    def _schema(self, schema: Schema) -> Schema:
        for seen, stamped in self._last[:1]:  # one read: another thread may replace the entry
            if seen is schema:
                return stamped
        shape = struct_schema(schema, f"the {self.column} column")
        if shape.field(self.column) is not None:
            raise self._clash("the value schema")
        rebuilt = shape.rebuilt([*shape.fields, {"name": self.column, "type": TIMESTAMP_MILLIS}])
        self._last[:] = [(schema, rebuilt)]
        return rebuilt


def time_partition(patterns: Sequence[DateTimePattern]) -> TimePartition | None:
    """The table's time partition for the statement's ``_date`` patterns; None when they do not
    name one UTC day (see the module docstring)."""
    if not patterns or not all(_utc(pattern.zone) for pattern in patterns):
        return None
    letters = [each for pattern in patterns for each in pattern.letters]
    present = {letter for letter, _count in letters}
    year = any(letter in _YEARS and count != 2 for letter, count in letters)
    day = "g" in present or (year and ("D" in present or (bool(present & _MONTHS) and "d" in present)))
    if not day:
        return None
    hour = bool(present & _HOURS) or (bool(present & _HALF_DAY_HOURS) and "a" in present)
    return TimePartition(TimeUnit.HOUR if hour else TimeUnit.DAY)


def _utc(zone: Zone) -> bool:
    return all(zone.tz.utcoffset(moment) == timedelta(0) for moment in _SEASONS)

