"""One KCQL statement combined with the connector settings: everything a writer needs.

The KCQL parser and the settings loader each validate their own inputs; rules that need both
(the codec a format accepts, padding from either place, which statement a topic routes to)
are decided here, once, so ``lakesink kcql explain`` and the sink can never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.dialects.quix.naming import StoreLayout
from lakesink.domain.dialects.writing import DialectWriting
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.flush.policy import FlushPolicy
from lakesink.domain.flush.schema_change import SchemaRules
from lakesink.domain.formats import SUPPORTED_CODECS, CompressionCodec, Format
from lakesink.domain.kcql import KcqlStatement
from lakesink.domain.layout.naming import KeyLayout
from lakesink.domain.layout.padding import resolve_padding
from lakesink.domain.layout.partitioning import FieldKind, PartitionDisplay
from lakesink.domain.schema.envelope_fields import EnvelopeFields
from lakesink.domain.tables.target import TableFormat, TableTarget, table_backend_refusal
from lakesink.domain.tables.time_partition import time_partition

DEFAULT_DATE_TIMEZONE = "UTC"


@dataclass(frozen=True, slots=True)
class StatementPlan:
    """How records of one statement's topic are written: where, in which files, when flushed."""

    statement: KcqlStatement
    layout: KeyLayout
    flush: FlushPolicy
    codec: CompressionCodec
    compression_level: int | None
    envelope: EnvelopeFields | None
    date_timezone: str
    schema_rules: SchemaRules = SchemaRules()
    writing: DialectWriting | None = None
    """A Confluent or Aiven S3 sink config's files, keys and rotation; they replace the layout's and the
    flush rule's. None for KCQL statements."""

    @property
    def bucket(self) -> str:
        """The target bucket (container)."""
        return self.statement.bucket

    @property
    def topic(self) -> str | None:
        """The source topic, None for ``*`` (every topic)."""
        return self.statement.topic

    @property
    def format(self) -> Format:
        """The STOREAS format."""
        return self.statement.format

    @property
    def table(self) -> TableTarget | None:
        """The Iceberg or Delta table the statement's objects are committed to; None: plain objects."""
        options = self.statement.options
        if options.table_format is None or options.table_name is None:
            return None
        fields = self.layout.selection.fields if self.layout.selection.is_custom else ()
        plain = self.envelope is None
        columns = tuple(f.path[0] for f in fields if f.kind is FieldKind.VALUE and len(f.path) == 1 and plain)
        dates = [f.date_pattern for f in fields if f.date_pattern is not None]
        timed = time_partition(dates) if plain and options.table_format is TableFormat.ICEBERG else None
        return TableTarget(
            options.table_format,
            options.table_name,
            self.bucket,
            (self.statement.prefix or "").strip("/"),
            partition_columns=columns,
            time_partition=timed,
            changes=options.table_changes,
            path_only=tuple(
                f.spec
                for f in fields
                if not (f.path and f.path[0] in columns) and not (timed and f.kind is FieldKind.DATE)
            ),
        )

    def resolved_properties(self) -> dict[str, object]:
        """Every KCQL property with the value in force, defaults included (for explain); under
        ``store.layout=quix`` only the flush ones, the others do not apply."""
        options = self.statement.options
        flush: dict[str, object] = {
            "flush.count": self.flush.count,
            "flush.size": self.flush.size_bytes,
            "flush.interval": self.flush.interval_ms // 1000,
        }
        if self.layout.store is StoreLayout.QUIX:
            return {**flush, "store.layout": StoreLayout.QUIX.value}
        padding = {
            f"padding.length.{name}": strategy.length for name, strategy in self.layout.padding.strategies.items()
        }
        first = next(iter(self.layout.padding.strategies.values()), None)
        envelope = self.envelope
        resolved: dict[str, object] = {
            **flush,
            "partition.include.keys": self.layout.selection.display is PartitionDisplay.KEYS_AND_VALUES,
            "padding.type": first.type.value if first else "NoOp",
            "padding.char": first.char if first else "0",
            **padding,
            "key.suffix": options.key_suffix or "",
            "store.envelope": envelope is not None,
        }
        if envelope is not None:
            resolved.update(
                {
                    "store.envelope.fields.key": envelope.key,
                    "store.envelope.fields.value": envelope.value,
                    "store.envelope.fields.metadata": envelope.metadata,
                    "store.envelope.fields.headers": envelope.headers,
                    "store.envelope.headers.layout": envelope.headers_layout.value,
                }
            )
        resolved["partition.date.timezone"] = self.date_timezone
        resolved["store.layout"] = StoreLayout.LENSES.value
        return resolved


