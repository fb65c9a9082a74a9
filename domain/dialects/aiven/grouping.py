"""Which file each record of a flush goes to under an Aiven S3 sink config: Aiven's record groupers as rules.

An :class:`AivenGrouper` lives for one range (one flush) and starts as Aiven's grouper does after
a clear. A record is filed in two steps (:meth:`AivenGrouper.place`, then :meth:`AivenGrouper.filed`),
so a record the writer refuses changes nothing and a replay places every record the same way.
See docs/dialects.md, "Object keys (Aiven's code, not its README)".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lakesink.domain.dialects.aiven.naming import AivenGrouping, AivenNaming, key_text
from lakesink.domain.records import Record
from lakesink.domain.schema import schema_for


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one record goes: the file ``name`` (the rendered template), and the grouper state filing it sets."""

    name: str
    group: tuple[str, int, str | None]
    head: Record
    schemas: tuple[Any, Any] | None


@dataclass
class AivenGrouper:
    """Aiven's grouper for one topic-partition range (one flush); ``now_ms`` is the batch clock."""

    naming: AivenNaming
    now_ms: int
    _heads: dict[tuple[str, int, str | None], Record] = field(default_factory=dict)
    _counts: dict[str, int] = field(default_factory=dict)
    _schemas: dict[tuple[str, int, str | None], tuple[Any, Any]] = field(default_factory=dict)

    @property
    def replaces(self) -> bool:
        """Whether a name holds only its latest record (grouping by key: objects are overwritten)."""
        return self.naming.grouping.by_key

    def place(self, record: Record) -> Placement:
        """The file ``record`` goes to; nothing changes until :meth:`filed`.

        By topic-partition, a record is filed under the name rendered from the group's *head* (the first
        record since the flush or the last cut: its offset is ``start_offset``) and its own timestamp.
        With ``file.max.records`` set, a record whose name has no buffer yet or a full one becomes the new
        head (Aiven's ``Rotator`` treats a missing buffer as full, so a new hour starts a file named by
        that record); without it the head stays, and a new hour files records under the same start offset
        (``rotateKeysHourly``). For avro and parquet a change of key or value schema in the
        topic-partition makes the record a new head (``SchemaBased*RecordGrouper``). By key, each name
        holds the latest record filed under it.

        Raises:
            RecordError: the record cannot name a file (see :meth:`AivenNaming.file_name`).
        """
        naming = self.naming
        if naming.grouping.by_key:
            name = naming.file_name(record, record, self.now_ms)
            return Placement(name, (record.topic, record.partition, None), record, None)
        keyed = naming.grouping is AivenGrouping.TOPIC_PARTITION_KEY
        group = (record.topic, record.partition, key_text(record) if keyed else None)
        schemas = None
        head = self._heads.get(group, record)
        if naming.schema_rotation:
            schemas = (
                schema_for(record.key, record.key_schema),
                schema_for(record.value, record.value_schema),
            )
            seen = self._schemas.get(group)
            if seen is not None and seen != schemas:
                head = record
        name = naming.file_name(head, record, self.now_ms)
        limit = naming.max_records
        if head is not record and limit and not 0 < self._counts.get(name, 0) < limit:
            # file.max.records: a name without a buffer, or with a full one, starts a file headed by the record
            head = record
            name = naming.file_name(record, record, self.now_ms)
        return Placement(name, group, head, schemas)

    def filed(self, placement: Placement) -> None:
        """Record that the writer took the placed record."""
        self._heads[placement.group] = placement.head
        self._counts[placement.name] = self._counts.get(placement.name, 0) + 1
        if placement.schemas is not None:
            self._schemas[placement.group] = placement.schemas
