"""``lakesink kcql explain --config FILE`` for a Confluent S3 sink config (no KCQL argument).

Nothing is read from Kafka or written to a store: the config is validated as
:class:`~lakesink.domain.dialects.confluent.sink_config.ConfluentSinkConfig` (refused as Confluent
would refuse it) and a record, through the config's transforms, gets the key of the value object
Confluent would start with it, and those of its ``.keys`` / ``.headers`` siblings.
See docs/dialects.md, "Confluent S3 sink".
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from lakesink.application.explain_keys import own_keys, report_head, traced
from lakesink.application.explain_ports import ExplainPorts
from lakesink.domain.dialects.confluent.naming import RecordView, view_object_key
from lakesink.domain.dialects.confluent.notes import content_notes, file_boundaries, replay_differences
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.errors import RecordError
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.transforms.chain import TraceStep


@dataclass(frozen=True, slots=True)
class ConfluentExplainResult:
    """The validated config and, given a record, where Confluent's sink would put it.

    ``record`` is the record after the transforms (None when one dropped it or none was given);
    ``object_key`` is None when no value object is written (dropped, ignored or written null
    value); ``note`` says why in that case. ``values`` / ``provided`` are the config's own keys
    (shown as the file names them) and those a config provider filled.
    """

    config: ConfluentSinkConfig
    values: Mapping[str, str] = field(default_factory=dict)
    provided: frozenset[str] = frozenset()
    record: Record | None = None
    steps: tuple[TraceStep, ...] = ()
    encoded_partition: str | None = None
    object_key: str | None = None
    keys_object_key: str | None = None
    headers_object_key: str | None = None
    note: str | None = None


def explain_confluent(
    config: Mapping[str, str], record: Record | None, ports: ExplainPorts, *, provided: frozenset[str] = frozenset()
) -> ConfluentExplainResult:
    """Validate a Confluent S3 sink config and, with a record, name its objects.

    Raises:
        ConfigError: the config is invalid (one line naming the key).
        RecordError: the record cannot be written as Confluent would (not subscribed, a null
            value with behavior.on.null.values=fail, a field the partitioner cannot read...).
    """
    settings = ConfluentSinkConfig.from_properties(config, provided)
    return dataclasses.replace(_explained(settings, record, ports.clock), values=dict(config), provided=provided)


def _explained(settings: ConfluentSinkConfig, record: Record | None, clock: Clock) -> ConfluentExplainResult:
    if record is None:
        return ConfluentExplainResult(settings)
    found = traced(settings, record, clock)
    if found.record is None:
        return ConfluentExplainResult(settings, record=None, steps=found.steps, note="a transform dropped the record")
    return _place(settings, found.record, found.steps, found.now_ms)


def _place(
    settings: ConfluentSinkConfig, record: Record, steps: tuple[TraceStep, ...], now_ms: int
) -> ConfluentExplainResult:
    note = None
    if record.value is None:
        if settings.null_values == "fail":
            raise RecordError(
                f"{record.describe()}: Null valued records are not writeable with current "
                "behavior.on.null.values 'fail' (set ignore or write)."
            )
        if settings.null_values == "ignore":
            return ConfluentExplainResult(
                settings, record=record, steps=steps, note="null value skipped (behavior.on.null.values=ignore)"
            )
        encoded = settings.tombstone_partition
        note = "null value: only the keys (and headers) file is written (behavior.on.null.values=write)"
    else:
        encoded = settings.layout.partitioner.encode_partition(record, now_ms)
    layout = settings.layout
    value_key = layout.object_key(record.topic, record.partition, encoded, record.offset, settings.extension)
    keys_key = headers_key = None
    if settings.keys is not None:
        if record.key is None:
            raise RecordError(
                f"Key cannot be null for SinkRecord: {record.describe()} (store.kafka.keys=true)."
            )
        keys_key = view_object_key(value_key, settings.extension, RecordView.KEYS, settings.keys.extension)
    if settings.headers is not None:
        if not record.headers:
            raise RecordError(
                f"Headers cannot be null for SinkRecord: {record.describe()} (store.kafka.headers=true)."
            )
        headers_key = view_object_key(
            value_key, settings.extension, RecordView.HEADERS, settings.headers.extension
        )
    return ConfluentExplainResult(
        settings,
        record=record,
        steps=steps,
        encoded_partition=encoded,
        object_key=None if record.value is None else value_key,
        keys_object_key=keys_key,
        headers_object_key=headers_key,
        note=note,
    )


def render_confluent_json(result: ConfluentExplainResult, steps_json: list[dict[str, object]]) -> str:
    """One JSON object; ``object_key`` / ``object_bucket`` as for the Lenses dialect."""
    document = {
        "dialect": "confluent",
        "settings": own_keys(result.values, result.provided),
        "resolved": result.config.describe(),
        "file_boundaries": file_boundaries(result.config),
        "replay_differences": replay_differences(result.config),
        "notes": content_notes(result.config),
        "transforms": steps_json,
        "encoded_partition": result.encoded_partition,
        "object_key": result.object_key,
        "object_bucket": result.config.bucket if result.object_key or result.keys_object_key else None,
        "keys_object_key": result.keys_object_key,
        "headers_object_key": result.headers_object_key,
        "note": result.note,
    }
    return json.dumps(result.config.hidden.mask_leaves(document), indent=2, ensure_ascii=False)


def render_confluent_text(result: ConfluentExplainResult, transform_lines: list[str]) -> str:
    """The resolved settings, one per line, then the transforms and the record's keys."""
    config = result.config
    lines = report_head(
        f"Confluent S3 sink config {config.name!r} (io.confluent.connect.s3.S3SinkConnector):",
        result.values,
        result.provided,
        (
            ("Files roll on", file_boundaries(config)),
            ("Keys may differ from Confluent's on a replay", replay_differences(config)),
            ("Notes", content_notes(config)),
        ),
    )
    lines.extend(transform_lines)
    record = result.record
    if record is not None:
        if result.object_key is None and result.keys_object_key is None:
            lines.append(f"Record {record.describe()}: no object ({result.note}).")
        else:
            lines.append(f"Record {record.describe()} goes to bucket {config.bucket!r}, key:")
            lines.append(f"  {result.object_key if result.object_key is not None else '(no value object)'}")
            if result.keys_object_key is not None:
                lines.append(f"  keys:    {result.keys_object_key}")
            if result.headers_object_key is not None:
                lines.append(f"  headers: {result.headers_object_key}")
            if result.note:
                lines.append(f"  ({result.note})")
    elif result.note:
        lines.append(f"Record: no object ({result.note}).")
    return config.hidden.scrub("\n".join(lines))
