"""A Confluent partitioner as the nearest Lenses ``PARTITIONBY`` (``lakesink config convert``).

The topic goes into each statement's prefix, so the PARTITIONBY only prints the encoded partition
and the directories come out as Confluent's (:func:`partition_mapping`).
See docs/dialects.md, "Converting a Confluent config".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lakesink.domain.dialects.confluent.partitioners import (
    DailyPartitioner,
    FieldPartitioner,
    HourlyPartitioner,
    TimeBasedPartitioner,
)
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.dialects.confluent.timestamps import ExtractorKind
from lakesink.domain.errors import ConfigError
from lakesink.domain.kcql.cursor import KEYWORDS
from lakesink.domain.kcql.lexer import needs_backticks, quote
from lakesink.domain.layout.datetime_pattern import DateTimePattern
from lakesink.domain.layout.joda_to_java import Untranslatable, java_pattern
from lakesink.domain.layout.joda_zone import JodaZone

#: Instants the translated pattern is checked on: 2000 to about 2130, never on a round hour.
_SAMPLES = tuple(946_684_800_000 + i * 9_876_543_211 for i in range(420))
_HOUR_MS = 3_600_000
_SPECIFIERS = frozenset({"_key", "_value", "_header", "_topic", "_partition", "_date"})
_FIELD_KEYS = frozenset({"partitioner.class", "partition.field.name"})
_TIME_KEYS = frozenset(
    {
        "partitioner.class",
        "partition.duration.ms",
        "path.format",
        "locale",
        "timezone",
        "timestamp.extractor",
        "timestamp.field",
    }
)


@dataclass(frozen=True, slots=True)
class PartitionMapping:
    """The PARTITIONBY of every statement, its KCQL PROPERTIES, and what did not carry over.

    ``handled`` names the Confluent keys this mapping read; ``notes`` are (key, why) pairs.
    """

    specs: tuple[str, ...]
    properties: dict[str, str] = field(default_factory=dict)
    notes: tuple[tuple[str, str], ...] = ()
    handled: frozenset[str] = frozenset({"partitioner.class"})


def partition_mapping(config: ConfluentSinkConfig, *, wildcard_key: str | None) -> PartitionMapping:
    """The nearest Lenses partitioning for ``config``'s partitioner.

    ``wildcard_key`` is None when each statement reads one topic and has it at the end of its
    prefix; otherwise the Confluent key that made one ``*`` statement necessary (its note says so).

    DefaultPartitioner: ``PARTITIONBY _partition`` (Hive display ``partition=<N>``); FieldPartitioner:
    ``PARTITIONBY a, b``; TimeBased, Daily, Hourly: ``PARTITIONBY _date.`<path.format in java.time
    letters>``` with ``partition.include.keys=false`` (the pattern prints its own ``'year'=`` names)
    and ``partition.date.timezone`` set to ``timezone``. A single ``*`` statement (``topics.regex``, a
    topic-routing transform) cannot put the topic in its prefix, so ``_topic`` becomes the first
    partition field. A time pattern is converted only when Lenses prints what Confluent prints on
    instants spread over 130 years (and across daylight-saving changes); otherwise the statement
    falls back to the DefaultPartitioner's layout and the note says why.
    """
    partitioner = config.layout.partitioner
    if isinstance(partitioner, TimeBasedPartitioner):
        mapping = _time_based(partitioner)
    elif isinstance(partitioner, FieldPartitioner):
        mapping = _field_based(partitioner)
    else:
        mapping = PartitionMapping(("_partition",))
    return mapping if wildcard_key is None else _with_topic(mapping, wildcard_key)


def _field_based(partitioner: FieldPartitioner) -> PartitionMapping:
    names = partitioner.field_names
    if any("/" in name or "\\" in name for name in names):
        return _fallback(
            "partition.field.name",
            "a field name with '/' or '\\' cannot be a Lenses PARTITIONBY name",
            _FIELD_KEYS,
        )
    note = (
        "partition.field.name",
        "Lenses reads the fields of any value (a Struct or a map) and writes [missing] for a missing or "
        "null field, where Confluent needs a Struct and writes <name>=null",
    )
    return PartitionMapping(tuple(_field_spec(name) for name in names), notes=(note,), handled=_FIELD_KEYS)


def _field_spec(name: str) -> str:
    parts = name.split(".")
    written = ".".join(_spec_part(part) for part in parts)
    return f"_value.{written}" if parts[0] in _SPECIFIERS else written


def _spec_part(part: str) -> str:
    return quote(part, "`") if needs_backticks(part) or part.upper() in KEYWORDS else part


def _time_based(partitioner: TimeBasedPartitioner) -> PartitionMapping:
    joda = partitioner.pattern
    key = (
        "partitioner.class"
        if isinstance(partitioner, (DailyPartitioner, HourlyPartitioner))
        else "path.format"
    )
    zone = _lenses_zone(joda.zone)
    if zone is None:
        return _fallback(
            "timezone",
            f"{joda.zone.id} is not a whole number of hours, so no IANA zone (partition.date.timezone) has it",
            _TIME_KEYS,
        )
    try:
        java = java_pattern(joda.pattern)
        lenses = DateTimePattern.compile(java, zone)
    except (Untranslatable, ConfigError) as error:
        return _fallback(
            key, f"path.format {joda.pattern!r} has no java.time equivalent ({error})", _TIME_KEYS
        )
    if any(lenses.format_epoch_millis(t) != joda.format_epoch_millis(t) for t in _SAMPLES):
        return _fallback(
            key, f"path.format {joda.pattern!r} prints differently as java.time's {java!r}", _TIME_KEYS
        )
    notes = []
    if any(
        lenses.format_epoch_millis(t) != joda.format_epoch_millis(partitioner.bucket_start(t))
        for t in _SAMPLES
    ):
        notes.append(
            (
                "partition.duration.ms",
                f"Lenses' _date prints each record's own time, Confluent the start of its "
                f"{partitioner.duration_ms} ms bucket: with this path.format the directories differ",
            )
        )
    notes.extend(_extractor_notes(partitioner))
    properties = {"partition.include.keys": "false"}
    if zone != "UTC":
        properties["partition.date.timezone"] = zone
    return PartitionMapping((f"_date.{quote(java, '`')}",), properties, tuple(notes), _TIME_KEYS)


def _lenses_zone(zone: JodaZone) -> str | None:
    """The IANA name of a Joda zone (``partition.date.timezone`` takes only those), if it has one.

    A fixed offset of whole hours is ``Etc/GMT-<h>`` (the tz database's inverted sign).
    """
    offset = zone.fixed_offset_ms
    if offset is None:
        return zone.id
    if offset == 0:
        return "UTC"
    hours, rest = divmod(-offset, _HOUR_MS)
    return f"Etc/GMT{hours:+d}" if rest == 0 and -14 <= hours <= 12 else None


def _extractor_notes(partitioner: TimeBasedPartitioner) -> list[tuple[str, str]]:
    kind = partitioner.extractor.kind
    if kind is ExtractorKind.WALLCLOCK:
        return [
            (
                "timestamp.extractor",
                "Wallclock (the default) partitions by the time of writing; Lenses' _date partitions by "
                "the record's timestamp (Confluent's Record extractor), so keys follow the records",
            )
        ]
    if kind is ExtractorKind.RECORD_FIELD:
        return [
            (
                "timestamp.field",
                f"Lenses' _date reads only the record's timestamp, not the field "
                f"{partitioner.extractor.field_name!r}; records are partitioned by their Kafka timestamp",
            )
        ]
    return []


def _fallback(key: str, why: str, handled: frozenset[str]) -> PartitionMapping:
    return PartitionMapping(
        ("_partition",),
        notes=(
            (key, f"{why}; converted as PARTITIONBY _partition (Confluent's DefaultPartitioner), edit it"),
        ),
        handled=handled,
    )


def _with_topic(mapping: PartitionMapping, wildcard_key: str) -> PartitionMapping:
    properties = mapping.properties
    if mapping.specs == ("_partition",):
        properties = {**properties, "partition.include.keys": "false"}
    shown = "<topic>" if properties.get("partition.include.keys") == "false" else "topic=<topic>"
    note = (
        wildcard_key,
        f"one statement reads every topic (*), so the topic is a partition field: directories "
        f"<topics.dir>/{shown}/... (Confluent: <topics.dir>/<topic>/<encoded partition>/...)",
    )
    return PartitionMapping(("_topic", *mapping.specs), properties, (*mapping.notes, note), mapping.handled)
