"""Object keys and record grouping of Aiven's S3 sink (``AivenKafkaConnectS3SinkConnector``).

A file's name is ``file.name.template`` rendered for its records (syntax: :mod:`.template`),
or, with ``aws.s3.prefix``, the key Aiven's code writes (``S3SinkTask#oldFullKey``), not the one
its README states; the template's variables pick the :class:`AivenGrouping`.
See docs/dialects.md, "Object keys (Aiven's code, not its README)".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from enum import Enum
from typing import Any

from lakesink.domain.dialects.aiven.template import TemplatePart, TemplateVariable, parse_template
from lakesink.domain.dialects.kafka_connect.config_def import Settings, int_setting, string_setting
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.layout.date_zone import Zone, resolve_zone
from lakesink.domain.records import Record

TEMPLATE = "file.name.template"
PREFIX = "aws.s3.prefix"
LEGACY_PREFIX = "aws_s3_prefix"
COMPRESSION = "file.compression.type"
LEGACY_COMPRESSION = "output_compression"
FORMAT = "format.output.type"
MAX_RECORDS = "file.max.records"
DEFAULT_TEMPLATE = "{{topic}}-{{partition}}-{{start_offset}}"

_UNITS = ("yyyy", "MM", "dd", "HH")
_PADDING = ("true", "false")
_SUPPORTED_SETS = (
    "topic,partition,start_offset,timestamp; topic,partition,key,start_offset,timestamp; key; key,topic,partition"
)
_PARAMETER_SETS = "partition:padding=true|false,start_offset:padding=true|false,timestamp:unit=yyyy|MM|dd|HH"
_FILE_VARIABLES = frozenset({"topic", "partition", "start_offset", "timestamp", "key"})
_PREFIX_VARIABLES = frozenset({"utc_date", "local_date", "topic", "partition", "start_offset", "timestamp"})


class AivenFormat(Enum):
    """``format.output.type`` (``FormatType``); only avro adds an extension to default names."""

    CSV = "csv"
    JSON = "json"
    JSONL = "jsonl"
    PARQUET = "parquet"
    AVRO = "avro"

    @classmethod
    def from_settings(cls, settings: Settings) -> AivenFormat:
        """``format.output.type`` (default csv, any case), with Aiven's error text."""
        name = string_setting(settings, FORMAT, cls.CSV.value)
        if not name:
            # Kafka's two-argument ConfigException(name, value), as Aiven's OutputTypeValidator throws it.
            raise ConfigError(f"Invalid value must not be empty or not set for configuration {FORMAT}")
        try:
            return cls(name.lower())
        except ValueError:
            supported = ", ".join(f"'{member.value}'" for member in cls)
            raise ConfigError(f"Invalid value {name} for configuration {FORMAT}: {supported}") from None


class AivenCompression(Enum):
    """``file.compression.type`` (``CompressionType``) and the extension it adds."""

    NONE = "none"
    GZIP = "gzip"
    SNAPPY = "snappy"
    ZSTD = "zstd"

    @property
    def extension(self) -> str:
        """``""``, ``.gz``, ``.snappy`` or ``.zst`` (not ``.zstd``)."""
        return {"none": "", "gzip": ".gz", "snappy": ".snappy", "zstd": ".zst"}[self.value]

    @classmethod
    def named(cls, settings: Settings, key: str) -> AivenCompression | None:
        """The compression ``key`` names (any case), None when unset, with Aiven's error text."""
        if key not in settings:
            return None
        name = string_setting(settings, key, "").lower()
        try:
            return cls(name)
        except ValueError:
            supported = ", ".join(f"'{member.value}'" for member in cls)
            raise ConfigError(f"Invalid value {name} for configuration {key}: {supported}") from None


def content_compression(settings: Settings) -> AivenCompression:
    """The compression Aiven's S3 sink applies (``S3SinkConfig#getCompressionType``): gzip unless set."""
    return (
        AivenCompression.named(settings, COMPRESSION)
        or AivenCompression.named(settings, LEGACY_COMPRESSION)
        or AivenCompression.GZIP
    )


