"""What a lakesink commit records in a table: which run of which sink made it, and the offsets it holds.

A *mark*: the connector, the run owning the table (its id and claim number, the *epoch*) and the
last offset per topic-partition. The newest mark is where the sink resumes; the epoch fences an
older run. Iceberg keeps it in the snapshot summary and a table property, Delta as ``txn``
actions. See docs/tables.md, "Why it is exactly-once".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from lakesink.domain.errors import CommitError
from lakesink.domain.records import TopicPartition

CONNECTOR_PROPERTY = "lakesink.connector"
OWNER_PROPERTY = "lakesink.owner"
EPOCH_PROPERTY = "lakesink.epoch"
OFFSETS_PROPERTY = "lakesink.offsets"
UNKNOWN_OWNER = "?"
"""The owner of a mark whose run a format does not record (Delta keeps the epoch, not the run id)."""


@dataclass(frozen=True, slots=True)
class TableMark:
    """One lakesink commit's record of itself in a table."""

    connector: str
    owner: str
    """The id of the run that made the commit."""
    epoch: int
    """How many runs of this connector claimed the table so far, this one included."""
    offsets: Mapping[TopicPartition, int] = field(default_factory=dict)
    """Per topic-partition, the last offset whose record is in the table (every partition so far)."""

    def advanced(self, ends: Mapping[TopicPartition, int]) -> TableMark:
        """This mark after a batch that made ``ends`` durable."""
        return TableMark(self.connector, self.owner, self.epoch, {**self.offsets, **ends})

    def claimed_by(self, owner: str) -> TableMark:
        """The mark a new run claims the table with: the offsets kept, the epoch one higher."""
        return TableMark(self.connector, owner, self.epoch + 1, dict(self.offsets))


def first_mark(connector: str, owner: str) -> TableMark:
    """The claim of the first run of ``connector`` on a table it never wrote."""
    return TableMark(connector, owner, 1, {})


def mark_properties(mark: TableMark) -> dict[str, str]:
    """The snapshot summary properties that record ``mark`` (Iceberg)."""
    offsets: dict[str, dict[str, int]] = {}
    for (topic, partition), last in sorted(mark.offsets.items()):
        offsets.setdefault(topic, {})[str(partition)] = last
    return {
        CONNECTOR_PROPERTY: mark.connector,
        OWNER_PROPERTY: mark.owner,
        EPOCH_PROPERTY: str(mark.epoch),
        OFFSETS_PROPERTY: json.dumps(offsets, separators=(",", ":"), sort_keys=True),
    }


def mark_of(connector: str, properties: Mapping[str, str]) -> TableMark | None:
    """The mark of ``connector`` in a snapshot's summary properties; None when the snapshot is not
    one of its commits (another writer's, or another lakesink connector's).

    Raises:
        CommitError: the properties name the connector but do not hold a readable mark.
    """
    if properties.get(CONNECTOR_PROPERTY) != connector:
        return None
    try:
        offsets = json.loads(properties[OFFSETS_PROPERTY])
        return TableMark(
            connector,
            properties[OWNER_PROPERTY],
            int(properties[EPOCH_PROPERTY]),
            {(topic, int(partition)): int(last) for topic, lasts in offsets.items() for partition, last in lasts.items()},
        )
    except (KeyError, ValueError, TypeError, AttributeError) as error:
        raise CommitError(
            f"A table commit of sink {connector!r} holds an unreadable lakesink mark ({error!r}): "
            f"the properties {sorted(key for key in properties if key.startswith('lakesink.'))} were changed "
            "by hand; the sink cannot tell where to resume from this table."
        ) from None


def mark_property(connector: str) -> str:
    """The table property that keeps ``connector``'s newest mark too (Iceberg): found when expired
    snapshots took the connector's commits out of the branch's ancestry."""
    return f"lakesink.mark.{connector}"


def mark_text(mark: TableMark) -> str:
    """``mark`` as the JSON text of that property (its snapshot summary properties, as one object)."""
    return json.dumps(mark_properties(mark), separators=(",", ":"), sort_keys=True)


def mark_from_text(connector: str, text: str) -> TableMark | None:
    """The mark :func:`mark_text` wrote (None: another connector's).

    Raises:
        CommitError: the text is not one (the property was changed by hand).
    """
    try:
        properties = json.loads(text)
    except ValueError:
        properties = None
    if not isinstance(properties, dict):
        raise CommitError(f"Table property {mark_property(connector)} is not a lakesink mark: {text[:200]!r}")
    return mark_of(connector, properties)


def epoch_app_id(connector: str) -> str:
    """The Delta ``txn`` app id whose version is the epoch of the run that owns the table."""
    return f"lakesink/{connector}"


def offset_app_id(connector: str, topic: str, partition: int) -> str:
    """The Delta ``txn`` app id whose version is the last offset of ``topic``-``partition`` in the table."""
    return f"lakesink/{connector}/{topic}/{partition}"


def offsets_from(versions: Mapping[TopicPartition, int | None]) -> dict[TopicPartition, int]:
    """The offsets of the partitions that have a ``txn`` version (the others never reached the table)."""
    return {where: version for where, version in versions.items() if version is not None}

