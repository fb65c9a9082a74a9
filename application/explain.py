"""``lakesink kcql explain``: a dry run showing what a KCQL statement will do.

Nothing is read from Kafka or written to a store. The use case resolves every setting the way
the sink does (through :mod:`lakesink.domain.statement_plan`) and, given a record, names the
object a one-record file holding it would get.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from lakesink.domain.config.backend_parsing import detect_backend, normal_key, normalise_keys
from lakesink.domain.config.connector import ConnectorSettings, plain_value
from lakesink.domain.config.connector_classes import AIVEN_S3_SINK, CONFLUENT_S3_SINK
from lakesink.domain.config.hidden import HiddenValues
from lakesink.domain.config.providers import ResolvedConfig
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.kcql import parse
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.statement_plan import SinkPlan, StatementPlan, plan_sink
from lakesink.domain.tables.target import CatalogSettings, TableFormat
from lakesink.domain.transforms.chain import TraceStep

_DEFAULT_PREFIX = "connect.s3"
_RECORD_FIELDS = {"topic", "partition", "offset", "timestamp", "key", "value", "headers", "value_schema"}


@dataclass(frozen=True, slots=True)
class ExplainCommand:
    """What to explain: KCQL, an optional connector config and an optional record.

    ``kcql`` None: the config's own ``connect.<p>.kcql`` (``--config FILE`` alone explains the file
    as the sink would run it). ``provided`` names the config keys whose values a config provider
    supplied (never shown).
    """

    kcql: str | None
    config: Mapping[str, str]
    record: Record | None
    provided: frozenset[str] = frozenset()

    @classmethod
    def from_cli(cls, *, kcql: str | None, config: ResolvedConfig | None, record_json: str | None) -> ExplainCommand:
        """The command for a loaded config file (:func:`~.bootstrap.config_file.load_config`) and the record
        given on the command line."""
        record = None if record_json is None else parse_record(record_json)
        if config is None:
            return cls(kcql=kcql, config={}, record=record)
        return cls(kcql=kcql, config=config.values, record=record, provided=config.provided)


@dataclass(frozen=True, slots=True)
class ExplainResult:
    """The resolved plan of each statement and, when a record was given, its object key.

    ``steps`` is what each transform did to the record; ``record`` is the record the statement
    saw (None when a transform dropped it, and then there is no key).

    ``hidden``: values config providers supplied, masked in both renderings. ``catalog``: where
    the Iceberg tables of the statements are named (``table.catalog.*``).
    """

    plan: SinkPlan
    record: Record | None
    object_key: str | None
    bucket: str | None = None
    steps: tuple[TraceStep, ...] = ()
    hidden: HiddenValues = field(default_factory=HiddenValues)
    catalog: CatalogSettings = field(default_factory=CatalogSettings)


def explain(command: ExplainCommand, clock: Clock) -> ExplainResult:
    """Resolve the statements and, with a record, route it and name its object (``clock`` is what
    time-reading transforms read: the wall clock from the command line).

    Raises:
        ConfigError: invalid KCQL or settings. RecordError: the record cannot be placed.
    """
    props, kcql_key, provided = explain_config(command.kcql, command.config, command.provided)
    _subscribe(props, props[kcql_key])
    settings = ConnectorSettings.from_properties(props, provided=provided)
    plan = plan_sink(settings)
    catalog = settings.table_catalog
    if command.record is None:
        return ExplainResult(plan, None, None, hidden=settings.hidden, catalog=catalog)
    steps = tuple(settings.transform_chain(clock).trace(command.record))
    record = steps[-1].record if steps else command.record
    if record is None:
        return ExplainResult(plan, None, None, steps=steps, hidden=settings.hidden, catalog=catalog)
    statement = plan.route(record.topic)
    layout = statement.layout
    timestamp = -1 if record.timestamp is None else record.timestamp
    key = layout.object_key(
        layout.partition_values(record),
        topic=record.topic,
        partition=record.partition,
        first_offset=record.offset,
        last_offset=record.offset,
        earliest_ts=timestamp,
        latest_ts=timestamp,
    )
    return ExplainResult(plan, record, key, statement.bucket, steps, hidden=settings.hidden, catalog=catalog)


def explain_config(
    kcql: str | None, config: Mapping[str, str], provided: Collection[str] = frozenset()
) -> tuple[dict[str, str], str, set[str]]:
    """The config with the KCQL in force (the argument overrides the config's ``connect.<p>.kcql``,
    as the README says) and a name filled in, the key holding the KCQL, and the keys still holding
    provided values.

    Raises:
        ConfigError: no KCQL argument and no ``connect.<p>.kcql`` in the config.
    """
    props = normalise_keys(config)
    prefix = detect_backend(props)[1] if props else _DEFAULT_PREFIX
    kcql_key = f"{prefix}.kcql"
    if kcql is None and not props.get(kcql_key, "").strip():
        raise ConfigError(
            f"kcql explain needs a KCQL argument or a config with {kcql_key} (or a Confluent or Aiven "
            f"S3 sink config: connector.class={CONFLUENT_S3_SINK} or {AIVEN_S3_SINK})."
        )
    if kcql is not None:
        props[kcql_key] = kcql
        # The KCQL argument replaces the config's: it is the user's own text, not a provided value.
        provided = {key for key in provided if normal_key(key) != kcql_key}
    props.setdefault("name", "explain")
    return props, kcql_key, set(provided)


def _subscribe(props: dict[str, str], kcql: str) -> None:
    """Subscribe a sink config without ``topics``/``topics.regex`` to its statements' topics."""
    if "topics" in props or "topics.regex" in props:
        return
    topics = [statement.topic for statement in parse(kcql)]
    if None in topics:
        props["topics.regex"] = ".*"
    else:
        props["topics"] = ",".join(dict.fromkeys(t for t in topics if t is not None))