class AivenGrouping(Enum):
    """How Aiven groups records into files, from the template's variables (``RecordGrouperFactory``)."""

    TOPIC_PARTITION = "topic-partition"
    TOPIC_PARTITION_KEY = "topic-partition-key"
    KEY = "key"
    KEY_TOPIC_PARTITION = "key-topic-partition"

    @property
    def by_key(self) -> bool:
        """One object per rendered name holding the latest record (overwritten on each flush)."""
        return self in (AivenGrouping.KEY, AivenGrouping.KEY_TOPIC_PARTITION)

    @property
    def fills(self) -> frozenset[str]:
        """The variables this grouping renders; Aiven leaves any other one as literal text."""
        if self.by_key:
            return frozenset({"key", "topic", "partition"})
        names = {"topic", "partition", "start_offset", "timestamp"}
        return frozenset(names | {"key"} if self is AivenGrouping.TOPIC_PARTITION_KEY else names)

    def describe(self) -> str:
        """In words, for explain."""
        if self.by_key:
            where = "per key" if self is AivenGrouping.KEY else "per key, topic and partition"
            return f"{self.value}: one object {where}, holding its latest record (overwritten on each flush)"
        per = "topic-partition and key" if self is AivenGrouping.TOPIC_PARTITION_KEY else "topic-partition"
        return f"{self.value}: files per {per}, named by their first record's offset, cut at each flush"


#: Aiven's order of checks: the first whose required variables are present and whose other
#: variables are none or *intersect* the optional ones (a Java quirk kept: it is not a subset test).
_GROUPINGS: tuple[tuple[AivenGrouping, frozenset[str], frozenset[str]], ...] = (
    (
        AivenGrouping.TOPIC_PARTITION_KEY,
        frozenset({"topic", "partition", "key", "start_offset"}),
        frozenset({"timestamp"}),
    ),
    (AivenGrouping.TOPIC_PARTITION, frozenset({"topic", "partition", "start_offset"}), frozenset({"timestamp"})),
    (AivenGrouping.KEY, frozenset({"key"}), frozenset()),
    (AivenGrouping.KEY_TOPIC_PARTITION, frozenset({"key"}), frozenset({"topic", "partition"})),
)


def grouping_for(template: str, variables: frozenset[str]) -> AivenGrouping:
    """The grouping Aiven picks for a template with these variable names.

    Raises:
        ConfigError: Aiven's messages for no variable or an unsupported set.
    """
    if not variables:
        raise ConfigError(
            f"Invalid value {template} for configuration {TEMPLATE}: RecordGrouper requires that the template "
            f"[{template}] has variables defined. Supported variables are: {_SUPPORTED_SETS}"
        )
    for grouping, required, optional in _GROUPINGS:
        rest = variables - required
        if grouping is AivenGrouping.KEY:
            if variables == required:
                return grouping
        elif required <= variables and (not rest or rest & optional):
            return grouping
    raise ConfigError(
        f"Invalid value {template} for configuration {TEMPLATE}: "
        f"unsupported set of template variables, supported sets are: {_SUPPORTED_SETS}"
    )


@dataclass(frozen=True, slots=True)
class TimestampSource:
    """Where ``{{timestamp}}`` takes its time: ``wallclock`` (now) or ``event`` (the record's), and the zone."""

    kind: str
    zone: Zone

    @classmethod
    def from_settings(cls, settings: Settings, source_key: str, zone_key: str) -> TimestampSource:
        """Read a source/zone pair (``file.name.timestamp.*`` or the legacy ``timestamp.*``).

        Raises:
            ConfigError: Aiven's texts for an unknown source; an unknown zone names ``zone_key``.
        """
        kind = string_setting(settings, source_key, "wallclock").lower()
        if kind not in ("wallclock", "event"):
            raise ConfigError(
                f"Invalid value {settings[source_key]} for configuration {source_key}: "
                f"Unknown timestamp source: {settings[source_key]}"
            )
        name = string_setting(settings, zone_key, "UTC")
        try:
            zone = resolve_zone(name)
        except ConfigError:
            raise ConfigError(
                f"Invalid value {name} for configuration {zone_key}: Unknown time-zone ID: {name}"
            ) from None
        return cls(kind, zone)

    def time(self, record: Record, now_ms: int) -> datetime:
        """The time ``record`` is named by.

        Raises:
            RecordError: ``event`` and the record has no timestamp (Aiven fails on it too).
        """
        if self.kind == "wallclock":
            millis = now_ms
        elif record.timestamp is None:
            raise RecordError(f"{record.describe()}: no timestamp, but file.name.timestamp.source is event.")
        else:
            millis = record.timestamp
        return _instant(millis).astimezone(self.zone.tz)


