"""Confluent's built-in partitioners (``partitioner.class``): the encoded partition of a record.

The encoded partition is the directory part of a Confluent object key after the topic
(:mod:`lakesink.domain.dialects.confluent.naming` puts the key together). Where lakesink differs
from Confluent it refuses (:func:`checked_partition`), never writes another key.
See docs/dialects.md, "Keys".
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from lakesink.domain.dialects.confluent.directory_delim import directory_delim
from lakesink.domain.dialects.confluent.fields import (
    STRUCT,
    ConnectType,
    FieldLookupError,
    SchemaMemo,
    struct_value,
)
from lakesink.domain.dialects.confluent.timestamps import TimestampExtractor
from lakesink.domain.dialects.kafka_connect.config_def import (
    Settings,
    java_trim,
    list_setting,
    long_setting,
    string_setting,
)
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.layout.joda_pattern import LOCALE_SETTING, PATH_FORMAT_SETTING, JodaPattern
from lakesink.domain.layout.joda_zone import TIMEZONE_SETTING, resolve_joda_zone
from lakesink.domain.layout.key_segments import has_control_character
from lakesink.domain.records import Record

PARTITIONER_CLASS = "partitioner.class"
PARTITION_FIELD_NAME = "partition.field.name"
PARTITION_DURATION_MS = "partition.duration.ms"

_PACKAGE = "io.confluent.connect.storage.partitioner."
_DAY_MS = 86_400_000
_HOUR_MS = 3_600_000
_INTEGER_TYPES = frozenset({"INT8", "INT16", "INT32", "INT64"})


class ConfluentPartitioner(Protocol):
    """What the Confluent key layout needs from a partitioner."""

    def encode_partition(self, record: Record, now_ms: int) -> str:
        """The encoded partition of ``record``; ``now_ms`` is the batch clock (Wallclock).

        Raises:
            RecordError: the record cannot be partitioned.
        """
        ...


@dataclass(frozen=True, slots=True)
class DefaultPartitioner:
    """``partition=<kafka partition>``."""

    @classmethod
    def from_settings(cls, settings: Settings) -> DefaultPartitioner:
        """DefaultPartitioner reads no setting."""
        return cls()

    def encode_partition(self, record: Record, now_ms: int) -> str:
        """``partition=<N>``."""
        return f"partition={record.partition}"


@dataclass(frozen=True, slots=True)
class FieldPartitioner:
    """``<name>=<value>`` per configured field of a Struct value, joined with ``directory.delim``."""

    field_names: tuple[str, ...]
    directory_delim: str = "/"
    _memo: SchemaMemo = field(default_factory=SchemaMemo, compare=False, repr=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> FieldPartitioner:
        """Read ``partition.field.name`` (a comma-separated list) and ``directory.delim``.

        Blank or empty-segment field names are a ConfigError (Confluent accepts them and fails at run
        time).

        Raises:
            ConfigError: no field name, or a blank name or name part.
        """
        names = list_setting(settings, PARTITION_FIELD_NAME)
        if not names:
            raise ConfigError(
                f"Invalid value for configuration {PARTITION_FIELD_NAME}: Partition field name "
                "cannot be null or empty when using FieldPartitioner."
            )
        for name in names:
            if "" in name.split("."):
                raise ConfigError(
                    f"Invalid value {name!r} in configuration {PARTITION_FIELD_NAME}: "
                    "field names and each of their dotted parts must not be empty."
                )
        return cls(names, directory_delim(settings))

    def encode_partition(self, record: Record, now_ms: int) -> str:
        """The encoded partition of a record whose value is a Struct.

        Each field is ``<name>=<value>``, INT8-INT64, STRING and BOOLEAN values printed as Java prints
        them, a null field as ``<name>=null``.

        Raises:
            RecordError: the value is not a Struct, a field is not in its schema, or a field's
                type cannot be a partition (only INT8-INT64, STRING and BOOLEAN can).
        """
        try:
            shape = self._memo.value_shape(record)
        except FieldLookupError as error:
            raise RecordError(f"{record.describe()}: Error encoding partition. ({error})") from None
        if shape.kind != STRUCT:
            raise RecordError(
                f"{record.describe()}: Error encoding partition. (FieldPartitioner needs a Struct: "
                "a value with a struct schema)"
            )
        parts = []
        for name in self.field_names:
            path = name.split(".")
            try:
                field_type = self._memo.struct_field_type(shape, path)
                value = struct_value(record.value, path)
            except FieldLookupError as error:
                raise RecordError(f"{record.describe()}: Field '{name}' cannot be read: {error}") from None
            if field_type is None:
                raise RecordError(f"{record.describe()}: Field '{name}' is not present in the schema.")
            parts.append(
                f"{name}={'null' if value is None else _field_text(record, name, field_type, value)}"
            )
        return checked_partition(record, self.directory_delim.join(parts))


@dataclass(frozen=True, slots=True)
class TimeBasedPartitioner:
    """The record's time bucket printed with ``path.format``; build it with :meth:`from_settings`.

    Like Confluent, the bucket is computed on the zone's local time line: ``local = utc + offset``,
    ``start = (local / duration) * duration`` with Java's integer division (which rounds toward
    zero, so before 1970 local time buckets round up), then back to UTC with Joda's lenient
    local-to-UTC rule (correct across daylight-saving changes). ``partition.duration.ms=0`` is a
    ConfigError (Confluent accepts it, then fails every record with a division by zero), and so is a
    ``path.format`` that would always produce a ``.``/``..`` segment or a control character.
    """

    duration_ms: int
    pattern: JodaPattern
    extractor: TimestampExtractor
    _last: _LastBucket = field(default_factory=lambda: _LastBucket(), compare=False, repr=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> TimeBasedPartitioner:
        """Read ``partition.duration.ms``, ``path.format``, ``locale``, ``timezone``,
        ``timestamp.extractor``, ``timestamp.field`` and ``directory.delim``.

        Raises:
            ConfigError: naming the key at fault.
        """
        duration = long_setting(settings, PARTITION_DURATION_MS, -1)
        return cls._create(settings, duration, string_setting(settings, PATH_FORMAT_SETTING, ""))

    @classmethod
    def _create(cls, settings: Settings, duration: int, path_format: str) -> TimeBasedPartitioner:
        if duration < 0:
            raise ConfigError(
                f"Invalid value {duration} for configuration {PARTITION_DURATION_MS}: "
                "Partition duration needs to be a positive."
            )
        if duration == 0:
            raise ConfigError(
                f"Invalid value 0 for configuration {PARTITION_DURATION_MS}: a bucket must last at "
                "least 1 ms (Confluent fails every record with a division by zero)."
            )
        delim = directory_delim(settings)
        if _is_blank(path_format) or path_format == delim:
            raise ConfigError(
                f"Invalid value {path_format!r} for configuration {PATH_FORMAT_SETTING}: "
                "Path format cannot be empty."
            )
        if not _is_blank(delim) and path_format.endswith(delim):
            path_format = path_format[: -len(delim)]
        locale = _required(settings, LOCALE_SETTING, "Locale cannot be empty.")
        zone = resolve_joda_zone(_required(settings, TIMEZONE_SETTING, "Timezone cannot be empty."))
        pattern = JodaPattern.compile(path_format, zone, locale)
        sample = pattern.format_epoch_millis(0)
        if _unsafe_reason(sample):
            raise ConfigError(
                f"Invalid value {path_format} for configuration {PATH_FORMAT_SETTING}: the paths it "
                f"prints ({sample!r}) have {_unsafe_reason(sample)}."
            )
        return cls(duration, pattern, TimestampExtractor.from_settings(settings))

    def local_bucket(self, timestamp_ms: int) -> int:
        """The start of the timestamp's bucket on the zone's local time line (Confluent's formula).

        Raises:
            ValueError: the timestamp is outside years 1-9999.
        """
        local = self.pattern.zone.utc_to_local(timestamp_ms)
        quotient = abs(local) // self.duration_ms  # Java's long division truncates toward zero
        return (quotient if local >= 0 else -quotient) * self.duration_ms

    def bucket_start(self, timestamp_ms: int) -> int:
        """The UTC instant Confluent prints for a timestamp: its local bucket start, back in UTC.

        Raises:
            ValueError: the timestamp is outside years 1-9999.
        """
        return self.pattern.zone.local_to_utc(self.local_bucket(timestamp_ms))

    def encode_partition(self, record: Record, now_ms: int) -> str:
        """The bucket of the extracted timestamp, printed with ``path.format``.

        Raises:
            RecordError: no usable timestamp, or one outside years 1-9999.
        """
        timestamp = self.extractor.extract(record, now_ms)
        try:
            start = self.local_bucket(timestamp)
            last = self._last
            if start != last.local_start:
                last.text, last.local_start = (
                    self.pattern.format_epoch_millis(self.bucket_start(timestamp)),
                    start,
                )
            return last.text
        except ValueError as error:
            raise RecordError(
                f"{record.describe()}: cannot partition timestamp {timestamp}: {error}"
            ) from None


class _LastBucket:
    """The text of the last bucket printed: consecutive records mostly share a bucket."""

    __slots__ = ("local_start", "text")

    def __init__(self) -> None:
        self.local_start: int | None = None
        self.text = ""

    def __reduce__(self) -> tuple[type[_LastBucket], tuple[()]]:
        return _LastBucket, ()


@dataclass(frozen=True, slots=True)
class DailyPartitioner(TimeBasedPartitioner):
    """One-day buckets printed as ``'year'=YYYY<d>'month'=MM<d>'day'=dd``."""

    @classmethod
    def from_settings(cls, settings: Settings) -> TimeBasedPartitioner:
        """Like TimeBasedPartitioner, with ``partition.duration.ms`` and ``path.format`` fixed."""
        delim = directory_delim(settings)
        return cls._create(settings, _DAY_MS, f"'year'=YYYY{delim}'month'=MM{delim}'day'=dd")


@dataclass(frozen=True, slots=True)
class HourlyPartitioner(TimeBasedPartitioner):
    """One-hour buckets printed as ``'year'=YYYY<d>'month'=MM<d>'day'=dd<d>'hour'=HH``."""

    @classmethod
    def from_settings(cls, settings: Settings) -> TimeBasedPartitioner:
        """Like TimeBasedPartitioner, with ``partition.duration.ms`` and ``path.format`` fixed."""
        delim = directory_delim(settings)
        return cls._create(settings, _HOUR_MS, f"'year'=YYYY{delim}'month'=MM{delim}'day'=dd{delim}'hour'=HH")


PARTITIONER_CLASSES: Mapping[str, Any] = {
    f"{_PACKAGE}{cls.__name__}": cls
    for cls in (
        DefaultPartitioner,
        FieldPartitioner,
        TimeBasedPartitioner,
        DailyPartitioner,
        HourlyPartitioner,
    )
}


def partitioner_from_settings(settings: Settings) -> ConfluentPartitioner:
    """The partitioner ``partitioner.class`` names (default DefaultPartitioner), configured.

    Custom partitioner and timestamp-extractor classes cannot be loaded.

    Raises:
        ConfigError: an unknown or custom class, or a setting of that partitioner.
    """
    name = string_setting(settings, PARTITIONER_CLASS, f"{_PACKAGE}DefaultPartitioner")
    cls = PARTITIONER_CLASSES.get(name)
    if cls is None:
        raise ConfigError(
            f"Invalid value {name} for configuration {PARTITIONER_CLASS}: expected one of "
            f"{', '.join(PARTITIONER_CLASSES)} (custom partitioner classes cannot run in lakesink)."
        )
    partitioner: ConfluentPartitioner = cls.from_settings(settings)
    return partitioner


def checked_partition(record: Record, encoded: str) -> str:
    """``encoded`` unchanged, unless it could place an object outside its directory.

    A deliberate difference from Confluent (a refusal rather than another key): a ``.`` or ``..``
    path segment (split on ``/`` and backslash) or a control character. FieldPartitioner values come
    from record data, and such a key can leave the topic directory on stores that normalise paths.

    Raises:
        RecordError: a ``.``/``..`` path segment or a control character.
    """
    reason = _unsafe_reason(encoded)
    if reason:
        raise RecordError(
            f"{record.describe()}: the encoded partition {encoded!r} has {reason}; lakesink refuses "
            "to write it (Confluent would)."
        )
    return encoded


@functools.lru_cache(maxsize=4096)
def _unsafe_reason(encoded: str) -> str:
    """Why ``encoded`` may not name a directory ("" when it may); cached: consecutive records mostly share one."""
    if has_control_character(encoded):
        return "a control character"
    segments = encoded.replace("\\", "/").split("/")
    if any(segment in (".", "..") for segment in segments):
        return "a '.' or '..' path segment"
    return ""


def _field_text(record: Record, name: str, field_type: ConnectType, value: Any) -> str:
    if field_type.logical is None:
        if field_type.type in _INTEGER_TYPES and isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if field_type.type == "STRING" and isinstance(value, str):
            return value
        if field_type.type == "BOOLEAN" and isinstance(value, bool):
            return "true" if value else "false"
    described = field_type.type + (f" ({field_type.logical})" if field_type.logical else "")
    raise RecordError(
        f"{record.describe()}: Error encoding partition. (field '{name}' of type {described} holding "
        f"a {type(value).__name__} cannot be a partition; only INT8-INT64, STRING and BOOLEAN can)"
    )


def _required(settings: Settings, key: str, message: str) -> str:
    value = string_setting(settings, key, "")
    if _is_blank(value):
        raise ConfigError(f"Invalid value {value!r} for configuration {key}: {message}")
    return value


def _is_blank(text: str) -> bool:
    """Apache Commons ``StringUtils.isBlank`` for the trimmed settings it is applied to."""
    return not java_trim(text) or text.isspace()
