"""What ``kcql explain`` does alike for every Kafka Connect dialect (Confluent's and Aiven's S3 sinks).

The dialect configs are parsed into lakesink's own fields, names a user never wrote, so explain
leads with the config's keys as the file names them (:func:`own_keys`), takes a record as Kafka
Connect takes it (:func:`traced`) and opens its text report with :func:`report_head`.
See docs/dialects.md, "Confluent S3 sink" and "Aiven S3 sink".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from lakesink.domain.config.secret import MASK
from lakesink.domain.config.secret_keys import holds_secret
from lakesink.domain.config.setting_notes import setting_note
from lakesink.domain.errors import RecordError
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.transforms.chain import TraceStep
from lakesink.domain.transforms.registry import build_chain


def own_keys(config: Mapping[str, str], provided: Collection[str]) -> dict[str, dict[str, str]]:
    """``{key: {"value": …, "note": …}}`` in the file's order; a note only where the key has no effect.

    The keys as written, not lakesink's fields they were parsed into (``topics_regex``,
    ``key_converter.settings...``); secrets and provided values masked, the note from
    :func:`~lakesink.domain.config.setting_notes.setting_note`.
    """
    shown: dict[str, dict[str, str]] = {}
    for key, value in config.items():
        entry = {"value": MASK if key in provided or holds_secret(key) else value}
        note = setting_note(config, key)
        shown[key] = {**entry, "note": note} if note else entry
    return shown


def own_key_lines(config: Mapping[str, str], provided: Collection[str]) -> list[str]:
    """The text lines: ``  key = value`` and, under a key without effect, its note."""
    lines = []
    for key, entry in own_keys(config, provided).items():
        lines.append(f"  {key} = {entry['value']}")
        if "note" in entry:
            lines.append(f"      {entry['note']}")
    return lines


class ConnectConfig(Protocol):
    """What :func:`traced` reads of a Kafka Connect dialect's config."""

    @property
    def topics(self) -> tuple[str, ...]: ...
    @property
    def topics_regex(self) -> str | None: ...
    @property
    def transforms(self) -> Mapping[str, str]: ...


@dataclass(frozen=True, slots=True)
class Traced:
    """A record as the connector would get it: the transforms' steps, what they left (None: a
    transform dropped it) and the explain's clock."""

    steps: tuple[TraceStep, ...]
    record: Record | None
    now_ms: int


def traced(config: ConnectConfig, record: Record, clock: Clock) -> Traced:
    """``record`` through the config's transforms, once the connector is known to read its topic.

    Raises:
        RecordError: the connector does not subscribe to the record's topic (Kafka Connect never reads it).
    """
    check_subscribed(config.topics, config.topics_regex, record)
    now_ms = clock.now_ms()
    steps = tuple(build_chain(config.transforms, clock).trace(record))
    return Traced(steps, steps[-1].record if steps else record, now_ms)


def check_subscribed(topics: tuple[str, ...], topics_regex: str | None, record: Record) -> None:
    """Refuse a record of a topic the connector does not subscribe to (Kafka Connect never reads it).

    Raises:
        RecordError: naming the topic.
    """
    if topics and record.topic not in topics:
        raise RecordError(f"Topic {record.topic!r} is not in topics ({', '.join(topics)}): the sink never reads it.")
    if topics_regex is not None and not re.fullmatch(topics_regex, record.topic):
        raise RecordError(f"Topic {record.topic!r} does not match topics.regex: the sink never reads it.")


def report_head(
    title: str, config: Mapping[str, str], provided: Collection[str], sections: Sequence[tuple[str, Sequence[str]]]
) -> list[str]:
    """The text report's first lines: ``title``, the config's own keys, then each non-empty section
    of ``sections`` (its title, then one ``- item`` line per item)."""
    lines = [title, *own_key_lines(config, provided)]
    for heading, items in sections:
        if items:
            lines.append(f"{heading}:")
            lines.extend(f"  - {item}" for item in items)
    return lines