@dataclass(frozen=True, slots=True)
class SinkPlan:
    """The plans of every statement, in KCQL order, and the topic → statement routing."""

    statements: tuple[StatementPlan, ...]

    @property
    def tables(self) -> list[TableTarget]:
        """The tables the statements write, each once however many statements name it."""
        return list({t.identity: t for s in self.statements if (t := s.table) is not None}.values())

    def route(self, topic: str) -> StatementPlan:
        """The first statement whose topic is ``*`` or ``topic`` (Lenses' routing rule).

        Raises:
            RecordError: no statement takes this topic (Lenses' message).
        """
        for plan in self.statements:
            if plan.topic is None or plan.topic == topic:
                return plan
        raise RecordError(
            f"Can't find the KCQL for source topic [{topic}]. The topics defined via [topics] or "
            "[topics.regex] need to have an equivalent KCQL statement: "
            "INSERT INTO {DESTINATION} SELECT * FROM {TOPIC}."
        )


def plan_sink(settings: ConnectorSettings) -> SinkPlan:
    """Plan every sink statement of ``settings``.

    Raises:
        ConfigError: a rule that needs both the statement and the connector settings fails
            (values a config provider supplied are masked in its message).
    """
    statements: Sequence[object] = settings.statements
    plans = []
    for statement in statements:
        if not isinstance(statement, KcqlStatement):
            raise ConfigError("A sink needs sink KCQL (INSERT INTO bucket[:prefix] SELECT * FROM topic).")
        try:
            plans.append(plan_statement(statement, settings))
        except ConfigError as error:
            raise settings.hidden.scrub_error(error) from None
    return SinkPlan(tuple(plans))


def plan_statement(statement: KcqlStatement, settings: ConnectorSettings) -> StatementPlan:
    """Combine one statement with the connector-level settings."""
    options = statement.options
    codec = _checked_codec(statement.format, settings)
    if options.table_format is not None and not settings.exactly_once:
        raise ConfigError(
            f"'table.format'={options.table_format.value} needs exactly-once ({settings.prefix}.exactly.once.enable=true, "
            f"the default): the table commit is the batch's commit point, read back at every start. In {statement.text}"
        )
    private_ca = isinstance(settings.storage, S3Settings) and settings.storage.ca_bundle is not None
    if options.table_format is not None and (
        refused := table_backend_refusal(settings.backend, options.table_format, private_ca=private_ca)
    ):
        raise ConfigError(refused)
    if options.store_layout is StoreLayout.QUIX and settings.padding_strategy is not None:
        raise ConfigError(
            f"{settings.prefix}.padding.strategy does not apply to store.layout=quix: Quix pads offsets to 19 "
            f"digits. Remove it, or use store.layout=lenses in {statement.text}."
        )
    legacy_length = settings.padding_length if settings.padding_strategy is not None else None
    padding = resolve_padding(
        kcql_type=options.padding_type,
        kcql_char=options.padding_char,
        kcql_lengths=options.padding_lengths,
        legacy_strategy=settings.padding_strategy,
        legacy_length=legacy_length,
    )
    timezone = options.partition_date_timezone or DEFAULT_DATE_TIMEZONE
    layout = KeyLayout.create(
        prefix=statement.prefix,
        partition_specs=statement.partition_by,
        no_partition=statement.no_partition,
        include_keys=options.partition_include_keys,
        padding=padding,
        key_suffix=options.key_suffix,
        format=statement.format,
        codec=codec,
        date_timezone=timezone,
        store=options.store_layout,
    )
    flush = FlushPolicy.create(
        flush_count=options.flush_count,
        flush_size=options.flush_size,
        flush_interval_s=options.flush_interval_s,
        disable_flush_count=settings.disable_flush_count,
        format=statement.format,
    )
    return StatementPlan(
        statement=statement,
        layout=layout,
        flush=flush,
        codec=codec,
        compression_level=settings.compression_level,
        envelope=options.envelope,
        date_timezone=timezone,
        schema_rules=SchemaRules(settings.schema_change_detector, settings.latest_schema_optimization),
        writing=settings.writing,
    )


def _checked_codec(format: Format, settings: ConnectorSettings) -> CompressionCodec:
    """The connector's codec, if this format can write it; TEXT, CSV and BYTES ignore it (as Lenses)."""
    codec = settings.compression_codec
    if codec not in SUPPORTED_CODECS[format]:
        allowed = ", ".join(sorted(c.value for c in SUPPORTED_CODECS[format]))
        raise ConfigError(
            f"Invalid value {codec.value} for {settings.prefix}.compression.codec: "
            f"{format.value} files can be written with {allowed}."
        )
    if format in (Format.TEXT, Format.CSV, Format.BYTES):
        return CompressionCodec.UNCOMPRESSED
    return codec