def parse_record(text: str) -> Record:
    """A record from ``{"topic","partition","offset","timestamp","key","value","headers","value_schema"}``.

    ``headers`` is an object or a list of ``[name, value]`` pairs; key and value are any JSON.
    ``value_schema`` (optional) is the value's schema as a converter would give it (a Kafka
    Connect JSON schema or an Avro schema): with a struct schema the value is a Struct, which
    Confluent's FieldPartitioner needs.

    Raises:
        RecordError: the JSON is invalid or a field has the wrong type.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"--record is not valid JSON: {error.msg} at position {error.pos}.") from None
    if not isinstance(data, dict):
        raise RecordError("--record must be a JSON object.")
    unknown = sorted(set(data) - _RECORD_FIELDS)
    if unknown:
        raise RecordError(f"--record has unknown fields {unknown}; allowed: {sorted(_RECORD_FIELDS)}.")
    topic = data.get("topic")
    if not isinstance(topic, str) or not topic:
        raise RecordError('--record needs "topic" (a non-empty string).')
    return Record(
        topic=topic,
        partition=_int_field(data, "partition", 0),
        offset=_int_field(data, "offset", 0),
        timestamp=_optional_int_field(data, "timestamp"),
        key=data.get("key"),
        value=data.get("value"),
        headers=_headers(data.get("headers")),
        value_schema=_value_schema(data.get("value_schema")),
    )


def _value_schema(raw: Any) -> Any:
    if raw is None or isinstance(raw, dict | str):
        return raw
    raise RecordError('--record "value_schema" must be a schema object (Kafka Connect JSON or Avro).')


def _int_field(data: Mapping[str, Any], name: str, default: int) -> int:
    value = data.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RecordError(f'--record "{name}" must be a non-negative integer, not {value!r}.')
    return value


def _optional_int_field(data: Mapping[str, Any], name: str) -> int | None:
    return None if data.get(name) is None else _int_field(data, name, 0)


def _headers(raw: Any) -> tuple[tuple[str, Any], ...]:
    if raw is None:
        return ()
    if isinstance(raw, dict):
        return tuple((str(name), value) for name, value in raw.items())
    if isinstance(raw, list) and all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in raw
    ):
        return tuple((name, value) for name, value in raw)
    raise RecordError('--record "headers" must be an object or a list of [name, value] pairs.')


def _statement_json(plan: StatementPlan, catalog: CatalogSettings) -> dict[str, object]:
    statement = plan.statement
    return {
        "bucket": statement.bucket,
        "prefix": statement.prefix,
        "topic": statement.topic,
        "partition_by": list(statement.partition_by),
        "no_partition": statement.no_partition,
        "format": statement.format.value,
        "csv_headers": statement.csv_headers,
        "compression_codec": plan.codec.value,
        "file_extension": plan.layout.file_extension,
        "properties": plan.resolved_properties(),
        **({"table": table} if (table := _table_json(plan, catalog)) is not None else {}),
    }


def _table_json(plan: StatementPlan, catalog: CatalogSettings) -> dict[str, object] | None:
    """The statement's table: format, name, location, the partition spec its files get and, for
    Iceberg, the catalog that names it (a URI holding credentials, and secret properties, masked)."""
    table = plan.table
    if table is None:
        return None
    return {
        "format": table.format.value,
        "name": table.name,
        "location": f"{table.bucket}/{table.prefix}",
        "partition_spec": list(table.partition_spec),
        "keys_only": list(table.path_only),
        **({"timestamp_column": table.time_partition.column} if table.time_partition else {}),
        **({"catalog": plain_value(catalog)} if table.format is TableFormat.ICEBERG else {}),
        **({"changes": {"format": table.changes.format.value, "key": list(table.changes.key_columns)}}
           if table.changes else {}),
    }


def _catalog_text(catalog: dict[str, Any]) -> str:
    """``rest catalog lakesink at http://...``; the embedded SQLite file when no URI is set."""
    where = f"at {catalog['uri']}" if catalog["uri"] else "in the embedded SQLite file (no table.catalog.uri)"
    warehouse = f", warehouse {catalog['warehouse']}" if catalog["warehouse"] else ""
    properties = "".join(f", {name}={value}" for name, value in catalog["properties"].items())
    return f"{catalog['type']} catalog {catalog['name']} {where}{warehouse}{properties}"


