"""The whole connector config, typed: what the sink and the restore are built from.

``ConnectorSettings.from_properties`` takes the flat string mapping a ``.properties`` or
Kafka Connect JSON file gives and returns one validated value, or raises a ConfigError that
names the key at fault. Lenses names and defaults throughout; the deviations (unknown keys,
bad values and unknown codecs are errors) are listed in docs/configuration.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePath

from lakesink.domain.config.backend_parsing import (
    backend_settings,
    connector_class_target,
    detect_backend,
    normal_key,
    normalise_keys,
)
from lakesink.domain.config.backends import BackendSettings
from lakesink.domain.config.connector_classes import check_connector_class
from lakesink.domain.config.enums import ErrorPolicy, SchemaChangeDetector
from lakesink.domain.config.error_reporting import ErrorReporting, parse_error_reporting
from lakesink.domain.config.hidden import HiddenValues, HidingSettings, parse_hiding
from lakesink.domain.config.index_settings import parse_indexes_name
from lakesink.domain.config.key_check import check_keys
from lakesink.domain.config.passthrough import (
    ClientValue,
    ConverterSettings,
    parse_converter,
    parse_kafka_client,
)
from lakesink.domain.config.reader import PropertyReader
from lakesink.domain.config.secret import MASK, Secret
from lakesink.domain.config.source_settings import SourceSettings, parse_source_settings
from lakesink.domain.config.statement_rules import check_padding, check_topics
from lakesink.domain.config.table_catalog import parse_table_catalog
from lakesink.domain.config.table_maintenance import parse_table_maintenance
from lakesink.domain.dialects.writing import DialectWriting
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import CompressionCodec
from lakesink.domain.kcql import KcqlStatement, SourceStatement, parse, parse_source
from lakesink.domain.ports import Clock
from lakesink.domain.tables.maintenance import MaintenanceSettings
from lakesink.domain.tables.target import CatalogSettings
from lakesink.domain.transforms.chain import TransformChain
from lakesink.domain.transforms.registry import build_chain, transform_keys

_ROLES = ("sink", "source")
_PADDING_STRATEGIES = {"leftpad": "LeftPad", "rightpad": "RightPad", "noop": "NoOp"}
_DEFAULT_PADDING_LENGTH = 12


@dataclass(frozen=True, slots=True, repr=False)
class ConnectorSettings(HidingSettings):
    """One connector's resolved settings; ``repr``/``str`` never show a secret.

    Attributes:
        role: ``sink`` (Kafka → storage) or ``source`` (restore).
        name: the connector name (index directory ``<indexes_name>/<name>/``).
        backend / prefix / storage: the storage backend, its key prefix and typed settings.
        kcql / statements: the KCQL text and its parsed statements, in the order given.
        topics / topics_regex: the sink's subscription (exactly one is set for a sink).
        padding_strategy / padding_length: legacy offset padding (None = KCQL or default padding).
        compression_level: None = the codec's default.
        single_writer: exactly-once accepted on a store that ignores conditional writes (no fencing of a
            second sink of the same name: the user promises there is none).
        range_split_offsets: the most offsets of one topic-partition one sink task writes (0 = no limit).
        metrics_port / metrics_host: where the sink serves its Prometheus metrics (None: nowhere).
        source: the restore's settings; None for a sink.
        error_reporting: Kafka Connect's dead-letter queue and error log of the records a sink skips.
        table_catalog: the Iceberg catalog of ``'table.format'='ICEBERG'`` statements (``table.catalog.*``).
        table_maintenance: what the sink does to its tables between batches (``table.maintenance.*``).
        transforms: the ``transforms*`` / ``predicates*`` keys as given (validated by
            building the chain once); :meth:`transform_chain` builds the chain a run applies.
        writing: how a Confluent or Aiven S3 sink config writes (its connector's keys, files and
            rotation, :mod:`lakesink.domain.dialects.writing`), in place of the KCQL layout and
            flush rule; None for Lenses configs.
        hidden: the values config providers supplied (``${file:...}``, ``${env:...}``); masked in
            ``repr``, ``describe()`` and error messages wherever they ended up.
    """

    role: str
    name: str
    backend: str
    prefix: str
    storage: BackendSettings
    kcql: str
    statements: tuple[KcqlStatement, ...] | tuple[SourceStatement, ...]
    topics: tuple[str, ...] = ()
    topics_regex: str | None = None
    bootstrap_servers: str | None = None
    key_converter: ConverterSettings = ConverterSettings()
    value_converter: ConverterSettings = ConverterSettings()
    header_converter: ConverterSettings = ConverterSettings()
    kafka_client: Mapping[str, ClientValue] = dataclasses.field(default_factory=dict)
    compression_codec: CompressionCodec = CompressionCodec.UNCOMPRESSED
    compression_level: int | None = None
    error_policy: ErrorPolicy = ErrorPolicy.THROW
    tolerate_record_errors: bool = False
    """Kafka Connect's ``errors.tolerance=all``: a record a converter or a transform fails on is
    skipped (to the dead-letter topic, if set), while ``error_policy`` keeps governing the writes."""
    max_retries: int = 20
    retry_interval_ms: int = 60_000
    disable_flush_count: bool = False
    local_tmp_directory: str | None = None
    padding_strategy: str | None = None
    padding_length: int = _DEFAULT_PADDING_LENGTH
    exactly_once: bool = True
    single_writer: bool = False
    range_split_offsets: int = 250_000
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    indexes_name: str = ".indexes"
    schema_change_detector: SchemaChangeDetector = SchemaChangeDetector.DEFAULT
    skip_null_values: bool = False
    latest_schema_optimization: bool = False
    source: SourceSettings | None = None
    error_reporting: ErrorReporting = ErrorReporting()
    table_catalog: CatalogSettings = CatalogSettings()
    table_maintenance: MaintenanceSettings = MaintenanceSettings()
    transforms: Mapping[str, str] = dataclasses.field(default_factory=dict)
    writing: DialectWriting | None = None
    hidden: HiddenValues = dataclasses.field(default_factory=HiddenValues, compare=False)

    @classmethod
    def from_properties(
        cls, props: Mapping[str, str], *, role: str = "sink", provided: Collection[str] = frozenset()
    ) -> ConnectorSettings:
        """Validate and type a flat config; raises ConfigError naming the key at fault.

        ``provided`` names the keys whose values a config provider supplied
        (:func:`~lakesink.domain.config.providers.resolve_references`): those values are treated
        as secrets and never shown, in errors included.
        """
        if role not in _ROLES:
            raise ValueError(f"role must be 'sink' or 'source', not {role!r}")
        return parse_hiding(props, provided, lambda values, hidden: cls._parse(values, role, hidden))

    @classmethod
    def _parse(cls, props: Mapping[str, str], role: str, hidden: HiddenValues) -> ConnectorSettings:
        normalised = normalise_keys(props)
        hidden_keys = frozenset(map(normal_key, hidden.keys))
        check_connector_class(normalised)
        backend, prefix = detect_backend(normalised)
        _check_connector_class_role(normalised, role)
        check_keys(normalised, prefix=prefix, backend=backend, role=role, hidden=hidden_keys)
        reader = PropertyReader(normalised, prefix, hidden=hidden_keys)
        kcql = _required(reader, "kcql")
        padding_strategy, padding_length = _legacy_padding(reader)
        statements: tuple[KcqlStatement, ...] | tuple[SourceStatement, ...]
        topics: tuple[str, ...] = ()
        topics_regex: str | None = None
        reporting = ErrorReporting()
        transforms = transform_keys(normalised)
        chain = build_chain(transforms, UNREAD_CLOCK)  # validation: an unknown class or option fails here
        if role == "sink":
            sink_statements = tuple(parse(kcql))
            topics = reader.items("topics", prefixed=False)
            topics_regex = reader.text("topics.regex", prefixed=False)
            check_topics(sink_statements, topics, topics_regex, routed=chain.routes)
            check_padding(sink_statements, legacy_set=padding_strategy is not None)
            statements = sink_statements
            error_policy = reader.enum("error.policy", ErrorPolicy)
            reporting = parse_error_reporting(
                normalised,
                skips_poison=error_policy is ErrorPolicy.NOOP or tolerates_errors(normalised),
                skip_setting=f"errors.tolerance=all or {prefix}.error.policy=NOOP",
                topics=topics,
                topics_regex=topics_regex,
            )
        else:
            statements = tuple(parse_source(kcql))
        return cls(
            role=role,
            name=_connector_name(reader),
            backend=backend,
            prefix=prefix,
            storage=backend_settings(backend, reader),
            kcql=kcql,
            statements=statements,
            topics=topics,
            topics_regex=topics_regex,
            bootstrap_servers=reader.text("bootstrap.servers", prefixed=False),
            key_converter=parse_converter(normalised, "key", hidden=hidden_keys, applied=role == "sink"),
            value_converter=parse_converter(normalised, "value", hidden=hidden_keys, applied=role == "sink"),
            header_converter=parse_converter(normalised, "header", hidden=hidden_keys),
            kafka_client=parse_kafka_client(normalised, role, hidden=hidden_keys),
            compression_codec=reader.enum("compression.codec", CompressionCodec),
            compression_level=_compression_level(reader),
            error_policy=reader.enum("error.policy", ErrorPolicy),
            tolerate_record_errors=role == "sink" and tolerates_errors(normalised),
            max_retries=_int(reader, "max.retries"),
            retry_interval_ms=_int(reader, "retry.interval"),
            disable_flush_count=reader.flag("disable.flush.count"),
            local_tmp_directory=reader.text("local.tmp.directory"),
            padding_strategy=padding_strategy,
            padding_length=padding_length,
            exactly_once=reader.flag("exactly.once.enable"),
            single_writer=_single_writer(reader),
            range_split_offsets=_int(reader, "range.split.offsets"),
            metrics_port=reader.integer("metrics.port", minimum=0, maximum=65535),
            metrics_host=_metrics_host(reader),
            indexes_name=parse_indexes_name(reader),
            schema_change_detector=reader.enum("schema.change.detector", SchemaChangeDetector),
            skip_null_values=reader.flag("skip.null.values"),
            latest_schema_optimization=reader.flag("latest.schema.optimization.enabled"),
            source=parse_source_settings(reader) if role == "source" else None,
            error_reporting=reporting,
            table_catalog=parse_table_catalog(reader, normalised, hidden=hidden_keys)
            if role == "sink"
            else CatalogSettings(),
            table_maintenance=parse_table_maintenance(reader) if role == "sink" else MaintenanceSettings(),
            transforms=transforms,
            hidden=hidden,
        )

    def transform_chain(self, clock: Clock) -> TransformChain:
        """The Single Message Transform chain of this config; wall-clock transforms read ``clock``."""
        return build_chain(self.transforms, clock)

    def describe(self) -> dict[str, object]:
        """Every resolved setting, defaults included, as plain JSON-able values; secrets masked.

        So are values equal to (or containing) one a config provider supplied.
        """
        return {
            f.name: self.hidden.mask_leaves(plain_value(getattr(self, f.name)))
            for f in dataclasses.fields(self)
            if f.name not in ("hidden", "writing")
        }


def plain_value(value: object) -> object:
    """Turn a settings value into str/int/float/bool/None/list/dict, masking secrets."""
    if isinstance(value, Secret):
        return MASK
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (KcqlStatement, SourceStatement)):
        return value.text
    if isinstance(value, PurePath):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [plain_value(v) for v in value]
    return value


def described(
    settings: HidingSettings, summaries: Mapping[str, object], omitted: Collection[str] = ()
) -> dict[str, object]:
    """A settings dataclass's fields as plain JSON-able values (explain), secrets and provided
    values masked: ``omitted`` fields left out, those in ``summaries`` shown last as summarised."""
    shown = {
        f.name: plain_value(getattr(settings, f.name))
        for f in dataclasses.fields(settings)  # type: ignore[arg-type]
        if f.name != "hidden" and f.name not in summaries and f.name not in omitted
    }
    masked = settings.hidden.mask_leaves({**shown, **summaries})
    assert isinstance(masked, dict)
    return masked


def tolerates_errors(error_handling: Mapping[str, str]) -> bool:
    """Kafka Connect's ``errors.tolerance=all``: a record that cannot be converted (or, in a
    Confluent or Aiven sink, written) is skipped and sent to the dead-letter topic, if one is set;
    ``none``, the default, stops the task.

    Raises:
        ConfigError: a value other than ``none`` or ``all`` (any case), in Kafka Connect's words.
    """
    value = error_handling.get("errors.tolerance", "none").strip().lower()
    if value not in ("none", "all"):
        raise ConfigError(
            f"Invalid value {error_handling['errors.tolerance'].strip()} for configuration errors.tolerance: "
            "String must be one of: none, all"
        )
    return value == "all"


class _UnreadClock:
    """The clock the validating chain build gets: building a transform never reads the time."""

    def now_ms(self) -> int:
        raise RuntimeError("the chain built to validate a config is never applied")


UNREAD_CLOCK = _UnreadClock()


def _check_connector_class_role(props: Mapping[str, str], role: str) -> None:
    target = connector_class_target(props)
    if target is not None and target[1] != role:
        raise ConfigError(
            f"connector.class {props['connector.class']!r} is a {target[1]} connector, "
            f"but this config is being loaded as a {role}."
        )


def _required(reader: PropertyReader, name: str, *, prefixed: bool = True) -> str:
    value = reader.text(name, prefixed=prefixed)
    if value is None:
        raise ConfigError(f"{reader.key(name, prefixed=prefixed)} is required.")
    return value


def _connector_name(reader: PropertyReader) -> str:
    name = _required(reader, "name", prefixed=False)
    if any(ord(char) < 32 or ord(char) == 127 for char in name):
        raise ConfigError("Invalid value for name: control characters are not allowed.")
    return name


def _int(reader: PropertyReader, name: str) -> int:
    value = reader.integer(name, minimum=0)
    if value is None:
        raise KeyError(f"{name} has no default in the catalog")
    return value


def _single_writer(reader: PropertyReader) -> bool:
    """``exactly.once.single.writer``: only meaningful for an exactly-once sink."""
    single = reader.flag("exactly.once.single.writer")
    if single and not reader.flag("exactly.once.enable"):
        raise ConfigError(
            f"{reader.key('exactly.once.single.writer')} is true but {reader.key('exactly.once.enable')} is false, "
            "so it would have no effect: at-least-once keeps no index to fence."
        )
    return single


def _metrics_host(reader: PropertyReader) -> str:
    """``metrics.host``: an address to listen on, never empty (an unset key is the default)."""
    host = reader.text("metrics.host") or "127.0.0.1"
    if any(char.isspace() or char in "/?#" for char in host):
        raise ConfigError(f"Invalid value {host!r} for {reader.key('metrics.host')}: expected a host name or an IP address.")
    return host


def _compression_level(reader: PropertyReader) -> int | None:
    level = reader.integer("compression.level", minimum=-1, maximum=22)
    return None if level is None or level == -1 else level


def _legacy_padding(reader: PropertyReader) -> tuple[str | None, int]:
    """Lenses' connector-level offset padding: a strategy, and a length where -1 means 12."""
    strategy = reader.choice("padding.strategy", _PADDING_STRATEGIES)
    length = reader.integer("padding.length", minimum=-1, maximum=64)
    if strategy is None and reader.is_set("padding.length"):
        raise ConfigError(
            f"{reader.key('padding.length')} is set but {reader.key('padding.strategy')} is not, "
            "so it would have no effect; prefer KCQL PROPERTIES ('padding.length.offset'=N)."
        )
    return strategy, _DEFAULT_PADDING_LENGTH if length is None or length == -1 else length
