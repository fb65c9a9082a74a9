"""``lakesink kcql explain``: picks the dialect of ``--config`` and renders the use case's result.

A Lenses config (or none) explains the KCQL argument (:mod:`.explain`); a Confluent S3 sink
config takes no KCQL and is explained by :mod:`.explain_confluent`.
"""

from __future__ import annotations

import json

from lakesink.adapters.clock import WallClock
from lakesink.application.config_file import load_config
from lakesink.application.explain import (
    ExplainCommand,
    explain,
    parse_record,
    record_json,
    render_json,
    render_text,
    step_json,
    transform_effect,
)
from lakesink.application.explain_confluent import (
    ConfluentExplainResult,
    explain_confluent,
    render_confluent_json,
    render_confluent_text,
)
from lakesink.domain.config.confluent_sink import CONFLUENT_S3_SINK, is_confluent_sink
from lakesink.domain.errors import ConfigError


def run_explain(*, kcql: str | None, config_path: str | None, record_text: str | None, as_json: bool) -> str:
    """The explain output for the command line's arguments.

    Raises:
        ConfigError: invalid config or KCQL, no KCQL for a Lenses config, or KCQL given with a
            Confluent one. RecordError: the record is invalid or cannot be placed.
    """
    config = None if config_path is None else load_config(config_path)
    if config is not None and is_confluent_sink(config.values):
        if kcql is not None:
            raise ConfigError(
                f"{config_path} is a Confluent S3 sink config ({CONFLUENT_S3_SINK}): it takes no KCQL argument."
            )
        record = None if record_text is None else parse_record(record_text)
        result = explain_confluent(config.values, record, WallClock(), provided=config.provided)
        if as_json:
            return render_confluent_json(result, [step_json(trace) for trace in result.steps])
        return render_confluent_text(result, _transform_lines(result))
    if kcql is None:
        raise ConfigError(
            "kcql explain needs a KCQL argument, unless --config is a Confluent S3 sink config "
            f"(connector.class={CONFLUENT_S3_SINK})."
        )
    lenses = explain(ExplainCommand.from_cli(kcql=kcql, config=config, record_json=record_text))
    return render_json(lenses) if as_json else render_text(lenses)


def _transform_lines(result: ConfluentExplainResult) -> list[str]:
    lines = []
    for trace in result.steps:
        lines.append(f"Transform {trace.step.alias} ({trace.step.class_name}): {transform_effect(trace)}")
        if trace.applied and trace.record is not None:
            lines.append(f"  {json.dumps(record_json(trace.record), ensure_ascii=False, default=str)}")
    return lines