@dataclass(frozen=True, slots=True)
class AivenNaming:
    """Everything that decides an Aiven object key and the grouping; build it with :meth:`from_settings`.

    Attributes:
        template: the file name template in effect (the default one when unset).
        grouping / max_records: how records are grouped (``file.max.records``, 0 = unlimited).
        schema_rotation: avro/parquet by topic-partition: a new key or value schema starts a file.
        timestamps: ``file.name.timestamp.source`` / ``.timezone``.
        prefix: ``aws.s3.prefix`` when set (legacy key mode, ``S3SinkTask#oldFullKey``), else None.
        prefix_timestamps: the deprecated ``timestamp.source`` / ``timestamp.timezone`` the prefix uses.
        prefix_suffix: what follows ``<topic>-<partition>-<offset>`` in prefix mode.
    """

    template: str
    parts: tuple[TemplatePart, ...]
    grouping: AivenGrouping
    max_records: int
    schema_rotation: bool
    timestamps: TimestampSource
    prefix: str | None
    prefix_parts: tuple[TemplatePart, ...]
    prefix_timestamps: TimestampSource
    prefix_suffix: str

    @classmethod
    def from_settings(cls, settings: Settings) -> AivenNaming:
        """Read and check the naming keys of an Aiven S3 sink config.

        Raises:
            ConfigError: naming the key at fault, in Aiven's words where it has them.
        """
        fmt = AivenFormat.from_settings(settings)
        template = _template_text(settings, fmt)
        parts = parse_template(template)
        variables = _variables(parts)
        grouping = grouping_for(template, frozenset(variables))
        _check_template_variables(template, parts, grouping)
        max_records = int_setting(settings, MAX_RECORDS, 0)
        if max_records < 0:
            raise ConfigError(f"Invalid value {max_records} for configuration {MAX_RECORDS}: Value must be at least 0")
        if grouping.by_key and max_records > 1:
            raise ConfigError(f"When {TEMPLATE} is {template}, {MAX_RECORDS} must be either 1 or not set")
        prefix_key = PREFIX if PREFIX in settings else LEGACY_PREFIX
        prefix = string_setting(settings, prefix_key, "") if prefix_key in settings else None
        if prefix == "":
            raise ConfigError(f"Invalid value  for configuration {prefix_key}: String must be non-empty")
        prefix_parts = () if prefix is None else parse_template(prefix)
        _check_prefix_variables(prefix_key, prefix_parts)
        return cls(
            template=template,
            parts=parts,
            grouping=grouping,
            max_records=max_records,
            schema_rotation=not grouping.by_key and fmt in (AivenFormat.AVRO, AivenFormat.PARQUET),
            timestamps=TimestampSource.from_settings(
                settings, "file.name.timestamp.source", "file.name.timestamp.timezone"
            ),
            prefix=prefix,
            prefix_parts=prefix_parts,
            prefix_timestamps=TimestampSource.from_settings(settings, "timestamp.source", "timestamp.timezone"),
            prefix_suffix=(".avro" if fmt is AivenFormat.AVRO else "") + content_compression(settings).extension,
        )

    @property
    def reads_clock(self) -> bool:
        """Whether keys depend on when records are written (not on the records alone)."""
        if self.prefix is not None:
            names = _variables(self.prefix_parts)
            return bool(names & {"utc_date", "local_date"}) or (
                "timestamp" in names and self.prefix_timestamps.kind == "wallclock"
            )
        return "timestamp" in _variables(self.parts) and self.timestamps.kind == "wallclock"

    def file_name(self, head: Record, record: Record, now_ms: int) -> str:
        """The rendered template for ``record``: the name Aiven's grouper files it under.

        ``head`` is the grouper's head record of the record's topic-partition (and key): the
        first record since the last flush or ``file.max.records`` cut, ``record`` itself when it
        starts a file. A file cut by a timestamp change keeps the head (``rotateKeysHourly``).
        ``now_ms`` is the wall clock of a ``wallclock`` timestamp source.

        Raises:
            RecordError: the record cannot name an object (no timestamp for an ``event`` source, a
                key Aiven would print as a Java object reference).
        """
        values: dict[str, Any] = {
            "topic": lambda _: head.topic,
            "partition": lambda padded: f"{head.partition:010d}" if padded else str(head.partition),
            "start_offset": lambda padded: f"{head.offset:020d}" if padded else str(head.offset),
            "timestamp": lambda unit: _format_time(self.timestamps.time(record, now_ms), unit),
            "key": lambda _: key_text(record),
        }
        return _render(self.parts, {name: values[name] for name in self.grouping.fills})

    def object_key(self, file_name: str, first: Record, now_ms: int, local_zone: tzinfo | None = None) -> str:
        """The object key of the file Aiven writes at a flush for the records filed under ``file_name``.

        Without a prefix this is ``file_name`` itself. In prefix mode it is built from ``first``,
        the file's own first record (``records.get(0)`` in ``S3SinkTask#flushFile``, not the
        grouper's head), ``now_ms`` (``{{utc_date}}``, ``{{local_date}}``, a wall-clock
        ``{{timestamp}}``) and ``local_zone``, the zone of ``{{local_date}}`` (the JVM's in Aiven;
        the process's by default).

        Raises:
            RecordError: ``first`` has no timestamp for an ``event`` prefix timestamp.
        """
        return file_name if self.prefix is None else self._prefixed_key(first, now_ms, local_zone)

    def _prefixed_key(self, head: Record, now_ms: int, local_zone: tzinfo | None) -> str:
        now = _instant(now_ms)
        values: dict[str, Any] = {
            "topic": lambda _: head.topic,
            "partition": lambda _: str(head.partition),  # a Supplier in Aiven: no padding here
            "start_offset": lambda padded: f"{head.offset:020d}" if padded else str(head.offset),
            "timestamp": lambda unit: _format_time(self.prefix_timestamps.time(head, now_ms), unit),
            "utc_date": lambda _: now.date().isoformat(),
            "local_date": lambda _: now.astimezone(local_zone).date().isoformat(),
        }
        prefix = _render(self.prefix_parts, values)
        return f"{prefix}{head.topic}-{head.partition}-{head.offset:020d}{self.prefix_suffix}"


