"""Canonical KCQL text for a statement: the inverse of the parser.

Used by ``lakesink kcql`` (explain) and in messages; ``parse(render(s))`` gives a statement
equal to ``s``. Names are written bare when they can be, otherwise in backticks; property names
and values are always single-quoted so their text comes back unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.kcql.cursor import KEYWORDS
from lakesink.domain.kcql.formats import format_name
from lakesink.domain.kcql.lexer import needs_backticks, quote
from lakesink.domain.kcql.statement import KcqlStatement, SourceStatement


def render(stmt: KcqlStatement | SourceStatement) -> str:
    """Canonical KCQL text that parses back to a statement equal to ``stmt``."""
    if isinstance(stmt, KcqlStatement):
        return _render_sink(stmt)
    return _render_source(stmt)


def _render_sink(stmt: KcqlStatement) -> str:
    parts = [
        f"INSERT INTO {_location(stmt.bucket, stmt.prefix)}",
        f"SELECT * FROM {'`*`' if stmt.topic is None else _name(stmt.topic)}",
    ]
    if stmt.partition_by:
        parts.append("PARTITIONBY " + ", ".join(stmt.partition_by))
    elif stmt.no_partition:
        parts.append("NOPARTITION")
    parts.append(f"STOREAS `{format_name(stmt.format, stmt.csv_headers)}`")
    parts.extend(_properties(stmt.properties))
    return " ".join(parts)


def _render_source(stmt: SourceStatement) -> str:
    parts = [
        f"INSERT INTO {_name(stmt.topic)}",
        f"SELECT * FROM {_location(stmt.bucket, stmt.prefix)}",
    ]
    if stmt.batch is not None:
        parts.append(f"BATCH = {stmt.batch}")
    parts.append(f"STOREAS `{format_name(stmt.format, stmt.csv_headers)}`")
    if stmt.limit is not None:
        parts.append(f"LIMIT {stmt.limit}")
    parts.extend(_properties(stmt.properties))
    return " ".join(parts)


def _location(bucket: str, prefix: str | None) -> str:
    return _name(bucket) if prefix is None else f"{_name(bucket)}:{_name(prefix)}"


def _name(value: str) -> str:
    bare = not needs_backticks(value) and value.upper() not in KEYWORDS
    return value if bare else quote(value, "`")


def _properties(properties: Mapping[str, str]) -> list[str]:
    if not properties:
        return []
    entries = ", ".join(f"{quote(key, chr(39))}={quote(value, chr(39))}" for key, value in properties.items())
    return [f"PROPERTIES({entries})"]
