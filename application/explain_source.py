"""``kcql explain`` of source statements (``INSERT INTO topic SELECT * FROM bucket:prefix``).

Why a module of its own: a source statement is read the other way round from a sink's (the
``FROM`` side is the bucket), so the sink's plan cannot hold it. It is explained as the restore
plans it (:func:`~lakesink.domain.restore.lenses_plan.restore_root`): what is listed, how objects
are read and which topic receives the records, with the restore's resolved settings. Nothing is
listed, read or produced, and no Kafka cluster is needed.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from lakesink.application.explain import display_text, key_note_lines
from lakesink.domain.config.connector import ConnectorSettings, plain_value
from lakesink.domain.config.hidden import HiddenValues
from lakesink.domain.kcql import SourceStatement
from lakesink.domain.restore.lenses_plan import restore_root
from lakesink.domain.restore.plan import RestoreRoot

#: The resolved settings a restore of source statements runs with (the rest are the sink's).
_RESTORE_SETTINGS = (
    "name", "backend", "storage", "bootstrap_servers", "header_converter", "kafka_client",
    "error_policy", "indexes_name", "source",
)


@dataclass(frozen=True, slots=True)
class SourceExplanation:
    """Each statement with the root the restore lists for it, and the restore's resolved settings."""

    statements: tuple[tuple[SourceStatement, RestoreRoot], ...]
    settings: Mapping[str, object]
    hidden: HiddenValues


def explain_source(props: Mapping[str, str], provided: Collection[str] = frozenset()) -> SourceExplanation:
    """The restore plan of a source config's statements, validated as ``lakesink restore`` does.

    Raises:
        ConfigError: an invalid setting or statement.
    """
    settings = ConnectorSettings.from_properties(props, role="source", provided=provided)
    statements = tuple(s for s in settings.statements if isinstance(s, SourceStatement))
    described = settings.describe()
    return SourceExplanation(
        statements=tuple(
            (statement, restore_root(number, statement, settings.header_converter))
            for number, statement in enumerate(statements)
        ),
        settings={name: described[name] for name in _RESTORE_SETTINGS},
        hidden=settings.hidden,
    )


def _root_json(statement: SourceStatement, root: RestoreRoot) -> dict[str, object]:
    return {
        "statement": statement.text,
        "bucket": root.bucket,
        "prefix": root.list_prefix,
        "format": root.format.value,
        "topic": root.topic,
        "csv_headers": root.csv_headers,
        "envelope": root.envelope,
        "topic_from_envelope": root.topic_from_envelope,
        "page_size": root.page_size,
        "limit": root.limit,
        "post_process": plain_value(root.post_process),
        "layout": "lenses" if root.layout is None else root.layout.dialect,
    }


def render_source_json(explanation: SourceExplanation, key_notes: Mapping[str, str] | None = None) -> str:
    """One JSON object: ``{"role": "source", "statements": [...], "settings": {...}}`` (and
    ``key_notes``, as for sink statements)."""
    document = {
        "role": "source",
        "statements": [_root_json(statement, root) for statement, root in explanation.statements],
        "settings": dict(explanation.settings),
        **({"key_notes": dict(key_notes)} if key_notes else {}),
    }
    return json.dumps(explanation.hidden.mask_leaves(document), indent=2, ensure_ascii=False)


def render_source_text(explanation: SourceExplanation, key_notes: Mapping[str, str] | None = None) -> str:
    """Each statement as the restore reads it, the restore's settings one per line, then the
    config's keys without effect."""
    lines: list[str] = []
    for number, (statement, root) in enumerate(explanation.statements, start=1):
        info = _root_json(statement, root)
        target = root.topic if not root.topic_from_envelope else f"each envelope's topic, else {root.topic}"
        lines.append(f"Source statement {number}: {statement.text}")
        lines.append(f"  lists {root.bucket}:{root.list_prefix or '(the bucket root)'} and produces into {target}")
        for name in ("format", "csv_headers", "envelope", "page_size", "limit", "post_process", "layout"):
            lines.append(f"  {name:<22} {_text(info[name])}")
    lines.append("Restore settings:")
    for name, value in explanation.settings.items():
        lines.append(f"  {name:<22} {_text(value)}")
    lines.extend(key_note_lines(key_notes or {}))
    return explanation.hidden.scrub("\n".join(lines))


def _text(value: object) -> str:
    """A mapping as JSON (storage, source settings), anything else as the sink's explain prints it."""
    if isinstance(value, Mapping) and value:
        return json.dumps(value, ensure_ascii=False, default=str)
    return display_text(value)