def key_text(record: Record) -> str:
    """``{{key}}`` as Aiven renders it: ``null``, a string key as is, else the value's text.

    Raises:
        RecordError: a key whose Java ``toString`` is an object reference or not reproducible
            (structs, maps, arrays, floats); bytes are taken as UTF-8 text (Java prints ``[B@<identity hash>``, another name each run).
    """
    key = record.key
    if key is None:
        return "null"
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, (bytes, bytearray)):
        try:
            return bytes(key).decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError(
                f"{record.describe()}: the key bytes are not UTF-8 text and cannot name an object "
                "({{key}}; Aiven would write a Java object reference)."
            ) from None
    raise RecordError(
        f"{record.describe()}: a {type(key).__name__} key cannot name an object ({{{{key}}}} needs a string, "
        "number or UTF-8 bytes key; convert it with a transform)."
    )


def _template_text(settings: Settings, fmt: AivenFormat) -> str:
    """``FileNameFragment#getFilename``: the template as given (untrimmed is Kafka's trimmed text)."""
    if TEMPLATE in settings:
        return string_setting(settings, TEMPLATE, "")
    compression = AivenCompression.named(settings, COMPRESSION) or AivenCompression.NONE
    return DEFAULT_TEMPLATE + (".avro" if fmt is AivenFormat.AVRO else "") + compression.extension


