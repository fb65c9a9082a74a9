"""``lakesink kcql explain`` wired: the config file read from this machine, the wall clock, Aiven's writers."""

from __future__ import annotations

from lakesink.adapters.clock import WallClock
from lakesink.application.bootstrap.config_file import load_config
from lakesink.application.explain_command import run_explain
from lakesink.application.explain_ports import ExplainPorts
from lakesink.domain.dialects.aiven.output import AivenOutput
from lakesink.domain.records import Record


def run_explain_command(*, kcql: str | None, config_path: str | None, record_text: str | None, as_json: bool) -> str:
    """The explain output for the command line's arguments (:func:`~.explain_command.run_explain`)."""
    ports = ExplainPorts(load_config=load_config, clock=WallClock(), aiven_preview=_aiven_preview)
    return run_explain(kcql=kcql, config_path=config_path, record_text=record_text, as_json=as_json, ports=ports)


def _aiven_preview(output: AivenOutput, record: Record) -> str:
    """Aiven's writers (Arrow, fastavro) imported for a record's preview only: explaining a config runs
    on the core install, without the data path's extra."""
    from lakesink.adapters.dialects.aiven.writers import preview

    return preview(output, record)
