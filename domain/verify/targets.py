"""What verify lists and what each listed key can prove, per root of a sink config.

The keys are parsed exactly as the restore parses them: each root is the restore's
:class:`~lakesink.domain.restore.plan.RestoreRoot` (a Lenses statement, the Confluent or Aiven
sink's bucket), so a key verify accepts is one the restore reads, and
:func:`~lakesink.domain.restore.index.classify` is the one parser. On top, a target says which
offset its keys name and whether its files hold consecutive records (:mod:`.claims`).
"""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.dialects.quix.naming import StoreLayout
from lakesink.domain.dialects.quix.restore_keys import QuixLayout
from lakesink.domain.formats import Format
from lakesink.domain.layout.key_segments import normalise_prefix
from lakesink.domain.restore.plan import INTERNAL_DIRECTORIES, RestorePlan, RestoreRoot
from lakesink.domain.statement_plan import SinkPlan
from lakesink.domain.tables.target import TableTarget
from lakesink.domain.verify.claims import KeyOffset


@dataclass(frozen=True, slots=True)
class VerifyTarget:
    """One root of the config and what its keys and files prove.

    Attributes:
        root: what is listed and how keys parse (the restore's root).
        names: which offset of its object a key names.
        consecutive: a topic-partition's records go to one file at a time, so a file's records
            are consecutive offsets (:mod:`.claims`).
        one_record: every object holds one record (Lenses BYTES): the key proves the offset.
        envelope_offsets: the envelope stores ``metadata.offset``, which can be read.
        file_ending: how a Lenses file name must end (``key.suffix`` and extension); None when
            the layout's parser already checks it.
        table: the table the statement commits to, whose own objects (metadata, log, a change
            table's rows) are no objects of its layout.
    """

    root: RestoreRoot
    names: KeyOffset
    consecutive: bool
    one_record: bool = False
    envelope_offsets: bool = False
    file_ending: str | None = None
    table: TableTarget | None = None


@dataclass(frozen=True, slots=True)
class VerifyPlan:
    """Every target of one sink config, and the restore plan their keys are classified with."""

    name: str
    indexes_name: str
    indexed: bool
    targets: tuple[VerifyTarget, ...]
    listing: RestorePlan

    @property
    def buckets(self) -> tuple[str, ...]:
        """The buckets written to (each may hold the index of the topics written there)."""
        return tuple(sorted({target.root.bucket for target in self.targets}))


def lenses_targets(plan: SinkPlan) -> tuple[VerifyTarget, ...]:
    """One target per KCQL statement (its bucket, prefix and topic)."""
    targets = []
    for number, statement_plan in enumerate(plan.statements):
        statement, layout = statement_plan.statement, statement_plan.layout
        prefix = normalise_prefix(statement.prefix)
        quix = layout.store is StoreLayout.QUIX
        envelope = statement_plan.envelope
        root = RestoreRoot(
            number=number,
            bucket=statement.bucket,
            list_prefix=prefix + "/" if prefix else "",
            topic=statement.topic,
            format=statement.format,
            csv_headers=statement.csv_headers,
            envelope=envelope is not None,
            layout=QuixLayout() if quix else None,
        )
        targets.append(
            VerifyTarget(
                root=root,
                names=KeyOffset.FIRST if quix else KeyOffset.LAST,
                consecutive=quix or layout.selection.reads_only_coordinates,
                one_record=statement.format is Format.BYTES and not quix,
                envelope_offsets=envelope is not None and envelope.metadata,
                file_ending=None if quix else f"{layout.key_suffix}.{layout.file_extension}",
                table=statement_plan.table,
            )
        )
    return tuple(targets)


def dialect_targets(settings: ConnectorSettings, restore: RestorePlan) -> tuple[VerifyTarget, ...]:
    """The Confluent or Aiven sink's one root, as the restore of that config lists it.

    Consecutive records only under Confluent's DefaultPartitioner (one encoded partition per Kafka
    partition, unless tombstones go to their own) and Aiven's topic-partition grouping; their keys
    name a file's first offset.
    """
    consecutive = settings.writing is not None and settings.writing.consecutive_files
    return tuple(
        VerifyTarget(root=root, names=KeyOffset.FIRST, consecutive=consecutive) for root in restore.roots
    )


def verify_plan(settings: ConnectorSettings, targets: tuple[VerifyTarget, ...]) -> VerifyPlan:
    """The plan of a sink config; its listing skips the index, plans and upload staging folders."""
    listing = RestorePlan(
        name=settings.name,
        backend=settings.backend,
        storage=settings.storage,
        roots=tuple(target.root for target in targets),
        excluded_directories=tuple(dict.fromkeys((*INTERNAL_DIRECTORIES, settings.indexes_name))),
    )
    return VerifyPlan(settings.name, settings.indexes_name, settings.exactly_once, targets, listing)