def _variables(parts: tuple[TemplatePart, ...]) -> set[str]:
    return {part.name for part in parts if isinstance(part, TemplateVariable)}


def _check_template_variables(
    template: str, parts: tuple[TemplatePart, ...], grouping: AivenGrouping
) -> None:
    """Aiven's ``FilenameTemplateValidator`` checks (GCS/Azure run them, S3 does not: it writes ``{{foo}}`` literally)."""
    variables = _variables(parts)
    if variables - _FILE_VARIABLES:
        raise ConfigError(
            f"Invalid value {template} for configuration {TEMPLATE}: "
            f"unsupported set of template variables, supported sets are: {_SUPPORTED_SETS}"
        )
    for part in parts:
        if isinstance(part, TemplateVariable):
            _check_parameter(TEMPLATE, template, part)
    unfilled = sorted(variables - grouping.fills)
    if unfilled:
        raise ConfigError(
            f"{TEMPLATE} {template}: {{{{{unfilled[0]}}}}} is not filled in when records are grouped by "
            f"{grouping.value}; Aiven would write it literally into every name. Remove it."
        )


def _check_parameter(key: str, template: str, variable: TemplateVariable) -> None:
    parameter = variable.parameter
    if variable.name == "timestamp":
        if parameter is None:
            raise ConfigError(
                f"Invalid value {template} for configuration {key}: parameter unit is required for the the "
                f"variable timestamp, supported values are: {'|'.join(_UNITS)}"
            )
        allowed = parameter[0] == "unit" and parameter[1] in _UNITS
    elif variable.name in ("partition", "start_offset"):
        # Aiven's S3 sink reads padding with Boolean.parseBoolean, so TRUE pads too.
        allowed = parameter is None or (parameter[0] == "padding" and parameter[1].lower() in _PADDING)
    else:
        allowed = True  # Aiven ignores a parameter of {{topic}}, {{key}} and the dates
    if not allowed:
        raise ConfigError(
            f"Invalid value {template} for configuration {key}: unsupported set of template variables "
            f"parameters, supported sets are: {_PARAMETER_SETS}"
        )


def _check_prefix_variables(key: str, parts: tuple[TemplatePart, ...]) -> None:
    """The prefix's variables are bound by ``S3SinkTask#oldFullKey``; any other would stay literal."""
    template = "".join(part if isinstance(part, str) else part.text for part in parts)
    for part in parts:
        if not isinstance(part, TemplateVariable):
            continue
        if part.name not in _PREFIX_VARIABLES:
            raise ConfigError(
                f"{key} {template}: {{{{{part.name}}}}} is not a prefix variable (Aiven would write it literally); "
                "use utc_date, local_date, topic, partition, start_offset or timestamp."
            )
        if part.name == "partition" and part.parameter is not None:
            raise ConfigError(f"{key} {template}: {{{{partition}}}} takes no parameter in the prefix (Aiven ignores it).")
        _check_parameter(key, template, part)


def _render(parts: tuple[TemplatePart, ...], values: dict[str, Any]) -> str:
    """``Template.Instance#render``: bound variables get their value from their parameter."""
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif part.name in values:
            out.append(values[part.name](_argument(part)))
        else:
            out.append(part.text)
    return "".join(out)


def _argument(variable: TemplateVariable) -> Any:
    """The parameter as the binding reads it: padding as a boolean, unit as text."""
    if variable.parameter is None:
        return False if variable.name in ("partition", "start_offset") else None
    name, value = variable.parameter
    return value.lower() == "true" if name == "padding" else value


def _format_time(moment: datetime, unit: str) -> str:
    """Java's ``DateTimeFormatter.ofPattern(unit)`` for the four units Aiven allows."""
    return {
        "yyyy": f"{moment.year:04d}",
        "MM": f"{moment.month:02d}",
        "dd": f"{moment.day:02d}",
        "HH": f"{moment.hour:02d}",
    }[unit]


def _instant(millis: int) -> datetime:
    """Epoch milliseconds as an exact UTC datetime (no float rounding at second boundaries)."""
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=millis)
