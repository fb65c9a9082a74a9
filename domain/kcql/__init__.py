"""KCQL, the statement language that maps Kafka topics to buckets (sink) and back (source).

``parse`` reads the sink form, ``parse_source`` the source form, ``render`` writes either back
as canonical text. The grammar, the PROPERTIES keys and the differences from Lenses are
described in docs/kcql.md.
"""

from __future__ import annotations

from lakesink.domain.kcql.parser import parse, parse_source
from lakesink.domain.kcql.render import render
from lakesink.domain.kcql.sink_properties import SinkProperties
from lakesink.domain.kcql.source_properties import SourceProperties
from lakesink.domain.kcql.statement import KcqlStatement, SourceStatement

__all__ = [
    "KcqlStatement",
    "SinkProperties",
    "SourceProperties",
    "SourceStatement",
    "parse",
    "parse_source",
    "render",
]
