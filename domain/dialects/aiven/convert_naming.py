"""Aiven's object keys and record grouping against Lenses' (``lakesink config convert``).

Lenses names objects ``<prefix>/<topic>/<partition>/<last offset>_<first ts>_<last ts>.<ext>``;
Aiven renders its template. The conversion keeps what it can and says that the keys differ
(:func:`location`). See docs/dialects.md, "Converting an Aiven config".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC

from lakesink.domain.config.lenses_conversion import Piece
from lakesink.domain.dialects.aiven.naming import LEGACY_PREFIX, PREFIX, TEMPLATE, AivenGrouping
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.dialects.aiven.template import TemplatePart, TemplateVariable
from lakesink.domain.records import Record

#: 2024-05-09T03:17:33Z: the record time (and wall clock) of the examples.
_EXAMPLE_MS = 1715224653000
_TIME_VARIABLES = frozenset({"timestamp", "utc_date", "local_date"})
RUN_UNCHANGED = (
    "lakesink sink --config <the Aiven config> runs the Aiven config itself, with Aiven's keys and contents"
)


@dataclass(frozen=True, slots=True)
class Location:
    """The statements' prefix ('' for none), the naming notes, and the lines for the config's heading."""

    prefix: str
    piece: Piece
    heading: tuple[str, ...]


def location(config: AivenSinkConfig, raw: Mapping[str, str], extension: str) -> Location:
    """Where the converted statements write, and how that differs from Aiven's keys.

    ``extension`` is the extension of the Lenses files (``json``, ``gz``, ``parquet``...).

    No Lenses setting gives Aiven's names, so the conversion keeps the literal directories in front of
    the first variable as the statement's prefix and says, with an example of each, that the keys
    differ. Grouping by key (one object per key, overwritten) and the time in a key have no Lenses
    equivalent: they are noted, with the nearest Lenses setting where there is one. These notes are
    also the heading of the printed config, so nobody runs it without seeing them.
    """
    naming = config.naming
    piece = Piece(handled={TEMPLATE, PREFIX, LEGACY_PREFIX})
    prefix_key = (PREFIX if PREFIX in raw else LEGACY_PREFIX) if naming.prefix is not None else None
    if prefix_key == PREFIX and LEGACY_PREFIX in raw:
        piece.note(LEGACY_PREFIX, f"overridden by {PREFIX} (as in Aiven)")
    if prefix_key is not None and TEMPLATE in raw:
        piece.note(TEMPLATE, f"with {prefix_key}, Aiven uses it only to group records (see {prefix_key})")
    parts = naming.prefix_parts if naming.prefix is not None else naming.parts
    literal = parts[0] if parts and isinstance(parts[0], str) else ""
    if len(parts) == 1 and prefix_key is not None:
        literal += "/"  # a prefix without variables is all directories, whatever its last character
    prefix = literal.rpartition("/")[0].rstrip("/")
    topic = config.topics[0] if config.topics else "<topic>"
    lenses = f"{prefix}/" if prefix else ""
    lenses += f"{topic}/0/000000000000_<first timestamp>_<last timestamp>.{extension}"
    example = Record(topic=topic, partition=0, offset=0, timestamp=_EXAMPLE_MS, key="<key>")
    aiven = naming.object_key(naming.file_name(example, example, _EXAMPLE_MS), example, _EXAMPLE_MS, UTC)
    shown_key = prefix_key or TEMPLATE
    source = f"{prefix_key}={naming.prefix}" if prefix_key else f"{TEMPLATE}={naming.template}"
    differ = (
        f"object keys cannot match Aiven's ({source}): Aiven writes {aiven}, Lenses writes {lenses} "
        "(<prefix>/<topic>/<partition>/<last offset>_<first timestamp>_<last timestamp>.<extension>)"
    )
    if prefix:
        differ += f"; the statement's prefix is {prefix}"
    piece.note(shown_key, differ)
    heading = [f"NOTE: {differ}."]
    grouping = _grouping_note(naming.grouping)
    if grouping:
        piece.note(TEMPLATE, grouping)
        heading.append(f"NOTE: {grouping}.")
    times = _time_notes(config, raw, parts, prefix_key)
    for key, why in times:
        piece.note(key, why)
    if times:
        heading.append(f"NOTE: the time in Aiven's keys is not carried over ({times[0][0]}).")
    return Location(prefix, piece, tuple(heading))


def _grouping_note(grouping: AivenGrouping) -> str | None:
    if grouping.by_key:
        return (
            f"{grouping.describe()}; Lenses has no equivalent: it writes every record, in files per "
            f"topic-partition ({RUN_UNCHANGED})"
        )
    if grouping is AivenGrouping.TOPIC_PARTITION_KEY:
        return (
            "files per topic-partition and key; Lenses' nearest is PARTITIONBY _key (a directory per key "
            "value), not added: the keys would still differ"
        )
    return None


def _time_notes(
    config: AivenSinkConfig, raw: Mapping[str, str], parts: tuple[TemplatePart, ...], prefix_key: str | None
) -> list[tuple[str, str]]:
    """The time variables of the key, and the timestamp keys (of the file's ``raw`` text) that feed them."""
    naming = config.naming
    used = sorted({part.name for part in parts if isinstance(part, TemplateVariable)} & _TIME_VARIABLES)
    notes: list[tuple[str, str]] = []
    stamps = naming.prefix_timestamps if prefix_key else naming.timestamps
    if used:
        clock = "wall-clock" if stamps.kind == "wallclock" or used != ["timestamp"] else "record"
        notes.append(
            (
                prefix_key or TEMPLATE,
                f"Aiven's keys hold the {clock} time ({stamps.zone.id}) through "
                f"{', '.join('{{' + name + '}}' for name in used)}; Lenses' nearest is PARTITIONBY _date.`yyyy/MM/dd/HH` with "
                f"'partition.date.timezone'={stamps.zone.id}, a directory of the record's timestamp, not added: "
                "the keys would still differ",
            )
        )
    for where, keys, source in (
        (TEMPLATE, ("file.name.timestamp.source", "file.name.timestamp.timezone"), naming.parts),
        (PREFIX, ("timestamp.source", "timestamp.timezone"), naming.prefix_parts),
    ):
        read = any(isinstance(part, TemplateVariable) and part.name == "timestamp" for part in source)
        why = (
            f"read for {{{{timestamp}}}} in {where}, which does not carry over (see there)"
            if read
            else f"not read: {where} has no {{{{timestamp}}}} (no effect in Aiven either)"
        )
        notes.extend((key, why) for key in keys if key in raw)
    return notes
