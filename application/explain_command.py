"""``lakesink kcql explain``: picks the dialect of ``--config`` and renders the use case's result.

A Lenses config (or none) explains the KCQL argument, or the config's own statements without one
(:mod:`.explain`; source statements as the restore plans them, :mod:`.explain_source`); a
Confluent or an Aiven S3 sink config takes no KCQL and is explained by :mod:`.explain_confluent`
/ :mod:`.explain_aiven`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lakesink.application.dialects.aiven_explain import explain_aiven, render_aiven_json, render_aiven_text
from lakesink.application.dialects.confluent_explain import (
    explain_confluent,
    render_confluent_json,
    render_confluent_text,
)
from lakesink.application.explain import (
    ExplainCommand,
    explain,
    explain_config,
    parse_record,
    record_json,
    render_json,
    render_text,
    step_json,
    transform_effect,
)
from lakesink.application.explain_ports import ExplainPorts
from lakesink.application.explain_source import (
    explain_source,
    render_source_json,
    render_source_text,
)
from lakesink.domain.config.config_role import holds_source_statements
from lakesink.domain.config.setting_notes import setting_note
from lakesink.domain.dialects.registry import AIVEN, CONFLUENT, sink_dialect
from lakesink.domain.errors import ConfigError
from lakesink.domain.transforms.chain import TraceStep


@dataclass(frozen=True, slots=True)
class DialectExplain:
    """A dialect's explain: the use case (config values, record, ports, ``provided=``) and its two renderings."""

    explain: Callable[..., Any]
    json: Callable[[Any, list[dict[str, object]]], str]
    text: Callable[[Any, list[str]], str]


#: The explain of each dialect of :mod:`lakesink.domain.dialects.registry`, by its name.
DIALECT_EXPLAINS = {
    CONFLUENT.name: DialectExplain(explain_confluent, render_confluent_json, render_confluent_text),
    AIVEN.name: DialectExplain(explain_aiven, render_aiven_json, render_aiven_text),
}


def run_explain(
    *, kcql: str | None, config_path: str | None, record_text: str | None, as_json: bool, ports: ExplainPorts
) -> str:
    """The explain output for the command line's arguments.

    A Lenses config's own statements are explained when no KCQL argument is given; the argument
    overrides them. Source statements (``... FROM bucket:prefix``) are explained as the restore
    plans them.

    Raises:
        ConfigError: invalid config or KCQL, no KCQL at all, KCQL given with a Confluent or Aiven
            config, or a record with source statements. RecordError: the record is invalid or
            cannot be placed.
    """
    config = None if config_path is None else ports.load_config(config_path)
    dialect = None if config is None else sink_dialect(config.values)
    if config is not None and dialect is not None:
        if kcql is not None:
            raise ConfigError(f"{config_path} is {dialect.described}: it takes no KCQL argument.")
        record = None if record_text is None else parse_record(record_text)
        explains = DIALECT_EXPLAINS[dialect.name]
        result = explains.explain(config.values, record, ports, provided=config.provided)
        if as_json:
            return explains.json(result, [step_json(trace) for trace in result.steps])
        return explains.text(result, _transform_lines(result.steps))
    values, provided = ({}, frozenset[str]()) if config is None else (config.values, config.provided)
    props, kcql_key, unprovided = explain_config(kcql, values, provided)
    notes = {key: note for key in values if (note := setting_note(values, key)) is not None}
    if holds_source_statements(props, props[kcql_key]):
        if record_text is not None:
            raise ConfigError("--record is placed by a sink's statements; source statements restore objects and take none.")
        source = explain_source(props, unprovided)
        return render_source_json(source, notes) if as_json else render_source_text(source, notes)
    lenses = explain(ExplainCommand.from_cli(kcql=kcql, config=config, record_json=record_text), ports.clock)
    return render_json(lenses, notes) if as_json else render_text(lenses, notes)


def _transform_lines(steps: tuple[TraceStep, ...]) -> list[str]:
    lines = []
    for trace in steps:
        lines.append(f"Transform {trace.step.alias} ({trace.step.class_name}): {transform_effect(trace)}")
        if trace.applied and trace.record is not None:
            lines.append(f"  {json.dumps(record_json(trace.record), ensure_ascii=False, default=str)}")
    return lines