def render_json(result: ExplainResult, key_notes: Mapping[str, str] | None = None) -> str:
    """One JSON object: ``{"statements": [...], "object_key": ...}``; ``key_notes`` (the config's
    keys without effect, and why) as ``key_notes`` when there are any."""
    document = {
        "statements": [_statement_json(plan, result.catalog) for plan in result.plan.statements],
        "transforms": [step_json(step) for step in result.steps],
        "object_key": result.object_key,
        "object_bucket": result.bucket,
        **({"key_notes": dict(key_notes)} if key_notes else {}),
    }
    return json.dumps(result.hidden.mask_leaves(document), indent=2, ensure_ascii=False)


def render_text(result: ExplainResult, key_notes: Mapping[str, str] | None = None) -> str:
    """A human-readable summary of each statement and the record's object key, then the config's
    keys without effect (``key_notes``)."""
    lines: list[str] = []
    for number, plan in enumerate(result.plan.statements, start=1):
        info = _statement_json(plan, result.catalog)
        lines.append(f"Statement {number}: {plan.statement.text}")
        for name in ("bucket", "prefix", "topic", "partition_by", "no_partition", "format", "csv_headers"):
            lines.append(f"  {name:<22} {display_text(info[name])}")
        lines.append(
            f"  {'compression.codec':<22} {plan.codec.value} (files end in .{plan.layout.file_extension})"
        )
        lines.append("  properties:")
        for name, value in plan.resolved_properties().items():
            lines.append(f"    {name:<32} {display_text(value)}")
        table = info.get("table")
        if isinstance(table, dict):
            spec = ", ".join(table["partition_spec"]) or "unpartitioned"
            lines.append(f"  table: {table['format']} {table['name']} at {table['location']}, partition spec: {spec}")
            if "catalog" in table:
                lines.append(f"    named in the {_catalog_text(table['catalog'])}")
            if "changes" in table:
                changes = table["changes"]
                lines.append(
                    f"    applies {changes['format']} changes as upserts and deletes by key {', '.join(changes['key'])}; "
                    "the objects keep the change records"
                )
            if "timestamp_column" in table:
                lines.append(f"    its files carry the record timestamp as column {table['timestamp_column']} (UTC)")
            if table["keys_only"]:
                lines.append(f"    in object keys only (no partition field for them): {', '.join(table['keys_only'])}")
    for trace in result.steps:
        step = trace.step
        lines.append(f"Transform {step.alias} ({step.class_name}): {transform_effect(trace)}")
        if trace.applied and trace.record is not None:
            lines.append(f"  {json.dumps(record_json(trace.record), ensure_ascii=False, default=str)}")
    if result.record is not None:
        lines.append(f"Record {result.record.describe()} goes to bucket {result.bucket!r}, key:")
        lines.append(f"  {result.object_key}")
    lines.extend(key_note_lines(key_notes or {}))
    return result.hidden.scrub("\n".join(lines))


def key_note_lines(key_notes: Mapping[str, str]) -> list[str]:
    """The text lines of the config's keys without effect: a heading, then ``  key: why``."""
    if not key_notes:
        return []
    return ["Keys without effect in lakesink:", *(f"  {key}: {note}" for key, note in key_notes.items())]


def transform_effect(trace: TraceStep) -> str:
    if not trace.applied:
        return "skipped (predicate)"
    return "dropped the record" if trace.record is None else "applied"


def record_json(record: Record) -> dict[str, Any]:
    return {
        "topic": record.topic,
        "partition": record.partition,
        "offset": record.offset,
        "timestamp": record.timestamp,
        "key": record.key,
        "value": record.value,
        "headers": [list(pair) for pair in record.headers],
    }


def step_json(trace: TraceStep) -> dict[str, object]:
    record = trace.record
    return {
        "alias": trace.step.alias,
        "class": trace.step.class_name,
        "applied": trace.applied,
        "record": None if record is None else json.loads(json.dumps(record_json(record), default=str)),
    }


def display_text(value: object) -> str:
    """A setting's value as explain prints it: ``(none)`` for nothing, lowercase booleans, lists joined."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ", ".join(map(str, value)) if value else "(none)"
    if isinstance(value, Mapping) and not value:
        return "(none)"
    return str(value)
