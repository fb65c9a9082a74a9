"""``lakesink kcql explain --config FILE`` for an Aiven S3 sink config (no KCQL argument).

Nothing is read from Kafka or written to a store: the config is validated as
:class:`~lakesink.domain.dialects.aiven.sink_config.AivenSinkConfig` (refused as Aiven would refuse
it) and a record, through the config's transforms, gets the key of the file it starts and that
file's content with only this record (:data:`~lakesink.application.explain_ports.AivenPreview`).
See docs/dialects.md, "Aiven S3 sink" and "File contents (Aiven's writers, byte for byte)".
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from lakesink.application.explain_keys import own_keys, report_head, traced
from lakesink.application.explain_ports import AivenPreview, ExplainPorts
from lakesink.domain.dialects.aiven.naming import AivenFormat
from lakesink.domain.dialects.aiven.notes import content_notes, grouping_notes, replay_differences
from lakesink.domain.dialects.aiven.sink_config import AIVEN_S3_SINK, AivenSinkConfig
from lakesink.domain.errors import FormatError, RecordError
from lakesink.domain.records import Record
from lakesink.domain.transforms.chain import TraceStep

_BYTES_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"


@dataclass(frozen=True, slots=True)
class AivenExplainResult:
    """The validated config and, given a record, the key of the file it would start.

    ``record`` is the record after the transforms (None when one dropped it or none was given);
    ``note`` says why there is no object key then. ``file_name`` is the rendered template, which
    groups records; it is the object key unless ``aws.s3.prefix`` is set. ``content`` is the
    file's content with only this record (uncompressed), or why Aiven's writer fails the record.
    ``values`` / ``provided`` are the config's own keys (shown as the file names them) and those a
    config provider filled.
    """

    config: AivenSinkConfig
    values: Mapping[str, str] = field(default_factory=dict)
    provided: frozenset[str] = frozenset()
    record: Record | None = None
    steps: tuple[TraceStep, ...] = ()
    file_name: str | None = None
    object_key: str | None = None
    note: str | None = None
    content: str | None = None


def explain_aiven(
    config: Mapping[str, str], record: Record | None, ports: ExplainPorts, *, provided: frozenset[str] = frozenset()
) -> AivenExplainResult:
    """Validate an Aiven S3 sink config and, with a record, name the object it starts.

    Raises:
        ConfigError: the config is invalid (one line naming the key).
        RecordError: the record cannot be named as Aiven would (not subscribed, no timestamp for
            an ``event`` source, a key that cannot be rendered).
    """
    settings = AivenSinkConfig.from_properties(config, provided)
    return dataclasses.replace(_explained(settings, record, ports), values=dict(config), provided=provided)


def _explained(settings: AivenSinkConfig, record: Record | None, ports: ExplainPorts) -> AivenExplainResult:
    if record is None:
        return AivenExplainResult(settings)
    found = traced(settings, record, ports.clock)
    routed = found.record
    if routed is None:
        return AivenExplainResult(settings, record=None, steps=found.steps, note="a transform dropped the record")
    name = settings.naming.file_name(routed, routed, found.now_ms)
    key = settings.naming.object_key(name, routed, found.now_ms)
    return AivenExplainResult(
        settings, record=routed, steps=found.steps, file_name=name, object_key=key, content=_content(settings, routed, ports.aiven_preview)
    )


def _content(settings: AivenSinkConfig, record: Record, preview: AivenPreview) -> str:
    """The record as Aiven's writer of the config writes it, or why it fails it."""
    output = settings.output
    csv = output.format is AivenFormat.CSV
    key, value, header = (
        csv or converter.class_name == _BYTES_CONVERTER
        for converter in (settings.key_converter, settings.value_converter, settings.header_converter)
    )
    record = dataclasses.replace(
        record,
        key=_as_bytes(record.key) if key else record.key,
        value=_as_bytes(record.value) if value else record.value,
        headers=tuple((name, _as_bytes(item) if header else item) for name, item in record.headers),
    )
    try:
        return preview(output, record)
    except (RecordError, FormatError) as error:
        return f"Aiven's writer fails this record: {error}"


def _as_bytes(value: object) -> object:
    """A ``--record`` text as the bytes ``ByteArrayConverter`` would give for it."""
    return value.encode("utf-8") if isinstance(value, str) else value


def _document(result: AivenExplainResult, steps_json: list[dict[str, object]]) -> dict[str, object]:
    config = result.config
    return {
        "dialect": "aiven",
        "settings": own_keys(result.values, result.provided),
        "resolved": config.describe(),
        "grouping": grouping_notes(config),
        "replay_differences": replay_differences(config),
        "notes": content_notes(config),
        "transforms": steps_json,
        "file_name": result.file_name,
        "object_key": result.object_key,
        "object_bucket": config.bucket if result.object_key else None,
        "content": result.content,
        "note": result.note,
    }


def render_aiven_json(result: AivenExplainResult, steps_json: list[dict[str, object]]) -> str:
    """One JSON object; ``object_key`` / ``object_bucket`` as for the other dialects."""
    return json.dumps(result.config.hidden.mask_leaves(_document(result, steps_json)), indent=2, ensure_ascii=False)


def render_aiven_text(result: AivenExplainResult, transform_lines: list[str]) -> str:
    """The resolved settings, one per line, then grouping, notes, the transforms and the record's key."""
    config = result.config
    lines = report_head(
        f"Aiven S3 sink config {config.name!r} ({AIVEN_S3_SINK}):",
        result.values,
        result.provided,
        (
            ("Records are grouped", grouping_notes(config)),
            ("Names may differ from Aiven's on a replay", replay_differences(config)),
            ("Notes", content_notes(config)),
        ),
    )
    lines.extend(transform_lines)
    if result.record is not None and result.object_key is not None:
        lines.append(f"Record {result.record.describe()} starts a file in bucket {config.bucket!r}, key:")
        lines.append(f"  {result.object_key}")
        if result.file_name != result.object_key:
            lines.append(f"  (grouped as {result.file_name}; aws.s3.prefix names the object)")
        if result.content is not None:
            lines.append("Content (the file with only this record, uncompressed):")
            lines.extend(f"  {line}" for line in result.content.split("\n"))
    elif result.note:
        lines.append(f"Record: no object ({result.note}).")
    return config.hidden.scrub("\n".join(lines))
