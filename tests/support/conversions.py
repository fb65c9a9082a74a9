"""Checks every ``lakesink config convert`` test makes of a conversion, whatever dialect it came from."""

from __future__ import annotations

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.lenses_conversion import Conversion
from lakesink.domain.config.properties_text import parse_properties
from lakesink.domain.statement_plan import SinkPlan, plan_sink


def load(conversion: Conversion) -> tuple[dict[str, str], SinkPlan]:
    """The printed text parsed and validated by the Lenses dialect's loader, then planned."""
    props = parse_properties(conversion.properties_text())
    return props, plan_sink(ConnectorSettings.from_properties(props, role="sink"))


def notes(conversion: Conversion) -> dict[str, str]:
    """The notes by source key, checking there is one line per key."""
    assert len({key for key, _ in conversion.notes}) == len(conversion.notes)
    return dict(conversion.notes)
